/**
 * The compact mode (`?toolsets=discover`): for agents that should not carry every tool's schema in
 * their context, two tools stand in for the whole catalog.
 * - `find_operation` (free, not metered, like tools/list): finds the tools that fit a need described
 *   in words and returns each one's input schema, price and toolset.
 * - `run_operation`: runs a named tool with its arguments through the same dispatch as a direct call
 *   of that tool, so it is billed, metered, refused and answered exactly as that call would be.
 * They are adapter tools, not catalog operations: nothing about them reaches REST, v2 or OpenAPI.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ErrorDetail } from '../../schemas/errors.js';
import { InvalidRequestError } from '../errors.js';
import { once } from '../lazy.js';
import { errorResponse, printableField, quoteInput } from '../pipeline/public-response.js';
import type { ToolEntry } from './tool-catalog.js';

export const DISCOVER_TOOLSET = 'discover';
export const FIND_OPERATION = 'find_operation';
export const RUN_OPERATION = 'run_operation';

/** How many matches find_operation returns unless asked for fewer or more. */
const DEFAULT_MATCHES = 5;
const MAX_MATCHES = 10;
const MAX_NEED_LENGTH = 256;

const findArguments = once(() =>
  z.strictObject({
    need: z
      .string()
      .trim()
      .min(1)
      .max(MAX_NEED_LENGTH)
      .describe('What you want to look up or check, in a few words (e.g. "people working at a company").'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_MATCHES)
      .optional()
      .describe(`How many matching tools to return, 1 to ${MAX_MATCHES}; ${DEFAULT_MATCHES} by default.`),
  }),
);

const runArguments = once(() =>
  z.strictObject({
    tool: z.string().min(1).max(64).describe('The name of the tool to run, as find_operation returned it.'),
    arguments: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The tool's arguments, as its inputSchema (from find_operation) describes them."),
  }),
);

const annotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: true } as const;

/** The two tools as tools/list publishes them. */
export const discoverTools: readonly Tool[] = [
  adapterTool(
    {
      name: FIND_OPERATION,
      title: 'Find the operation for a need',
      description:
        'Finds the tools of this service that fit a need described in words, and returns for each its name, ' +
        'what it does, its price in credits and its inputSchema; then call run_operation with the name and ' +
        'arguments. Covers every tool, including email and website ones. Free.',
      annotations: { ...annotations, idempotentHint: true, openWorldHint: false },
    },
    findArguments,
  ),
  adapterTool(
    {
      name: RUN_OPERATION,
      title: 'Run a named operation',
      description:
        'Runs the tool named in `tool` with `arguments`, exactly as calling that tool directly would: the same ' +
        'answer, the same price (the one find_operation states; a lookup that matches nothing is refunded) and ' +
        'the same errors. Results do not establish ownership; an empty result does not prove absence.',
      annotations: { ...annotations, idempotentHint: false },
    },
    runArguments,
  ),
];

export type DiscoverCall =
  | { kind: 'answer'; result: CallToolResult }
  | { kind: 'run'; tool: string; arguments: Record<string, unknown> }
  | { kind: 'refused'; error: InvalidRequestError };

/**
 * What a call of one of the two tools comes to: find_operation's answer, or the tool run_operation
 * names (still to be dispatched by the caller, like a direct call), or a refusal of the arguments.
 * `catalog` is every tool the service serves, whatever the connection's filter.
 */
export function resolveDiscoverCall(
  name: string,
  args: Record<string, unknown>,
  catalog: ReadonlyMap<string, ToolEntry>,
): DiscoverCall {
  if (name === FIND_OPERATION) {
    const parsed = findArguments().safeParse(args);
    if (!parsed.success) return { kind: 'refused', error: argumentRefusal(parsed.error) };
    const operations = bestMatches(parsed.data.need, catalog, parsed.data.limit ?? DEFAULT_MATCHES);
    const body = { data: { operations }, meta: { creditCost: 0 } };
    return {
      kind: 'answer',
      result: {
        content: [
          { type: 'text', text: JSON.stringify(body) },
          { type: 'text', text: 'Cost: free, nothing charged.' },
        ],
        structuredContent: body,
      },
    };
  }
  const parsed = runArguments().safeParse(args);
  if (!parsed.success) return { kind: 'refused', error: argumentRefusal(parsed.error) };
  const { tool } = parsed.data;
  if (!catalog.has(tool) || tool === FIND_OPERATION || tool === RUN_OPERATION) {
    return {
      kind: 'refused',
      error: InvalidRequestError.single(
        'tool',
        'invalid_value',
        `No tool is named ${quoteInput(tool, 64)}; call find_operation for the tools that fit your need.`,
      ),
    };
  }
  // From the message as JSON.parse produced it: an own `__proto__` argument is refused downstream.
  const forwarded = args.arguments;
  return { kind: 'run', tool, arguments: (forwarded ?? {}) as Record<string, unknown> };
}

