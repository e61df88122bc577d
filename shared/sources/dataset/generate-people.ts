/**
 * People: careers at the dataset's companies (and a few outside it), education at its schools,
 * skills, certifications, courses, volunteering, followed companies and contact details. Planted
 * people carry the properties the fixtures promise (a rich profile, withheld and empty sections,
 * long careers, usernames in several scripts, a current/past company pair that narrows people search);
 * generated people fill the rest from the vocabulary. One builder serves both.
 */
import type {
  Certification,
  Contact,
  Course,
  Education,
  Position,
  Skill,
  VolunteerExperience,
} from '../../../schemas/records.js';
import {
  asciiSlug,
  cityId,
  DIGITS,
  fill,
  type GenerationContext,
  issue,
  locationById,
  NOW_MONTH,
  nextInternalId,
  reserve,
  yearMonth,
} from './context.js';
import { datasetFixtures as fx } from './fixtures.js';
import type { CompanyPlan } from './generate-companies.js';
import { profileExtras } from './generate-extras.js';
import { type PersonRecord, type ProfileSection, profileSections, type SchoolRecord } from './model.js';
import { at } from './random.js';
import {
  COURSES,
  CULTURES,
  DEGREE_LEVELS,
  FUNCTION_KEYS,
  FUNCTIONS,
  type FunctionKey,
  GENERAL_CERTIFICATIONS,
  GENERAL_SKILLS,
  OUTSIDE_EMPLOYERS,
  PHONE_PATTERNS,
  POSITION_DESCRIPTIONS,
  VOLUNTEERING,
} from './vocabulary.js';

/** The alphabet of profile publicIds after their "ACoA" prefix. */
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

export interface PersonSpec {
  fullName: string;
  username?: string;
  publicId?: string;
  locationId: string;
  jobFunction: FunctionKey;
  /** Company slugs, newest first; null is an employer outside the dataset. */
  employers: (string | null)[];
  /** Whether the newest position is current (default true). */
  employed?: boolean;
  /** 'rich' fills every section; 'bare' leaves all but experience empty and the person silent. */
  profile?: 'rich' | 'bare';
  skillCount?: number;
  interestCount?: number;
  withheld?: ProfileSection[];
  postCount?: number;
  commentCount?: number;
  reactionCount?: number;
}

/** A built person and the activity the later stages give them. */
export interface PersonPlan {
  record: PersonRecord;
  spec: PersonSpec;
  postCount: number;
  commentCount: number;
  reactionCount: number;
}

interface Employer {
  name: string;
  slug: string | null;
  publicId: string | null;
  location: string | null;
}

const engineer = (fullName: string, city: string, employers: (string | null)[]): PersonSpec => ({
  fullName,
  locationId: cityId(city),
  jobFunction: 'engineering',
  employers,
});

