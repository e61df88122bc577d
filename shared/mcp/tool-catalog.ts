/**
 * The MCP tools, generated from the catalog: one tool per `mcpTool` name, its identifier variants
 * merged under "exactly one of" (published as flat optional properties, since many agent clients
 * reject or flatten a root `oneOf`; the server checks the count). Argument names are the public query
 * parameter names. Each output schema admits the success body and the public error body, because
 * SDK v1 clients validate `structuredContent` even on tool errors (typescript-sdk issue 1943).
 */
import type { Tool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { successEnvelopeSchema } from '../../schemas/envelope.js';
import { errorBodySchema } from '../../schemas/errors.js';
import { DATA_FAMILIES } from '../../schemas/function-conventions.js';
import type { OperationDefinition, OperationVariant, ToolFacts } from '../../schemas/operation-definition.js';
import { toolArgumentTypes } from '../../schemas/parameters.js';
import type { RegisteredOperation } from '../pipeline/operation.js';

/**
 * What /mcp needs of the operation behind a tool: plain facts, which a build can write down (the
 * /mcp function serves its tools from them without the catalog, functions/lambda/mcp-tools.ts).
 */
export interface ToolOperation {
  readonly price: number;
  readonly definition: ToolFacts;
}

export interface ToolEntry<Operation extends ToolOperation = ToolOperation> {
  /** Described on first read: most requests (initialize, a call of one tool) never read the others'. */
  readonly tool: Tool;
  readonly operation: Operation;
}

/** The tools of the given operations, by name, in catalog order; operations without a tool are left out. */
export function buildToolCatalog(
  operations: readonly RegisteredOperation[],
): Map<string, ToolEntry<RegisteredOperation>> {
  const tools = new Map<string, ToolEntry<RegisteredOperation>>();
  for (const operation of operations) {
    const name = operation.definition.mcpTool;
    if (name === undefined) continue;
    if (tools.has(name)) throw new Error(`Two operations declare the MCP tool ${name}.`);
    // Each tool's JSON Schemas take a millisecond or more to derive: the /mcp function's cold start
    // (an initialize) would otherwise derive every tool's.
    let tool: Tool | undefined;
    tools.set(name, {
      get tool() {
        tool ??= describeTool(name, operation);
        return tool;
      },
      operation,
    });
  }
  return tools;
}

/**
 * The path a call takes: the variant of the one identifier sent. With none or several sent there
 * is no variant, and validation reports the count (`identifier_count`).
 */
export function variantFor(
  operation: RegisteredOperation,
  values: Record<string, unknown>,
): OperationVariant | undefined {
  const { variants, identifiers } = operation.definition;
  const sent = identifiers.filter((name) => Object.hasOwn(values, name));
  if (sent.length !== 1) return undefined;
  return variants.find((variant) => variant.identifier === sent[0]) ?? variants[0];
}

function describeTool(name: string, operation: RegisteredOperation): Tool {
  const { definition, price } = operation;
  return {
    name,
    title: definition.summary,
    description: toolDescription(operation),
    inputSchema: inputSchema(operation) as Tool['inputSchema'],
    outputSchema: outputSchema(operation) as Tool['outputSchema'],
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      // A repeat is a new billed call, so only a free tool is free of side effects when repeated.
      idempotentHint: price === 0,
      // Lookups reach the world's public data (a dataset, mail servers, websites); the account
      // tools read only the caller's own account.
      openWorldHint: definition.family !== 'account',
    },
  };
}

function toolDescription(operation: RegisteredOperation): string {
  const { definition, price } = operation;
  const { identifiers } = definition;
  const identifierAdvice =
    identifiers.length > 1
      ? ` Send exactly one of ${identifiers.join(', ')}; prefer ${identifiers[0]} when you have it.`
      : identifiers.length === 1
        ? ` Requires ${identifiers[0]}.`
        : '';
  const cost =
    price === 0
      ? ' Free.'
      : ` Costs ${price} credit${price === 1 ? '' : 's'} per call${missSettlement(definition)}.`;
  return (
    `${definition.summary}. ${definition.description}${identifierAdvice}${cost}` +
    ' Results do not establish ownership or beneficial ownership; an empty result does not prove absence.'
  );
}

