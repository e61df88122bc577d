/**
 * Companies and their jobs. A fixed set is planted (the rich company, the Helix group sharing one
 * domain, companies whose slugs lookup refuses); the rest is drawn from the vocabulary. Every
 * company passes through one builder, so planted and generated ones differ only in what their spec
 * pins down.
 */
import type { CompanySizeCode } from '../../../schemas/parameters.js';
import type { Product } from '../../../schemas/records.js';
import {
  ALPHANUMERIC,
  asciiSlug,
  cityId,
  DAY,
  DIGITS,
  type GenerationContext,
  HOUR,
  iso,
  issue,
  locationById,
  NOW,
  nextInternalId,
  reserve,
} from './context.js';
import { datasetFixtures as fx } from './fixtures.js';
import type { CompanyRecord, IndustryRecord, JobRecord } from './model.js';
import {
  COMPANY_NAME_STEMS,
  COMPANY_SIZES,
  EMPLOYMENT_TYPES,
  FUNCTIONS,
  INDUSTRIES,
  type IndustrySeed,
  LOCATIONS,
  SECTORS,
  SENIORITIES,
  type SectorSeed,
} from './vocabulary.js';

/** The sample's 80 companies; larger datasets one per 50 profiles, so companies keep their size. */
export const companyCount = (profiles: number) => Math.max(80, Math.round(profiles / 50));
/** Generated companies drawn from technology industries first, so "software" matches > 25 companies. */
const TECH_QUOTA = 24;
/** Draws of a two-word company name before a longer one is tried. */
const PLAIN_NAME_ATTEMPTS = 10;
/** Jobs planted under a company's slug, used before fresh ids are drawn. */
const PLANTED_JOB_IDS: Readonly<Record<string, readonly string[]>> = { [fx.richCompany.slug]: [fx.jobId] };

export interface CompanySpec {
  name: string;
  slug?: string;
  publicId?: string;
  industryId: string;
  /** Headquarters first. */
  locationIds: string[];
  sizeCode?: CompanySizeCode;
  domain?: string | null;
  followerCount?: number;
  foundedYear?: number | null;
  summary?: string | null;
  jobCount?: number;
  postCount?: number;
  productCount?: number;
}

/** A built company and how much activity the later stages give it. */
export interface CompanyPlan {
  record: CompanyRecord;
  sector: SectorSeed;
  jobCount: number;
  postCount: number;
}

const HELIX_DOMAIN = fx.sharedDomain.domain;

const helix = (
  name: string,
  industryId: string,
  city: string,
  extra: Partial<CompanySpec> = {},
): CompanySpec => ({
  name,
  industryId,
  locationIds: [cityId(city)],
  domain: HELIX_DOMAIN,
  summary: `${name} is part of Helix Group, the diversified holding company headquartered in Zurich.`,
  ...extra,
});

/** Hand-written companies the fixtures point at. */
function plantedCompanies(): CompanySpec[] {
  return [
    {
      name: fx.richCompany.name,
      slug: fx.richCompany.slug,
      publicId: fx.richCompany.publicId,
      industryId: '4',
      locationIds: [
        fx.branchLocation.headquartersId,
        fx.branchLocation.locationId,
        cityId('New York'),
        cityId('Bengaluru'),
      ],
      sizeCode: 'F',
      domain: 'northwind-analytics.com',
      followerCount: 48_210,
      foundedYear: 2011,
      summary:
        'Northwind Analytics builds data infrastructure and forecasting software for retailers and banks.',
      jobCount: 6,
      postCount: 8,
      productCount: 3,
    },
    {
      name: 'Helix Group',
      slug: fx.exactCompanyName.slug,
      publicId: '1180422',
      industryId: '11',
      locationIds: [cityId('Zurich'), cityId('London'), cityId('Singapore'), cityId('New York')],
      sizeCode: 'I',
      domain: HELIX_DOMAIN,
      followerCount: 120_000,
      foundedYear: 1962,
      summary:
        'Helix Group is a diversified holding company with businesses in finance, health, energy and logistics.',
      jobCount: 2,
    },
    // More followers than the parent: ranking must still put the exact name first.
    helix('Helix Group Foundation', '11', 'Zurich', {
      domain: `foundation.${HELIX_DOMAIN}`,
      followerCount: 250_000,
      jobCount: 0,
    }),
    helix('Helix Payments', '43', 'London', {
      publicId: fx.peopleNarrowing.pastCompany,
      sizeCode: 'G',
      jobCount: 3,
    }),
    helix('Helix Logistics', '116', 'Hamburg'),
    helix('Helix Health', '14', 'Zurich'),
    helix('Helix Energy', '3240', 'Stockholm'),
    helix('Helix Insurance', '42', 'Zurich'),
    helix('Helix Capital', '106', 'London'),
    helix('Helix Real Estate', '44', 'Frankfurt'),
    helix('Helix Software', '4', 'Berlin', { jobCount: 2 }),
    helix('Helix Digital', '80', 'Amsterdam'),
    helix('Helix Foods', '34', 'Milan'),
    helix('Helix Mobility', '53', 'Munich'),
    helix('Helix Labs', '12', 'Boston', { domain: `labs.${HELIX_DOMAIN}` }),
    helix('Helix Consulting', '11', 'Singapore', { domain: `consulting.${HELIX_DOMAIN}` }),
    {
      name: 'Acme Co',
      slug: 'acme.co',
      industryId: '96',
      locationIds: [cityId('Austin')],
      domain: 'acme.co',
      jobCount: 2,
    },
    {
      name: 'Smith & Sons',
      slug: 'smith&sons',
      industryId: '47',
      locationIds: [cityId('Manchester')],
      domain: 'smithandsons.co.uk',
    },
    {
      name: 'Hidden Labs',
      slug: '_hidden-labs',
      industryId: '4',
      locationIds: [cityId('Tel Aviv')],
      domain: 'hiddenlabs.io',
      jobCount: 1,
    },
    {
      name: 'Café München',
      slug: 'café-münchen',
      industryId: '34',
      locationIds: [cityId('Munich')],
      domain: 'cafe-muenchen.de',
    },
  ];
}

