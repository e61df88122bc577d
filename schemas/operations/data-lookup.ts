/**
 * What every data lookup (profiles, companies, posts, searches, jobs) has in common: its statuses,
 * deadline, settlement, and the identifier variants of its paths.
 */
import * as z from 'zod';
import type { Family, OperationDefinition, OperationVariant, V2Path } from '../operation-definition.js';
import {
  companyPublicIdParam,
  companySlugParam,
  companyUrlParam,
  postSlugParam,
  postUrlParam,
  profilePublicIdParam,
  profileUrlParam,
  usernameParam,
} from '../parameters.js';

export const DATA_LOOKUP_STATUSES = [
  200, 400, 401, 402, 403, 404, 405, 406, 415, 429, 500, 502, 503, 504,
] as const;

type DataLookupInput = Omit<OperationDefinition, 'statuses' | 'runtime' | 'settlement' | 'examples'> &
  Partial<Pick<OperationDefinition, 'runtime' | 'examples'>>;

/**
 * Example identifiers (and paging starts) of each family, naming the records the sample dataset
 * plants for every seed (shared/sources/dataset/fixtures.ts): a lookup's examples are those of its
 * parameters, unless its entry names its own.
 */
const PROFILE_USERNAME = 'amelia-hartmann';
const COMPANY_SLUG = 'northwind-analytics';
const POST_SLUG = 'amelia-hartmann_what-we-learned-scaling-activity-7265401938275610624-Xk3q';
const familyExamples: Partial<Record<Family, Readonly<Record<string, string>>>> = {
  profiles: {
    username: PROFILE_USERNAME,
    url: `https://www.linkedin.com/in/${PROFILE_USERNAME}`,
    publicId: 'ACoAABx7Qm2Lr9TzK4vWp1nHs8dEe3Fg5YcJkU',
    start: '0',
  },
  companies: {
    slug: COMPANY_SLUG,
    url: `https://www.linkedin.com/company/${COMPANY_SLUG}`,
    publicId: '2461837',
    offset: '0',
  },
  posts: { slug: POST_SLUG, url: `https://www.linkedin.com/posts/${POST_SLUG}` },
};

/** The family's examples of the parameters the lookup takes, then its own. */
function examplesOf(definition: DataLookupInput): Readonly<Record<string, string>> {
  const defaults = familyExamples[definition.family] ?? {};
  const taken = Object.keys(definition.query.shape).filter((name) => Object.hasOwn(defaults, name));
  return {
    ...Object.fromEntries(taken.map((name) => [name, defaults[name] as string])),
    ...definition.examples,
  };
}

/**
 * A data lookup. Only a match is billed: a 404 (nothing matched) is refunded, as are failures of
 * ours or the source's, the way the leading data providers bill only for results. An empty page of
 * a list that exists is a result (200) and is billed.
 */
export function dataLookup<const D extends DataLookupInput>(definition: D) {
  return {
    runtime: { timeoutMs: 10_000, memoryMb: 256, needs: [] },
    settlement: { chargedErrors: [] },
    statuses: DATA_LOOKUP_STATUSES,
    ...definition,
    examples: examplesOf(definition),
  } as const;
}

type V2OnlyInput = Omit<DataLookupInput, 'variants' | 'paging' | 'price' | 'mcpTool'>;

/**
 * A lookup of the /api/v2 listing that v1 has no operation for: no v1 path (so no REST route, Lambda
 * function or MCP tool), unpaged, 1 credit; schemas/v2-routes.ts gives it its v2 path.
 */
export function v2OnlyLookup<const D extends V2OnlyInput>(definition: D) {
  return dataLookup({
    variants: [],
    paging: 'none',
    price: 1,
    ...definition,
    description: `${definition.description} Served on /api/v2 only.`,
  });
}

const pathNames: Record<string, string> = { username: 'username', url: 'url', publicId: 'id', slug: 'slug' };

/** `/base/by-username`, `/base/by-url`, … one path per identifier. */
export function byIdentifier(base: string, identifiers: readonly string[]): OperationVariant[] {
  return identifiers.map((identifier) => ({ path: `${base}/by-${pathNames[identifier]}`, identifier }));
}

const profileIdentifierParams = {
  username: usernameParam.optional(),
  url: profileUrlParam.optional(),
  publicId: profilePublicIdParam.optional(),
};
const companyIdentifierParams = {
  slug: companySlugParam.optional(),
  url: companyUrlParam.optional(),
  publicId: companyPublicIdParam.optional(),
};
const postIdentifierParams = { url: postUrlParam.optional(), slug: postSlugParam.optional() };

/** The identifier parameters an operation takes, as optional fields (exactly one is checked). */
export function profileIdentifiers<const K extends keyof typeof profileIdentifierParams>(...names: K[]) {
  return pickParams(profileIdentifierParams, names);
}
export function companyIdentifiers<const K extends keyof typeof companyIdentifierParams>(...names: K[]) {
  return pickParams(companyIdentifierParams, names);
}
export function postIdentifiers<const K extends keyof typeof postIdentifierParams>(...names: K[]) {
  return pickParams(postIdentifierParams, names);
}

function pickParams<P extends Record<string, z.ZodType>, K extends keyof P>(
  params: P,
  names: K[],
): Pick<P, K> {
  return Object.fromEntries(names.map((name) => [name, params[name]])) as Pick<P, K>;
}

/**
 * What a list-returning lookup declares: its id, path, the list's name and item, its MCP tool, the
 * v2 listing's routes to it (an extension of v2 without any) and examples beyond its family's.
 */
export interface ListLookupSpec<Id extends string, Name extends string> {
  id: Id;
  path: string;
  list: Name;
  item: z.ZodType;
  summary: string;
  mcpTool: string;
  v2?: readonly V2Path[];
  examples?: Readonly<Record<string, string>>;
}

/** The one-item list of an operation's data, e.g. `{ positions: [...] }`. */
export function listOf<const N extends string, T extends z.ZodType>(name: N, item: T) {
  return z.object({ [name]: z.array(item) } as { [K in N]: z.ZodArray<T> });
}

export const PAGE_SIZE = 10;
export const pageSizeHint = `The page size is fixed at ${PAGE_SIZE}; do not send count or limit.`;