/**
 * What a call that finds nothing costs, where the tool's own description does not say it: a dataset
 * lookup's miss (404) is refunded, a website's missing page (404 or 410) keeps the charge. Email
 * tools describe their settlement themselves (an invalid mailbox is a conclusive, charged answer).
 */
function missSettlement(definition: OperationDefinition): string {
  if (definition.settlement.chargedErrors.includes('resource_not_found'))
    return '; a page that is not found keeps the charge';
  return DATA_FAMILIES.includes(definition.family) ? '; a lookup that matches nothing is refunded' : '';
}

type JsonSchema = Record<string, unknown>;

function inputSchema(operation: RegisteredOperation): JsonSchema {
  const schema = toJsonSchema(operation.definition.query, 'input');
  // Required identifiers are published optional when there is a choice: the server checks the count.
  if (operation.definition.identifiers.length > 1 && Array.isArray(schema.required)) {
    const identifiers = new Set<unknown>(operation.definition.identifiers);
    const required = schema.required.filter((name) => !identifiers.has(name));
    if (required.length > 0) schema.required = required;
    else delete schema.required;
  }
  return { ...schema, additionalProperties: false };
}

/**
 * `{ data, meta }` on success, `{ error, meta }` on a tool error. `data` is precise. The error body and
 * `meta` are published as outlines (names and types, no bounds or enums): the same ~1,000 characters
 * in each of 35 tools would otherwise be a third of what tools/list costs an agent's context, and
 * the error codes are in the spec, the README and each error's text.
 */
function outputSchema(operation: RegisteredOperation): JsonSchema {
  const { definition, price } = operation;
  const success = toJsonSchema(
    successEnvelopeSchema(definition.data, definition.paging, price, definition.meta),
    'output',
  );
  const successProperties = success.properties as Record<string, JsonSchema>;
  const failureProperties = errorOutline().properties as Record<string, JsonSchema>;
  return {
    type: 'object',
    properties: {
      data: successProperties.data,
      error: failureProperties.error,
      meta: { anyOf: [outline(successProperties.meta), failureProperties.meta] },
    },
    anyOf: [{ required: ['data', 'meta'] }, { required: ['error', 'meta'] }],
    additionalProperties: false,
  };
}

/** Keywords an outline keeps: the shape, not the bounds or what is required. */
const OUTLINE_KEYWORDS = new Set(['type', 'properties', 'items', 'anyOf']);

/** A schema reduced to property names and types; property names are kept as they are. */
function outline(schema: unknown): JsonSchema {
  const kept: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (!OUTLINE_KEYWORDS.has(key)) continue;
    if (key === 'properties') {
      kept.properties = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, inner]) => [name, outline(inner)]),
      );
    } else if (key === 'items') kept.items = outline(value);
    else if (key === 'anyOf') kept.anyOf = (value as unknown[]).map(outline);
    else kept[key] = value;
  }
  return kept;
}

/** Component ids (such as ErrorBody's) name OpenAPI components; tool schemas are inlined instead. */
const inlineOnly = z.registry<Record<string, unknown>>();

/**
 * JSON Schema for MCP clients: draft-07 keywords (what the SDK's validator speaks), everything
 * inlined, no `format` keywords (clients validate them, and their notion of `uri` or `email` need not
 * be ours), integer arguments as JSON numbers.
 */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-07',
    reused: 'inline',
    metadata: inlineOnly,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const argumentType = io === 'input' ? toolArgumentTypes.get(zodSchema) : undefined;
      if (argumentType) {
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
        Object.assign(jsonSchema, argumentType);
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return withoutFormats(json) as JsonSchema;
}

function withoutFormats(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutFormats);
  if (value === null || typeof value !== 'object') return value;
  const copy: JsonSchema = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'format' && typeof inner === 'string') continue;
    copy[key] = withoutFormats(inner);
  }
  return copy;
}

let errorBodyOutline: JsonSchema | undefined;

/**
 * The error body's outline, derived at the first tool described: /mcp's cold start (an initialize)
 * describes none, and deriving it took a few milliseconds of that start.
 */
function errorOutline(): JsonSchema {
  errorBodyOutline ??= outline(toJsonSchema(errorBodySchema(), 'output'));
  return errorBodyOutline;
}