const TECH_INDUSTRIES = INDUSTRIES.filter(
  (industry) => industry.sector === 'tech' || industry.sector === 'security',
);
const weightedIndustry = (ctx: GenerationContext, pool: readonly IndustrySeed[]) =>
  ctx.rng.weighted(
    pool,
    pool.map((industry) => industry.weight),
  );

function generatedCompanySpec(ctx: GenerationContext, index: number): CompanySpec {
  const { rng } = ctx;
  const industry = weightedIndustry(ctx, index < TECH_QUOTA ? TECH_INDUSTRIES : INDUSTRIES);
  const sector = SECTORS[industry.sector];
  const name = issue(ctx, 'company-name', (attempt) => {
    const base = `${rng.pick(COMPANY_NAME_STEMS)} ${rng.pick(sector.nameWords)}`;
    // A few thousand two-word names exist; large datasets go on with a city, then a number.
    if (attempt < PLAIN_NAME_ATTEMPTS) return base;
    return attempt < 2 * PLAIN_NAME_ATTEMPTS ? `${base} ${rng.pick(LOCATIONS).city}` : `${base} ${attempt}`;
  });
  const headquarters = rng.pick(LOCATIONS).id;
  const branches = rng.sample(
    LOCATIONS.filter((location) => location.id !== headquarters),
    rng.weighted([0, 1, 2, 3], [5, 3, 2, 1]),
  );
  return {
    name,
    industryId: industry.id,
    locationIds: [headquarters, ...branches.map((location) => location.id)],
  };
}

/** "northwind-analytics.com", "foundation.helixgroup.com": a subdomain has its own host, no www. */
function websiteOf(domain: string): string {
  const registrableLabels = /\.(co|com|org)\.[a-z]{2}$/.test(domain) ? 3 : 2;
  const host = domain.split('.').length > registrableLabels ? domain : `www.${domain}`;
  return `https://${host}/`;
}

function domainFor(ctx: GenerationContext, slug: string, country: string): string {
  const tld =
    { Germany: '.de', France: '.fr', 'United Kingdom': '.co.uk', Netherlands: '.nl' }[country] ?? '.com';
  return issue(
    ctx,
    'domain',
    (attempt) => `${slug.replace(/-/g, '')}${attempt ? attempt + 1 : ''}${ctx.rng.chance(0.2) ? '.io' : tld}`,
  );
}

const logoUrl = (ctx: GenerationContext) =>
  `https://media.licdn.com/dms/image/v2/D4E0BAQ${ctx.rng.chars(ALPHANUMERIC, 12)}/company-logo_200_200/company-logo_200_200/0/${
    1_600_000_000_000 + ctx.rng.int(0, 99_999_999_999)
  }`;

function makeProducts(
  ctx: GenerationContext,
  companyName: string,
  sector: SectorSeed,
  count: number,
): Product[] {
  const stem = companyName.split(' ')[0] ?? companyName;
  return ctx.rng.sample(sector.products, count).map((product) => ({
    name: `${stem} ${product.name}`,
    category: product.category,
    description: ctx.rng.chance(0.8)
      ? `${stem} ${product.name} helps ${ctx.rng.pick(sector.customers)} with ${ctx.rng.pick(sector.offers)}.`
      : null,
  }));
}

/** The core specialty (the sector's first) always, plus a few more. */
function specialtiesFor(ctx: GenerationContext, sector: SectorSeed): string[] {
  const [core, ...rest] = sector.specialties;
  return [...(core ? [core] : []), ...ctx.rng.sample(rest, ctx.rng.int(2, 4))];
}

/** The spec's value when it pins one (null included), otherwise a draw. */
const pinned = <T>(value: T | undefined, draw: () => T): T => (value !== undefined ? value : draw());

function sizeFor(ctx: GenerationContext, code: CompanySizeCode | undefined) {
  const planted = COMPANY_SIZES.find((size) => size.code === code);
  return (
    planted ??
    ctx.rng.weighted(
      COMPANY_SIZES,
      COMPANY_SIZES.map((size) => size.weight),
    )
  );
}