/** Hand-written people the fixtures point at. */
function plantedPeople(): PersonSpec[] {
  const { richCompany: northwind } = fx;
  return [
    {
      fullName: fx.richProfile.fullName,
      username: fx.richProfile.username,
      publicId: fx.richProfile.publicId,
      locationId: cityId('London'),
      jobFunction: 'data',
      employers: [northwind.slug, 'helix-software', null],
      profile: 'rich',
      skillCount: 32,
      interestCount: 30,
      postCount: 30,
      commentCount: 30,
      // Its reactions are planted by the activity stage (the empty page needs exact positions).
      reactionCount: 0,
    },
    {
      fullName: 'Daniel Okafor',
      username: fx.withheldProfile.username,
      publicId: fx.withheldProfile.publicId,
      locationId: cityId('Lagos'),
      jobFunction: 'engineering',
      employers: ['helix-payments', null],
      skillCount: 12,
      interestCount: 6,
      withheld: [...fx.withheldProfile.withheld],
    },
    {
      fullName: 'Wei Zhang',
      username: fx.emptyProfile.username,
      publicId: fx.emptyProfile.publicId,
      locationId: cityId('Singapore'),
      jobFunction: 'engineering',
      employers: ['helix-labs'],
      profile: 'bare',
    },
    {
      fullName: 'Rafael Souza',
      username: fx.manyPositionsProfile.username,
      publicId: fx.manyPositionsProfile.publicId,
      locationId: cityId('São Paulo'),
      jobFunction: 'product',
      employers: [
        northwind.slug,
        'helix-payments',
        'helix-digital',
        'acme.co',
        'smith&sons',
        null,
        'helix-logistics',
        'helix-software',
      ],
    },
    {
      fullName: 'José García',
      username: 'josé-garcía',
      locationId: cityId('Madrid'),
      jobFunction: 'sales',
      employers: ['helix-payments', null],
    },
    {
      fullName: 'Zoë Müller',
      username: 'zoë-müller',
      locationId: cityId('Berlin'),
      jobFunction: 'design',
      employers: [northwind.slug, 'café-münchen'],
    },
    {
      fullName: 'Мария Иванова',
      username: 'мария-иванова',
      locationId: cityId('Sofia'),
      jobFunction: 'marketing',
      employers: ['helix-digital'],
    },
    // Usernames in scripts that need combining marks even in NFC (Devanagari, Thai), right-to-left
    // (Arabic) and without word separators (CJK): each is looked up by username and by URL.
    {
      fullName: 'प्रिया शर्मा',
      username: 'प्रिया-शर्मा',
      locationId: cityId('Mumbai'),
      jobFunction: 'data',
      employers: ['helix-software', null],
    },
    {
      fullName: 'محمد الفارسي',
      username: 'محمد-الفارسي',
      locationId: cityId('Dubai'),
      jobFunction: 'finance',
      employers: ['helix-capital'],
    },
    {
      fullName: '王芳',
      username: '王芳',
      locationId: cityId('Shanghai'),
      jobFunction: 'product',
      employers: ['helix-digital', null],
    },
    {
      fullName: 'สมชาย ใจดี',
      username: 'สมชาย-ใจดี',
      locationId: cityId('Singapore'),
      jobFunction: 'operations',
      employers: ['helix-logistics'],
    },
    // Engineers around the currentCompany/pastCompany pair: both, current only, past only.
    engineer('Marcus Lindgren', 'Stockholm', [northwind.slug, 'helix-payments']),
    engineer('Aisha Bello', 'Lagos', [northwind.slug, 'helix-payments', null]),
    engineer('Tom Becker', 'Berlin', [northwind.slug, 'helix-digital']),
    engineer('Sara Lindholm', 'London', [northwind.slug, null]),
    engineer('Kenji Watanabe', 'Tokyo', ['helix-software', 'helix-payments']),
    engineer('Nadia Haddad', 'Dubai', ['helix-labs', 'helix-payments']),
  ];
}

function generatedPersonSpec(ctx: GenerationContext, companies: readonly CompanyPlan[]): PersonSpec {
  const { rng } = ctx;
  const culture = rng.weighted(
    CULTURES,
    CULTURES.map((candidate) => candidate.weight),
  );
  const picked = rng.sample(companies, rng.weighted([1, 2, 3, 4, 5], [25, 30, 25, 12, 8]));
  const employers = picked.map((plan) => (rng.chance(0.1) ? null : plan.record.slug));
  const newest = picked[0];
  return {
    fullName: `${rng.pick(culture.firstNames)} ${rng.pick(culture.lastNames)}`,
    locationId: rng.pick(culture.locationIds),
    jobFunction:
      newest && employers[0] !== null ? rng.pick(newest.sector.functions) : rng.pick(FUNCTION_KEYS),
    employers,
    employed: rng.chance(0.9),
  };
}

/** A count drawn from tiers: none, a typical range, or a long list (> 25, to page past two pages). */
function tieredCount(
  ctx: GenerationContext,
  weights: [none: number, some: number, many: number],
  some: [number, number],
  many: [number, number],
) {
  const tier = ctx.rng.weighted(['none', 'some', 'many'] as const, weights);
  if (tier === 'none') return 0;
  const [min, max] = tier === 'some' ? some : many;
  return ctx.rng.int(min, max);
}

function employerOf(
  ctx: GenerationContext,
  companies: ReadonlyMap<string, CompanyPlan>,
  slug: string | null,
  home: string,
): Employer {
  if (slug === null)
    return { name: ctx.rng.pick(OUTSIDE_EMPLOYERS), slug: null, publicId: null, location: home };
  const company = companies.get(slug)?.record;
  if (!company) throw new Error(`The dataset plants a position at unknown company ${slug}`);
  return {
    name: company.name,
    slug: company.slug,
    publicId: company.publicId,
    location: locationById(ctx, company.headquartersId).name,
  };
}

