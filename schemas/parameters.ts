/**
 * Query parameters shared by the data lookups: identifiers of the source network (usernames,
 * public ids, slugs and their URLs), keyword and paging parameters. Every rule of the spec's input
 * sections is here once; catalog entries compose them.
 */
import { z } from 'zod';

const NETWORK_HOST = /^(?:www\.|[a-z]{2}\.)?linkedin\.com$/;

/** Custom issues carry the spec's detail code in params (read by the validator). */
const invalid = (ctx: z.RefinementCtx, message: string, detailCode = 'invalid_format') => {
  ctx.addIssue({ code: 'custom', message, params: { detailCode } });
  return z.NEVER;
};

const USERNAME = /^[\p{L}\p{N}][\p{L}\p{N}_-]{1,99}$/u;

export const usernameParam = z
  .string()
  .max(100)
  .regex(USERNAME, 'username must be 2 to 100 letters, digits, hyphens or underscores');

/** Reads `/<segment>/<value>` from a URL of the source network; strict about host and shape. */
function networkPathValue(raw: string, segment: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.port || !NETWORK_HOST.test(url.hostname)) return null;
  const match = new RegExp(`^/${segment}/([^/]+)/?$`).exec(url.pathname);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

const networkUrl = (segment: string, shape: string, valueSchema: z.ZodType<string>) =>
  z
    .string()
    .min(1)
    .max(2048)
    .transform((raw, ctx) => {
      const value = networkPathValue(raw, segment);
      if (value === null || !valueSchema.safeParse(value).success) {
        return invalid(ctx, `url must be a profile or company URL of the form ${shape}`);
      }
      return value;
    });

/** A profile URL, reduced to its username. */
export const profileUrlParam = networkUrl('in', 'https://www.linkedin.com/in/<username>', usernameParam);

export const PROFILE_PUBLIC_ID = /^ACoA[A-Za-z0-9_-]{20,60}$/;
export const profilePublicIdParam = z
  .string()
  .regex(PROFILE_PUBLIC_ID, 'publicId must be a profile publicId');

export const COMPANY_PUBLIC_ID = /^\d{1,12}$/;
export const companyPublicIdParam = z
  .string()
  .regex(COMPANY_PUBLIC_ID, 'publicId must be a company publicId (digits)');

/** Company slugs lookup accepts; each refusal says which character rule it broke. */
export const companySlugParam = z
  .string()
  .min(1)
  .max(100)
  .transform((slug, ctx) => {
    if (slug.startsWith('_')) return invalid(ctx, 'slug must not start with an underscore');
    if (slug.includes('.')) return invalid(ctx, 'slug must not contain periods');
    if (slug.includes('&')) return invalid(ctx, 'slug must not contain ampersands');
    if (/[^\p{ASCII}]/u.test(slug)) return invalid(ctx, 'slug must not contain non-English letters');
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(slug)) {
      return invalid(ctx, 'slug may contain only English letters, digits, hyphens and underscores');
    }
    return slug.toLowerCase();
  });

export const companyUrlParam = networkUrl(
  'company',
  'https://www.linkedin.com/company/<slug>',
  companySlugParam,
);

/** A post slug: the full slug, which ends in `activity-<19 digits>-<4 characters>`. */
export const POST_SLUG = /^[\p{L}\p{N}_-]+-activity-\d{19}-[A-Za-z0-9_-]{4}$/u;
export const postSlugParam = z
  .string()
  .max(300)
  .regex(
    POST_SLUG,
    'slug must be the full post slug (…-activity-<19 digits>-<4 characters>), not a numeric id',
  );
export const postUrlParam = networkUrl('posts', 'https://www.linkedin.com/posts/<slug>', postSlugParam);

export const jobUrlParam = networkUrl(
  'jobs/view',
  'https://www.linkedin.com/jobs/view/<job id>',
  z.string().regex(/^\d{6,12}$/),
);

export const keywordsParam = z.string().min(1).max(120, 'keywords must be at most 120 characters');
export const queryParam = z.string().min(1).max(120, 'query must be at most 120 characters');

export const hashtagParam = z
  .string()
  .max(101)
  .transform((raw, ctx) => {
    const tag = raw.startsWith('#') ? raw.slice(1) : raw;
    if (!/^[\p{L}\p{N}_]{1,100}$/u.test(tag))
      return invalid(ctx, 'hashtag must be 1 to 100 letters, digits or underscores');
    return tag.toLowerCase();
  });

/**
 * How a parameter is typed as a JSON tool argument where that differs from its query-string form:
 * the MCP tool schemas read it, the REST documentation does not.
 */
export const toolArgumentTypes = z.registry<
  { type: 'integer'; minimum: number; maximum: number },
  z.core.$ZodType
>();

/** A whole number in a range: digits in a query string, a JSON number in tool arguments. */
export const integerParam = (name: string, min: number, max: number) => {
  const param = z.preprocess(
    (value) => (typeof value === 'number' ? String(value) : value),
    z
      .string()
      .regex(/^\d{1,15}$/, `${name} must be a whole number`)
      .transform(Number)
      .pipe(
        z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`),
      ),
  );
  toolArgumentTypes.add(param, { type: 'integer', minimum: min, maximum: max });
  return param;
};

export const MAX_OFFSET = 10_000;
export const offsetParam = integerParam('offset', 0, MAX_OFFSET);
export const startParam = integerParam('start', 0, MAX_OFFSET);
export const cursorParam = z.string().min(1).max(512);

/** Comma-separated ids copied unchanged from a search; at most `max` unique ones. */
export const idListParam = (name: string, max: number) =>
  z
    .string()
    .min(1)
    .transform((raw, ctx) => {
      const ids = raw.split(',');
      if (ids.some((id) => !/^\d{1,12}$/.test(id))) {
        return invalid(ctx, `${name} must be comma-separated ids (digits) copied from the search results`);
      }
      const unique = [...new Set(ids)];
      if (unique.length > max)
        return invalid(ctx, `${name} takes at most ${max} unique ids`, 'invalid_value');
      return unique;
    });

export const companySizeCodes = ['B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'] as const;
export type CompanySizeCode = (typeof companySizeCodes)[number];

export const companySizeParam = z.string().transform((raw, ctx) => {
  const codes = raw.split(',');
  if (codes.some((code) => !(companySizeCodes as readonly string[]).includes(code))) {
    return invalid(ctx, 'companySize takes comma-separated uppercase codes B to I', 'invalid_value');
  }
  return [...new Set(codes)] as CompanySizeCode[];
});

export const hasJobsParam = z.literal('true', {
  error: 'hasJobs takes only the string true; omit it for no restriction',
});

/** The network's reaction kinds, plus ALL. */
export const reactionTypes = [
  'LIKE',
  'PRAISE',
  'EMPATHY',
  'INTEREST',
  'APPRECIATION',
  'ENTERTAINMENT',
] as const;
export type ReactionType = (typeof reactionTypes)[number];
export const reactionTypeParam = z.enum([...reactionTypes, 'ALL'], {
  error: `reactionType must be one of ${[...reactionTypes, 'ALL'].join(', ')}`,
});
