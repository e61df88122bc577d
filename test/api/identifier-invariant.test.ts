/**
 * Every identifier the service hands out works: identifiers are collected from a sample of real
 * responses (searches, similar profiles, company people, posts, comments, reactions, jobs, details)
 * and each is sent to every path of the catalog that takes its kind, found by the parameter schema
 * the path uses (no hand-listed paths). Every such lookup must answer 200.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { catalog } from '../../schemas/catalog.js';
import type { OperationVariant } from '../../schemas/operation-definition.js';
import {
  COMPANY_PUBLIC_ID,
  companyPublicIdParam,
  companySlugParam,
  companyUrlParam,
  jobUrlParam,
  POST_SLUG,
  PROFILE_PUBLIC_ID,
  postSlugParam,
  postUrlParam,
  profilePublicIdParam,
  profileUrlParam,
  usernameParam,
} from '../../schemas/parameters.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { harnessForFile } from '../support/harness.js';

/** Identifier kinds, each named by the parameter schema that reads it. */
const kinds = {
  username: usernameParam,
  profileUrl: profileUrlParam,
  profilePublicId: profilePublicIdParam,
  companySlug: companySlugParam,
  companyUrl: companyUrlParam,
  companyPublicId: companyPublicIdParam,
  postSlug: postSlugParam,
  postUrl: postUrlParam,
  jobUrl: jobUrlParam,
} as const;
type Kind = keyof typeof kinds;
const kindNames = Object.keys(kinds) as Kind[];

/** Values for required parameters besides the identifier; a new one must be added here. */
const companions = new Map([['reactionType', 'ALL']]);

/** Responses to sample: what a client would call first, and the lists that name other records. */
const samples: string[] = [
  '/v1/search/people?keywords=engineer',
  '/v1/search/all?keywords=helix',
  '/v1/search/typeahead?query=helix',
  '/v1/search/posts?keywords=data',
  `/v1/search/posts/by-hashtag?hashtag=${fx.hashtag}`,
  '/v1/jobs/search?keywords=engineer',
  `/v1/companies/search?keywords=${fx.broadCompanyKeyword}`,
  `/v1/companies/search/by-domain?domain=${fx.sharedDomain.domain}`,
  ...fx.unusualSlugs.map((slug) => `/v1/companies/search?keywords=${encodeURIComponent(slug)}`),
  `/v1/companies/people/by-slug?slug=${fx.richCompany.slug}`,
  `/v1/companies/similar/by-slug?slug=${fx.richCompany.slug}`,
  `/v1/companies/posts/by-slug?slug=${fx.richCompany.slug}`,
  `/v1/companies/jobs/by-slug?slug=${fx.richCompany.slug}`,
  `/v1/profiles/details/by-username?username=${fx.manyPositionsProfile.username}`,
  `/v1/profiles/similar?username=${fx.richProfile.username}`,
  `/v1/profiles/posts?username=${fx.richProfile.username}`,
  `/v1/profiles/comments?username=${fx.richProfile.username}`,
  `/v1/profiles/reactions?username=${fx.richProfile.username}`,
  `/v1/profiles/company-interests/by-username?username=${fx.richProfile.username}`,
  `/v1/posts/comments/by-slug?slug=${fx.post.slug}`,
  `/v1/posts/reactions/by-slug?slug=${fx.post.slug}&reactionType=ALL`,
  ...fx.nonEnglishUsernames.map((username) => `/v1/search/people?keywords=${encodeURIComponent(username)}`),
];

/** How many identifiers of each kind are walked per path: the unusual ones first. */
const PER_KIND = 12;

const file = harnessForFile({
  credits: 1_000_000,
  rateLimit: { limit: 1_000_000, windowSeconds: 60 },
});

function urlKind(value: string): Kind | undefined {
  let path: string;
  try {
    path = new URL(value).pathname;
  } catch {
    return undefined;
  }
  if (path.startsWith('/in/')) return 'profileUrl';
  if (path.startsWith('/company/')) return 'companyUrl';
  if (path.startsWith('/posts/')) return 'postUrl';
  if (path.startsWith('/jobs/view/')) return 'jobUrl';
  return undefined;
}