/** Month spans newest first, walking back in time from now (or from when the person left). */
function careerSpans(ctx: GenerationContext, count: number, employed: boolean) {
  const { rng } = ctx;
  let end: number | null = employed ? null : NOW_MONTH - rng.int(1, 6);
  return Array.from({ length: count }, (_, i) => {
    const start = (end ?? NOW_MONTH) - rng.int(i === 0 ? 4 : 10, 54);
    const span = { start, end };
    end = start - rng.int(0, 3);
    return span;
  });
}

/** Title levels newest first: people climb their function's ladder over time. */
function careerLevels(ctx: GenerationContext, count: number, top: number): number[] {
  let level = ctx.rng.int(0, 1);
  const oldestFirst = Array.from({ length: count }, () => {
    const current = Math.min(level, top);
    level += ctx.rng.int(0, 1);
    return current;
  });
  return oldestFirst.reverse();
}

function career(
  ctx: GenerationContext,
  jobFunction: FunctionKey,
  employers: Employer[],
  employed: boolean,
): Position[] {
  const { rng } = ctx;
  const { titles, skills } = FUNCTIONS[jobFunction];
  const spans = careerSpans(ctx, employers.length, employed);
  const levels = careerLevels(ctx, employers.length, titles.length - 1);
  return employers.map((employer, i) => {
    const span = at(spans, i);
    return {
      title: at(titles, at(levels, i)),
      companyName: employer.name,
      companySlug: employer.slug,
      companyPublicId: employer.publicId,
      location: employer.location,
      startDate: yearMonth(span.start, i === 0 || rng.chance(0.85)),
      endDate: span.end === null ? null : yearMonth(span.end),
      isCurrent: span.end === null,
      description: rng.chance(0.55)
        ? fill(rng.pick(POSITION_DESCRIPTIONS), { skill: rng.pick(skills), other: rng.pick(skills) })
        : null,
    };
  });
}

/** Degrees newest first, ending when the career starts; the oldest is a first degree. */
function education(
  ctx: GenerationContext,
  jobFunction: FunctionKey,
  schools: readonly SchoolRecord[],
  count: number,
  careerStart: number,
): Education[] {
  const { rng } = ctx;
  let end = careerStart - rng.int(0, 1);
  return Array.from({ length: count }, (_, i) => {
    const level = Math.min(count - 1 - i, DEGREE_LEVELS.length - 1);
    const start = end - (level === 0 ? rng.int(3, 4) : rng.int(1, 4));
    const school = rng.pick(schools);
    const entry: Education = {
      schoolName: school.name,
      schoolSlug: school.slug,
      degree: rng.chance(0.9) ? rng.pick(at(DEGREE_LEVELS, level)) : null,
      fieldOfStudy: rng.chance(0.9) ? rng.pick(FUNCTIONS[jobFunction].fields) : null,
      startYear: rng.chance(0.92) ? start : null,
      endYear: end,
    };
    end = start - rng.int(0, 2);
    return entry;
  });
}

/** Function skills first, then general and neighbouring ones; most endorsed first. */
function skillsFor(ctx: GenerationContext, jobFunction: FunctionKey, count: number): Skill[] {
  const { rng } = ctx;
  const neighbours = rng
    .sample(
      FUNCTION_KEYS.filter((key) => key !== jobFunction),
      2,
    )
    .flatMap((key) => FUNCTIONS[key].skills);
  const pool = [
    ...new Set([
      ...rng.shuffle(FUNCTIONS[jobFunction].skills),
      ...rng.shuffle([...GENERAL_SKILLS, ...neighbours]),
    ]),
  ];
  return pool
    .slice(0, count)
    .map((name, i) => ({
      name,
      endorsementCount: rng.chance(0.15) ? 0 : rng.int(0, Math.max(1, 99 - i * 4)),
    }))
    .sort((a, b) => b.endorsementCount - a.endorsementCount);
}

function certificationsFor(ctx: GenerationContext, jobFunction: FunctionKey, count: number): Certification[] {
  const { rng } = ctx;
  return rng
    .sample([...FUNCTIONS[jobFunction].certifications, ...GENERAL_CERTIFICATIONS], count)
    .map((certification) => ({
      ...certification,
      issuedOn: rng.chance(0.9) ? yearMonth(NOW_MONTH - rng.int(1, 120)) : null,
    }));
}

const coursesFor = (ctx: GenerationContext, count: number): Course[] =>
  ctx.rng.sample(COURSES, count).map((course) => ({ ...course }));