/** A refusal as a tool result, like any argument refusal of a catalog tool. */
export function refusedResult(error: InvalidRequestError, requestId: string) {
  return { response: errorResponse(error, requestId), creditCost: 0 };
}

interface Match {
  tool: string;
  title: string | undefined;
  description: string | undefined;
  price: number;
  toolset: string;
  inputSchema: Tool['inputSchema'];
}

/**
 * Tools ranked by the words of the need they contain: a word in the tool's name counts most, then in
 * its title, then in its description; a word matches its plural and singular forms. Ties keep the
 * catalog's order, so the answer is deterministic. Tools matching no word are left out.
 */
function bestMatches(need: string, catalog: ReadonlyMap<string, ToolEntry>, limit: number): Match[] {
  const words = [...new Set(wordsOf(need))].filter((word) => !STOP_WORDS.has(word));
  const scored = indexOf(catalog).map(({ entry, name, title, description }, order) => {
    const score = words.reduce(
      (sum, word) =>
        sum + (name.has(word) ? 4 : 0) + (title.has(word) ? 2 : 0) + (description.has(word) ? 1 : 0),
      0,
    );
    return { entry, order, score };
  });
  return scored
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ entry }) => ({
      tool: entry.tool.name,
      title: entry.tool.title,
      description: entry.tool.description,
      price: entry.operation.price,
      toolset: entry.operation.definition.group,
      inputSchema: entry.tool.inputSchema,
    }));
}

interface IndexedTool {
  entry: ToolEntry;
  name: ReadonlySet<string>;
  title: ReadonlySet<string>;
  description: ReadonlySet<string>;
}

/** The words of every tool, made once per catalog (a service has one) rather than per call. */
const indexes = new WeakMap<ReadonlyMap<string, ToolEntry>, IndexedTool[]>();

function indexOf(catalog: ReadonlyMap<string, ToolEntry>): IndexedTool[] {
  let index = indexes.get(catalog);
  if (!index) {
    index = [...catalog.values()].map((entry) => ({
      entry,
      name: new Set(wordsOf(entry.tool.name.replaceAll('_', ' '))),
      title: new Set(wordsOf(entry.tool.title ?? '')),
      description: new Set(wordsOf(entry.tool.description ?? '')),
    }));
    indexes.set(catalog, index);
  }
  return index;
}

/** Lower-case words, each reduced to a singular-ish stem so "emails" finds "email". */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((word) =>
    word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word,
  );
}

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'for',
  'to',
  'and',
  'or',
  'in',
  'on',
  'by',
  'with',
  'get',
  'find',
  'i',
  'me',
  'my',
  'want',
  'need',
]);

/** Zod's issues with a tool's arguments as the 400 a catalog tool's refusal would be. */
export function argumentRefusal(error: z.ZodError): InvalidRequestError {
  const details = error.issues.flatMap((issue): ErrorDetail[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: printableField(key),
        code: 'unknown_parameter' as const,
        message: `Unknown argument ${quoteInput(key, 64)}.`,
      }));
    }
    const field = printableField(String(issue.path[0] ?? 'arguments'));
    return [{ field, code: 'invalid_value' as const, message: issue.message.slice(0, 512) }];
  });
  return new InvalidRequestError(details);
}

/**
 * An adapter tool as tools/list publishes it, its inputSchema made from the zod schema its arguments
 * are checked with on first read: a cold start of /mcp (an initialize) reads none, nor makes the schema.
 */
export function adapterTool(tool: Omit<Tool, 'inputSchema'>, schema: () => z.ZodType): Tool {
  let inputSchema: Tool['inputSchema'] | undefined;
  const { annotations, ...head } = tool;
  // In the order the tool always had: its JSON reads the same.
  return {
    ...head,
    get inputSchema() {
      inputSchema ??= inputSchemaOf(schema());
      return inputSchema;
    },
    ...(annotations ? { annotations } : {}),
  };
}

/** An adapter tool's published inputSchema, from the zod schema its arguments are checked with. */
function inputSchemaOf(schema: z.ZodType): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { target: 'draft-07', io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json as Tool['inputSchema'];
}
