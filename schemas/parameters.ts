/**
 * Query parameters shared by the data lookups: identifiers of the source network (usernames,
 * public ids, slugs and their URLs), keyword and paging parameters. Every rule of the spec's input
 * sections is here once; catalog entries compose them.
 */
import * as z from 'zod';
import { MAX_OFFSET } from './envelope.js';

const NETWORK_HOST = /^(?:www\.|[a-z]{2}\.)?linkedin\.com$/;

/** Custom issues carry the spec's detail code in params (read by the validator). */
const invalid = (ctx: z.RefinementCtx, message: string, detailCode = 'invalid_format') => {
  ctx.addIssue({ code: 'custom', message, params: { detailCode } });
  return z.NEVER;
};

/**
 * Identifiers are compared in NFC: a client may send `josé` composed or decomposed (macOS file names
 * and some keyboards produce NFD), and scripts such as Devanagari and Thai need their combining
 * marks (\p{M}) even when composed.
 */
const identifier = () => z.string().normalize('NFC');

const USERNAME = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}_-]{1,99}$/u;

export const usernameParam = identifier()
  .max(100, 'username must be at most 100 characters')
  .regex(USERNAME, 'username must be 2 to 100 letters (of any script), digits, hyphens or underscores');

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

/** What a URL parameter names, for its message: its kind, path segment and the value's placeholder. */
interface NetworkUrlShape {
  kind: 'profile' | 'company' | 'post' | 'job';
  segment: string;
  placeholder: string;
}

const networkUrl = (
  { kind, segment, placeholder }: NetworkUrlShape,
  valueSchema: z.ZodType<string, string>,
) =>
  z
    .string()
    .min(1)
    .max(2048)
    .transform((raw, ctx) => {
      const value = networkPathValue(raw, segment);
      const parsed = value === null ? undefined : valueSchema.safeParse(value);
      if (!parsed?.success) {
        return invalid(
          ctx,
          `url must be a ${kind} URL of the form https://www.linkedin.com/${segment}/${placeholder} or ` +
            `https://linkedin.com/${segment}/${placeholder} (a two-letter country host such as de.linkedin.com also works)`,
        );
      }
      // The identifier as its own parameter would read it (NFC), so both paths look up the same.
      return parsed.data;
    });

/** A profile URL, reduced to its username. */
export const profileUrlParam = networkUrl(
  { kind: 'profile', segment: 'in', placeholder: '<username>' },
  usernameParam,
);

export const PROFILE_PUBLIC_ID = /^ACoA[A-Za-z0-9_-]{20,60}$/;
export const profilePublicIdParam = z
  .string()
  .regex(PROFILE_PUBLIC_ID, 'publicId must be a profile publicId');

export const COMPANY_PUBLIC_ID = /^\d{1,12}$/;
export const companyPublicIdParam = z
  .string()
  .regex(COMPANY_PUBLIC_ID, 'publicId must be a company publicId (digits)');

/**
 * A company slug: every slug the network hands out, which includes periods (`acme.co`), ampersands
 * (`smith&sons`), a leading underscore and letters of any script (`café-münchen`). What can never be
 * part of a slug (separators, whitespace, controls, `?`, `#`, `%`) is refused.
 */
const COMPANY_SLUG = /^[\p{L}\p{M}\p{N}._&-]{1,100}$/u;
export const companySlugParam = identifier()
  .min(1)
  .max(100, 'slug must be at most 100 characters')
  .regex(
    COMPANY_SLUG,
    "slug may contain only letters (of any script), digits, '.', '&', '_' and '-' (no slashes, spaces, '?', '#' or '%')",
  );

export const companyUrlParam = networkUrl(
  { kind: 'company', segment: 'company', placeholder: '<slug>' },
  companySlugParam,
);

/** A post slug: the full slug, which ends in `activity-<19 digits>-<4 characters>`. */
export const POST_SLUG = /^[\p{L}\p{M}\p{N}_-]+-activity-\d{19}-[A-Za-z0-9_-]{4}$/u;
export const postSlugParam = identifier()
  .max(300)
  .regex(
    POST_SLUG,
    'slug must be the full post slug (…-activity-<19 digits>-<4 characters>), not a numeric id',
  );
export const postUrlParam = networkUrl(
  { kind: 'post', segment: 'posts', placeholder: '<slug>' },
  postSlugParam,
);

export const jobUrlParam = networkUrl(
  { kind: 'job', segment: 'jobs/view', placeholder: '<job id>' },
  z.string().regex(/^\d{6,12}$/),
);

export const keywordsParam = z.string().min(1).max(120, 'keywords must be at most 120 characters');
export const queryParam = z.string().min(1).max(120, 'query must be at most 120 characters');

export const hashtagParam = identifier()
  .max(101)
  .transform((raw, ctx) => {
    const tag = raw.startsWith('#') ? raw.slice(1) : raw;
    if (!/^[\p{L}\p{M}\p{N}_]{1,100}$/u.test(tag))
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