function volunteeringFor(ctx: GenerationContext, count: number): VolunteerExperience[] {
  const { rng } = ctx;
  return Array.from({ length: count }, () => {
    const start = NOW_MONTH - rng.int(12, 150);
    return {
      role: rng.pick(VOLUNTEERING.roles),
      organization: rng.pick(VOLUNTEERING.organizations),
      cause: rng.pick(VOLUNTEERING.causes),
      startDate: yearMonth(start),
      endDate: rng.chance(0.5) ? null : yearMonth(start + rng.int(3, 11)),
    };
  });
}

function contactFor(ctx: GenerationContext, fullName: string, country: string, rich: boolean): Contact {
  const { rng } = ctx;
  const handle = asciiSlug(fullName);
  const phonePattern = PHONE_PATTERNS[country] ?? '+1 202 555 01##';
  return {
    emails: rich || rng.chance(0.6) ? [`${handle.replace(/-/g, '.')}@example.com`] : [],
    phoneNumbers: rich || rng.chance(0.3) ? [phonePattern.replace(/#/g, () => rng.chars(DIGITS, 1))] : [],
    websites: rich || rng.chance(0.2) ? [`https://${handle}.example.com/`] : [],
    twitterHandles: rich || rng.chance(0.25) ? [handle.replace(/-/g, '_')] : [],
  };
}

/** A fresh value each time: records never share arrays. */
const emptyContact = (): Contact => ({ emails: [], phoneNumbers: [], websites: [], twitterHandles: [] });

function usernameFor(ctx: GenerationContext, spec: PersonSpec): string {
  if (spec.username) return reserve(ctx, 'username', spec.username.normalize('NFC'));
  const base = asciiSlug(spec.fullName);
  const suffixed = ctx.rng.chance(0.2);
  return issue(ctx, 'username', (attempt) =>
    attempt === 0 && !suffixed ? base : `${base}-${ctx.rng.chars('0123456789abcdef', 7)}`,
  );
}

/** "<title> at <company>"; planted people always have one, a few generated ones none. */
function headlineFor(ctx: GenerationContext, positions: readonly Position[], always: boolean): string | null {
  const newest = positions[0];
  if (!newest || (!always && ctx.rng.chance(0.04))) return null;
  return newest.isCurrent
    ? `${newest.title} at ${newest.companyName}`
    : `${newest.title} | Open to new opportunities`;
}

function summaryFor(
  ctx: GenerationContext,
  positions: readonly Position[],
  careerStart: number,
  skills: readonly Skill[],
  city: string,
): string | null {
  const title = positions[0]?.title;
  if (!title || ctx.rng.chance(0.3)) return null;
  const strengths = skills.slice(0, 3).map((skill) => skill.name);
  const focus = strengths.length > 0 ? ` in ${strengths.join(', ')}` : '';
  return `${title} with ${Math.max(1, Math.floor(NOW_MONTH / 12) - careerStart)}+ years of experience${focus}. Based in ${city}.`;
}

/** Sections withheld at random: a few people hide one section. */
function withheldFor(ctx: GenerationContext): ProfileSection[] {
  return ctx.rng.chance(0.05)
    ? [ctx.rng.pick(profileSections.filter((section) => section !== 'experience'))]
    : [];
}

/** What every person is drawn from; built once and shared by every batch of people. */
export interface PersonInputs {
  companyPlans: readonly CompanyPlan[];
  companies: ReadonlyMap<string, CompanyPlan>;
  companyIds: readonly string[];
  schools: readonly SchoolRecord[];
}

export function personInputs(
  companies: readonly CompanyPlan[],
  schools: readonly SchoolRecord[],
): PersonInputs {
  return {
    companyPlans: companies,
    companies: new Map(companies.map((plan) => [plan.record.slug, plan])),
    companyIds: companies.map((plan) => plan.record.publicId),
    schools,
  };
}

type SectionLists = Pick<
  PersonRecord,
  'education' | 'skills' | 'certifications' | 'courses' | 'volunteerExperience' | 'interests'
>;

/** How many items a list gets: none on a bare profile, the fixed size when set, else a draw. */
const sized = (spec: PersonSpec, fixed: number | undefined, drawn: () => number) =>
  spec.profile === 'bare' ? 0 : (fixed ?? drawn());

/** Sizes every section of a rich profile gets unless its spec says otherwise. */
const RICH_SIZES = { education: 2, certifications: 3, courses: 3, volunteerExperience: 2 };

function sectionListsFor(
  ctx: GenerationContext,
  spec: PersonSpec,
  inputs: PersonInputs,
  careerStart: number,
): SectionLists {
  const { rng } = ctx;
  const rich = spec.profile === 'rich' ? RICH_SIZES : undefined;
  const skillCount = sized(spec, spec.skillCount, () => tieredCount(ctx, [8, 86, 6], [3, 15], [26, 35]));
  const interestCount = sized(spec, spec.interestCount, () =>
    tieredCount(ctx, [20, 75, 5], [1, 12], [26, 34]),
  );
  const educationCount = sized(spec, rich?.education, () => rng.weighted([0, 1, 2, 3], [10, 50, 35, 5]));
  return {
    education: education(ctx, spec.jobFunction, inputs.schools, educationCount, careerStart),
    skills: skillsFor(ctx, spec.jobFunction, skillCount),
    certifications: certificationsFor(
      ctx,
      spec.jobFunction,
      sized(spec, rich?.certifications, () => rng.weighted([0, 1, 2], [55, 30, 15])),
    ),
    courses: coursesFor(
      ctx,
      sized(spec, rich?.courses, () => rng.weighted([0, 1, 2, 3], [60, 20, 12, 8])),
    ),
    volunteerExperience: volunteeringFor(
      ctx,
      sized(spec, rich?.volunteerExperience, () => rng.weighted([0, 1, 2], [70, 22, 8])),
    ),
    interests: rng.sample(inputs.companyIds, interestCount),
  };
}

function activityFor(ctx: GenerationContext, spec: PersonSpec) {
  return {
    postCount: sized(spec, spec.postCount, () => tieredCount(ctx, [40, 52, 8], [1, 6], [26, 30])),
    commentCount: sized(spec, spec.commentCount, () => tieredCount(ctx, [40, 52, 8], [1, 8], [26, 30])),
    reactionCount: sized(spec, spec.reactionCount, () => (ctx.rng.chance(0.25) ? 0 : ctx.rng.int(1, 15))),
  };
}

function makePerson(
  ctx: GenerationContext,
  spec: PersonSpec,
  inputs: PersonInputs,
  planted: boolean,
): PersonPlan {
  const { rng } = ctx;
  const internalId = nextInternalId(ctx, 'person');
  const username = usernameFor(ctx, spec);
  const location = locationById(ctx, spec.locationId);
  const employers = spec.employers.map((slug) => employerOf(ctx, inputs.companies, slug, location.name));
  const positions = career(ctx, spec.jobFunction, employers, spec.employed ?? true);
  const careerStart = positions.at(-1)?.startDate?.year ?? Math.floor(NOW_MONTH / 12) - 3;
  const lists = sectionListsFor(ctx, spec, inputs, careerStart);
  const record: PersonRecord = {
    internalId,
    publicId: spec.publicId
      ? reserve(ctx, 'profile-id', spec.publicId)
      : issue(ctx, 'profile-id', () => `ACoAA${rng.chars(BASE64URL, 34)}`),
    username,
    fullName: spec.fullName,
    networkUrl: `https://www.linkedin.com/in/${encodeURIComponent(username)}/`,
    headline: headlineFor(ctx, positions, planted),
    location: location.name,
    summary:
      spec.profile === 'bare' ? null : summaryFor(ctx, positions, careerStart, lists.skills, location.city),
    followerCount: Math.round(10 ** (1.5 + rng.next() * 3)),
    positions,
    ...lists,
    contact:
      spec.profile === 'bare'
        ? emptyContact()
        : contactFor(ctx, spec.fullName, location.country, spec.profile === 'rich'),
    withheld: spec.withheld ?? (planted ? [] : withheldFor(ctx)),
    ...profileExtras(ctx.seed, internalId, {
      profile: spec.profile,
      country: location.country,
      positions,
    }),
  };
  return { record, spec, ...activityFor(ctx, spec) };
}

/** How many people are planted; every dataset has at least these. */
export const PLANTED_PEOPLE = plantedPeople().length;

/**
 * A batch of `count` people, the planted ones first when `withPlanted` (the first batch): every spec
 * is drawn before the first person is made, as the sample always was.
 */
export function buildPeople(
  ctx: GenerationContext,
  inputs: PersonInputs,
  count: number,
  withPlanted: boolean,
): PersonPlan[] {
  const planted = withPlanted ? plantedPeople() : [];
  const specs = [
    ...planted,
    ...Array.from({ length: count - planted.length }, () => generatedPersonSpec(ctx, inputs.companyPlans)),
  ];
  return specs.map((spec, index) => makePerson(ctx, spec, inputs, index < planted.length));
}
