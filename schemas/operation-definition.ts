/**
 * What one operation of the catalog is, as plain data plus zod schemas: everything REST, MCP,
 * /api/v2, the OpenAPI document, the docs tables, the Lambda functions and the CDK routes need to
 * know about it, so that adding an operation is one entry (schemas/operations/), one run function
 * (shared/operations/) and its tests. The types live here, apart from the list (catalog.ts), so the
 * modules that declare entries and the module that gathers them do not import each other.
 */
import * as z from 'zod';
import type { PagingStyle, RunMeta } from './envelope.js';
import type { ErrorCode } from './errors.js';

export const families = [
  'profiles',
  'companies',
  'posts',
  'jobs',
  'search',
  'emails',
  'websites',
  'account',
] as const;
export type Family = (typeof families)[number];

export type RuntimeNeed = 'browser' | 'smtp';

export interface OperationVariant {
  /** REST path under the service root, e.g. `/v1/emails/disposable`. */
  path: string;
  /** The identifier parameter this path takes, when the operation has several. */
  identifier?: string;
}

/** A route of the /api/v2 listing that runs the operation (schemas/v2-paths.ts builds them). */
export interface V2Path {
  /** The path under /api/v2, OpenAPI style: `/profiles/{public_identifier}/positions`. */
  path: string;
  /** The operation's identifier this route fills; absent on searches, which take none. */
  identifier?: string;
  /** The path parameter that carries the identifier; absent when it comes in the query. */
  pathParameter?: string;
}

/** A 200 answer written by hand, for operations whose answers reach the network and cannot be recorded. */
export interface ResponseExample {
  data: unknown;
  meta: RunMeta & { creditCost: number };
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
  /**
   * Absent: a lookup, counted in the account's rate window and recorded in its ledger (billed or
   * free). `account`: a read of the caller's own account (schemas/operations/account.ts): free,
   * not recorded in the ledger it reads, counted in a window of its own (ACCOUNT_RATE_LIMIT), and
   * allowed to any key of the account whatever its scopes.
   */
  metering?: 'account';
  /** The MCP tool that runs the operation, in the tool group `group`; none for v2-only lookups. */
  mcpTool?: string;
  /**
   * Absent: the tool is in every tools/list. `on-request`: only when a `tools` or `toolsets` filter
   * names it; for tools beyond the spec's catalog, so that the default list stays the spec's 35.
   */
  mcpListing?: 'on-request';
  /**
   * The routes of the /api/v2 listing that run the operation. Without any, the operation is an
   * extension of v2, at the path derived from its v1 path (schemas/v2-routes.ts).
   */
  v2?: readonly V2Path[];
  /**
   * One example value per query parameter (all but `cursor`, which only a previous page can give),
   * naming records the sample dataset plants for every seed, so that a request built from them
   * succeeds: the OpenAPI document publishes them, /docs pre-fills them, tests send them.
   */
  examples: Readonly<Record<string, string>>;
  /** The 200 answer to the examples, for operations that reach the network; others are recorded. */
  responseExample?: ResponseExample;
  runtime: { timeoutMs: number; memoryMb: number; needs: readonly RuntimeNeed[] };
  /** Every HTTP status the operation can answer, as the spec lists them. */
  statuses: readonly number[];
}

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

/** The example value of each parameter a path accepts that has one. */
export function exampleInput(definition: OperationDefinition, variant: OperationVariant): [string, string][] {
  const { examples } = definition;
  return pathParameters(definition, variant).flatMap(({ name }) => {
    const example = Object.hasOwn(examples, name) ? examples[name] : undefined;
    return example === undefined ? [] : [[name, example]];
  });
}

/**
 * What the MCP adapter reads of the definition behind a tool (its listing, toolset, paging): plain
 * facts without a schema, which a build can write down (functions/lambda/mcp-tools.ts).
 */
const TOOL_FACTS = ['id', 'family', 'group', 'paging', 'mcpTool', 'mcpListing'] as const;
export type ToolFacts = Pick<OperationDefinition, (typeof TOOL_FACTS)[number]>;

/** The definition's tool facts alone, as plain data. */
export function toolFactsOf(definition: ToolFacts): ToolFacts {
  return Object.fromEntries(TOOL_FACTS.map((key) => [key, definition[key]])) as unknown as ToolFacts;
}

/**
 * The MCP tools every tools/list shows, in catalog order: the spec's catalog. Tools marked
 * `on-request` are served only to a connection whose `tools` or `toolsets` filter names them.
 */
export function defaultToolNames(definitions: readonly ToolFacts[]): string[] {
  return definitions.flatMap((definition) =>
    definition.mcpTool !== undefined && definition.mcpListing !== 'on-request' ? [definition.mcpTool] : [],
  );
}