function sectorOf(industries: ReadonlyMap<string, IndustryRecord>, industryId: string) {
  const industry = industries.get(industryId);
  const seed = INDUSTRIES.find((candidate) => candidate.id === industryId);
  if (!industry || !seed) throw new Error(`The dataset has no industry ${industryId}`);
  return { industry, sector: SECTORS[seed.sector] };
}

function makeCompany(
  ctx: GenerationContext,
  spec: CompanySpec,
  industries: ReadonlyMap<string, IndustryRecord>,
): CompanyPlan {
  const { rng } = ctx;
  const { industry, sector } = sectorOf(industries, spec.industryId);
  const slug = reserve(ctx, 'company-slug', spec.slug ?? asciiSlug(spec.name));
  const headquarters = locationById(ctx, spec.locationIds[0] ?? '');
  const size = sizeFor(ctx, spec.sizeCode);
  const domain = pinned(spec.domain, () =>
    rng.chance(0.92) ? domainFor(ctx, slug, headquarters.country) : null,
  );
  const record: CompanyRecord = {
    internalId: nextInternalId(ctx, 'company'),
    publicId: spec.publicId
      ? reserve(ctx, 'company-id', spec.publicId)
      : issue(ctx, 'company-id', () => String(rng.int(10_000, 99_999_999))),
    slug,
    name: spec.name,
    networkUrl: `https://www.linkedin.com/company/${slug}/`,
    description: `${industry.name} · ${headquarters.name}`,
    summary: pinned(spec.summary, () =>
      rng.chance(0.85)
        ? `${spec.name} provides ${rng.pick(sector.offers)} for ${rng.pick(sector.customers)}.`
        : null,
    ),
    logoUrl: rng.chance(0.8) ? logoUrl(ctx) : null,
    website: domain ? websiteOf(domain) : null,
    domain,
    industryId: industry.id,
    headquartersId: headquarters.id,
    locationIds: [...spec.locationIds],
    sizeCode: size.code,
    foundedYear: pinned(spec.foundedYear, () => (rng.chance(0.9) ? rng.int(1950, 2023) : null)),
    specialties: specialtiesFor(ctx, sector),
    // Bigger companies draw bigger audiences: about half a decade of followers per size step.
    followerCount:
      spec.followerCount ?? Math.round(10 ** (1.8 + COMPANY_SIZES.indexOf(size) * 0.45 + rng.next() * 1.1)),
    hasJobs: false,
    products: makeProducts(
      ctx,
      spec.name,
      sector,
      spec.productCount ?? rng.int(0, Math.min(2, sector.products.length)),
    ),
  };
  return {
    record,
    sector,
    jobCount: spec.jobCount ?? (rng.chance(0.45) ? rng.int(1, 5) : 0),
    postCount: spec.postCount ?? (rng.chance(0.4) ? rng.int(1, 5) : 0),
  };
}

export function buildCompanies(
  ctx: GenerationContext,
  industries: ReadonlyMap<string, IndustryRecord>,
  count: number,
): CompanyPlan[] {
  const planted = plantedCompanies();
  const specs = [
    ...planted,
    ...Array.from({ length: count - planted.length }, (_, index) => generatedCompanySpec(ctx, index)),
  ];
  return specs.map((spec) => makeCompany(ctx, spec, industries));
}

function makeJob(ctx: GenerationContext, plan: CompanyPlan, jobId: string): JobRecord {
  const { rng } = ctx;
  const company = plan.record;
  const jobFunction = FUNCTIONS[rng.pick(plan.sector.functions)];
  const title = rng.pick(jobFunction.titles);
  const location = locationById(ctx, rng.pick(company.locationIds)).name;
  const skills = rng.sample(jobFunction.skills, 3).join(', ');
  return {
    internalId: nextInternalId(ctx, 'job'),
    jobId,
    url: `https://www.linkedin.com/jobs/view/${jobId}/`,
    title,
    companyName: company.name,
    companySlug: company.slug,
    location,
    postedAt: iso(NOW - rng.int(1, 40) * DAY - rng.int(0, 23) * HOUR),
    employmentType: rng.pick(EMPLOYMENT_TYPES),
    description: `${company.name} is looking for a ${title} to join the team in ${location}. You will work with ${skills}.`,
    seniority: rng.pick(SENIORITIES),
    applicantCount: rng.chance(0.8) ? rng.int(0, 450) : null,
  };
}

/** Jobs of every company that plans some; marks those companies as hiring. */
export function buildJobs(ctx: GenerationContext, plans: readonly CompanyPlan[]): JobRecord[] {
  const jobs: JobRecord[] = [];
  for (const plan of plans) {
    const planted = PLANTED_JOB_IDS[plan.record.slug] ?? [];
    for (let i = 0; i < plan.jobCount; i++) {
      const plantedId = planted[i];
      const jobId = plantedId
        ? reserve(ctx, 'job', plantedId)
        : issue(ctx, 'job', () => `4${ctx.rng.chars(DIGITS, 9)}`);
      jobs.push(makeJob(ctx, plan, jobId));
    }
    plan.record.hasJobs = plan.jobCount > 0;
  }
  return jobs;
}
