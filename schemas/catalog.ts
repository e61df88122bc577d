/**
 * The operation catalog: every public operation declared once, as plain data plus zod schemas.
 * REST routes, the OpenAPI document, Lambda entry points (and later MCP tools, /api/v2 routes and
 * CDK routes) are all derived from this list. This module imports only zod, so infrastructure code
 * can read it without loading any runtime dependency.
 */
import { z } from 'zod';
import type { PagingStyle } from './envelope.js';
import type { ErrorCode } from './errors.js';
import { companyOperations } from './operations/companies.js';
import { disposableCheck, emailFind, emailVerify } from './operations/emails.js';
import { jobOperations } from './operations/jobs.js';
import { postOperations } from './operations/posts.js';
import { profileOperations } from './operations/profiles.js';
import { searchOperations } from './operations/search.js';
import { websiteOperations } from './operations/websites.js';

export const families = ['profiles', 'companies', 'posts', 'jobs', 'search', 'emails', 'websites'] as const;
export type Family = (typeof families)[number];

export type RuntimeNeed = 'browser' | 'smtp';

export interface OperationVariant {
  /** REST path under the service root, e.g. `/v1/emails/disposable`. */
  path: string;
  /** The identifier parameter this path takes, when the operation has several. */
  identifier?: string;
}

export interface OperationDefinition {
  /** Stable id: `<family>.<name>`; names Lambda functions, ledger entries and price overrides. */
  id: string;
  family: Family;
  /** MCP tool group: the tools of one group run together in one Lambda behind /mcp. */
  group: string;
  summary: string;
  description: string;
  variants: readonly OperationVariant[];
  /**
   * The identifiers of what the operation looks up, of which exactly one must be sent (SPEC "Profiles"
   * rule 1): several where paths offer a choice, one where there is no choice, none for searches.
   */
  identifiers: readonly string[];
  query: z.ZodObject;
  /** What to tell a caller who sends a parameter the operation does not take (e.g. includeContact). */
  parameterHints?: Readonly<Record<string, string>>;
  data: z.ZodType;
  /** Fields a run adds to `meta` besides `creditCost` and `paging` (profile details). */
  meta?: z.ZodObject;
  paging: PagingStyle;
  /** Default price in credits; `PRICE_OVERRIDES` may change it per deployment. */
  price: number;
  settlement: {
    /** Error codes that keep the charge; every other error after the debit is refunded. */
    chargedErrors: readonly ErrorCode[];
  };
  mcpTool?: string;
  runtime: { timeoutMs: number; memoryMb: number; needs: readonly RuntimeNeed[] };
  /** Every HTTP status the operation can answer, as the spec lists them. */
  statuses: readonly number[];
}

export const catalog = [
  ...profileOperations,
  ...companyOperations,
  ...postOperations,
  ...searchOperations,
  ...jobOperations,
  disposableCheck,
  emailVerify,
  emailFind,
  ...websiteOperations,
] as const satisfies readonly OperationDefinition[];

export type OperationId = (typeof catalog)[number]['id'];

/** One parameter a path accepts. */
export interface PathParameter {
  name: string;
  /** The parameter's schema; an identifier of its own path is required there. */
  schema: z.ZodType;
  required: boolean;
}

/**
 * The parameters one path accepts, in declaration order: on a `/by-X` path its own identifier,
 * required, and none of the operation's other identifiers. The OpenAPI document and the README's
 * endpoint table both read paths through this, so they cannot disagree about one.
 */
export function pathParameters(operation: OperationDefinition, variant: OperationVariant): PathParameter[] {
  const { identifier } = variant;
  return Object.entries(operation.query.shape)
    .filter(
      ([name]) => identifier === undefined || name === identifier || !operation.identifiers.includes(name),
    )
    .map(([name, declared]) => {
      const own = name === identifier && declared instanceof z.ZodOptional;
      const schema = (own ? declared.unwrap() : declared) as z.ZodType;
      return { name, schema, required: !schema.safeParse(undefined).success };
    });
}