/** The kind of one field of a response record, from its name, its value and its siblings. */
function kindOf(key: string, value: string, record: Record<string, unknown>): Kind | undefined {
  if (/username$/i.test(key)) return 'username';
  if (/companySlug$/i.test(key)) return 'companySlug';
  if (key === 'postSlug') return 'postSlug';
  if (/url$/i.test(key)) return urlKind(value);
  if (/publicId$/i.test(key)) {
    if (PROFILE_PUBLIC_ID.test(value)) return 'profilePublicId';
    return COMPANY_PUBLIC_ID.test(value) ? 'companyPublicId' : undefined;
  }
  if (key === 'slug') {
    const siblingUrl = [record.networkUrl, record.url].find((url) => typeof url === 'string');
    if (typeof siblingUrl === 'string' && new URL(siblingUrl).pathname.startsWith('/school/'))
      return undefined;
    return POST_SLUG.test(value) ? 'postSlug' : 'companySlug';
  }
  // Typeahead items: { type, id, label }.
  if (key === 'id' && record.type === 'person') return 'username';
  if (key === 'id' && record.type === 'company') return 'companySlug';
  return undefined;
}

function collect(value: unknown, found: Map<Kind, Set<string>>): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, found);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(record)) {
    if (typeof field === 'string') {
      const kind = kindOf(key, field, record);
      if (kind) found.get(kind)?.add(field);
    } else {
      collect(field, found);
    }
  }
}

/** Anything beyond lower-case ASCII letters, digits and hyphens (in a URL: its path, still encoded). */
const unusual = (identifier: string) => /[^a-z0-9/-]/.test(identifier.replace(/^https?:\/\/[^/]+/, ''));

/** The parameter schema behind a query field, without its optional wrapper. */
const inner = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodOptional ? inner(schema.unwrap() as z.ZodType) : schema;

interface Lookup {
  path: string;
  parameter: string;
  kind: Kind;
  companions: Record<string, string>;
}

/** Every catalog path that takes an identifier, with the kind its parameter reads. */
function lookups(): Lookup[] {
  return catalog.flatMap((operation) => {
    const shape = operation.query.shape as Record<string, z.ZodType>;
    const kindOfField = (name: string) => {
      const field = shape[name];
      return field ? kindNames.find((kind) => kinds[kind] === inner(field)) : undefined;
    };
    const variants: readonly OperationVariant[] = operation.variants;
    return variants.flatMap((variant): Lookup[] => {
      const identifiers = variant.identifier
        ? [variant.identifier]
        : Object.keys(shape).filter((name) => kindOfField(name) !== undefined);
      return identifiers.flatMap((parameter) => {
        const kind = kindOfField(parameter);
        if (!kind) return [];
        const required = Object.keys(shape).filter(
          (name) => !(operation.identifiers as readonly string[]).includes(name) && name !== parameter,
        );
        const values: Record<string, string> = {};
        for (const name of required) {
          if ((shape[name] as z.ZodType) instanceof z.ZodOptional) continue;
          const value = companions.get(name);
          if (value === undefined)
            throw new Error(`${variant.path} requires ${name}: add a value to companions`);
          values[name] = value;
        }
        return [{ path: variant.path, parameter, kind, companions: values }];
      });
    });
  });
}

describe('every identifier the service hands out works in every lookup of its kind', () => {
  it('answers 200 for each', async () => {
    const found = new Map(kindNames.map((kind) => [kind, new Set<string>()]));
    for (const sample of samples) {
      const response = await file.harness.get(sample, file.apiKey);
      expect(response.status, sample).toBe(200);
      collect(await response.json(), found);
    }
    const paths = lookups();
    // Each kind is taken by some path (a kind no path is recognized for would pass vacuously).
    expect(new Set(paths.map((lookup) => lookup.kind))).toEqual(new Set(kindNames));
    // Every kind a path takes was handed out by some response (else the sample needs widening).
    for (const kind of new Set(paths.map((lookup) => lookup.kind))) {
      expect(found.get(kind)?.size, `no ${kind} in the sampled responses`).toBeGreaterThan(0);
    }

    const failures: string[] = [];
    let tried = 0;
    for (const lookup of paths) {
      const all = [...(found.get(lookup.kind) ?? [])];
      const walked = [...all.filter(unusual), ...all.filter((identifier) => !unusual(identifier))].slice(
        0,
        PER_KIND,
      );
      for (const identifier of walked) {
        const query = new URLSearchParams({ ...lookup.companions, [lookup.parameter]: identifier });
        const response = await file.harness.get(`${lookup.path}?${query}`, file.apiKey);
        tried += 1;
        if (response.status !== 200)
          failures.push(`${response.status} ${lookup.path} ${lookup.parameter}=${identifier}`);
      }
    }
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThan(paths.length);
  }, 180_000);

  it('walks the unusual identifiers the dataset plants', async () => {
    const found = new Map(kindNames.map((kind) => [kind, new Set<string>()]));
    for (const sample of samples) collect(await (await file.harness.get(sample, file.apiKey)).json(), found);
    for (const slug of fx.unusualSlugs) expect(found.get('companySlug')?.has(slug), slug).toBe(true);
    for (const username of fx.nonEnglishUsernames) {
      expect(found.get('username')?.has(username), username).toBe(true);
    }
  });
});
