/**
 * The OpenAPI 3.1 document, generated from the catalog and the prices in force: each API family
 * registers its paths through api-binding.ts with the helpers here. Each path publishes exactly the
 * parameters it accepts, each with its entry's example, and patterns in JSON Schema's dialect. The
 * reference that serves it is documentation-pages.ts.
 */
import { type OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type * as z from 'zod';
import { errorBodySchema } from '../../schemas/errors.js';
import {
  defaultToolNames,
  exampleInput,
  type OperationDefinition,
  type OperationVariant,
  pathParameters,
} from '../../schemas/operation-definition.js';
import { creditCount } from '../errors.js';
import { SERVICE_VERSION } from '../version.js';
import type { OpenApiDocument } from './documentation-pages.js';
import { publishJsonSchemaPatterns } from './json-schema-pattern.js';
import { type ErrorExampleContext, errorExamples, type NamedExamples } from './response-examples.js';

const headerSchema = (description: string) => ({ description, schema: { type: 'string' as const } });

export const successHeaders = (billed: boolean) => ({
  'X-Request-Id': headerSchema('Request id; equals meta.requestId of error bodies.'),
  'X-RateLimit-Limit': headerSchema('Requests admitted per rolling window.'),
  'X-RateLimit-Remaining': headerSchema('Requests still admitted now.'),
  'X-RateLimit-Reset': headerSchema('Whole seconds until the window is back to full capacity.'),
  'RateLimit-Policy': headerSchema(
    'The rate limit as an IETF structured field (draft-ietf-httpapi-ratelimit-headers-11): "lookups";q=<X-RateLimit-Limit>;w=<window seconds>.',
  ),
  RateLimit: headerSchema(
    'The rate limit now as an IETF structured field: "lookups";r=<X-RateLimit-Remaining>;t=<X-RateLimit-Reset>.',
  ),
  ...(billed
    ? {
        'X-Credits-Remaining': headerSchema(
          "Credit balance after this call; for a key with spend caps, the least of the balance and what is left of the key's caps.",
        ),
      }
    : {}),
});

/**
 * The parameters a path accepts, each with its example: a `/by-X` path takes its own identifier,
 * required, and none of the operation's other identifiers.
 */
export function documentedParameters(
  definition: OperationDefinition,
  variant: OperationVariant,
): [name: string, schema: z.ZodType][] {
  const examples = new Map(exampleInput(definition, variant));
  return pathParameters(definition, variant).map(({ name, schema }) => {
    const example = examples.get(name);
    return [name, example === undefined ? schema : schema.meta({ param: { example } })];
  });
}

type SharedComponent = 'examples' | 'responses';

/** Each registry's shared components: the name of each distinct value, by its type and JSON text. */
const sharedComponents = new WeakMap<OpenAPIRegistry, Map<string, string>>();

/**
 * A reference to the component of `type` holding `value`, registered under `name` (or `name-2`, …)
 * the first time the value is seen. Most error answers are the same on every path, and the variants
 * of an operation share their answer: the document carries each once, since its size is what
 * Swagger UI parses again on every expand.
 */
function shared(
  registry: OpenAPIRegistry,
  type: SharedComponent,
  name: string,
  value: object,
  identity: unknown = value,
) {
  let names = sharedComponents.get(registry);
  if (!names) {
    names = new Map();
    sharedComponents.set(registry, names);
  }
  const key = `${type} ${JSON.stringify(identity)}`;
  let registered = names.get(key);
  if (registered === undefined) {
    const taken = new Set(names.values());
    registered = `${type}/${name}`;
    for (let count = 2; taken.has(registered); count++) registered = `${type}/${name}-${count}`;
    names.set(key, registered);
    registry.registerComponent(type, registered.slice(type.length + 1), value as never);
  }
  return { $ref: `#/components/${registered}` };
}

function sharedExamples(registry: OpenAPIRegistry, examples: NamedExamples) {
  return Object.fromEntries(
    Object.entries(examples).map(([name, example]) => [name, shared(registry, 'examples', name, example)]),
  );
}

/**
 * The error responses of an operation, one per status it can answer besides 200, each with an
 * example of every code the operation answers with that status.
 */
export function errorResponses(registry: OpenAPIRegistry, context: ErrorExampleContext) {
  return Object.fromEntries(
    context.definition.statuses
      .filter((status) => status !== 200)
      .map((status) => [String(status), errorResponseOf(registry, status, errorExamples(status, context))]),
  );
}

/**
 * A reference to the shared error response of `status` showing these examples (one per code):
 * paths that answer the same errors share one component.
 */
export function errorResponseOf(registry: OpenAPIRegistry, status: number, examples: NamedExamples) {
  const references = sharedExamples(registry, examples);
  const response = {
    description: `Error: ${Object.keys(references).join(' or ')}.`,
    content: { 'application/json': { schema: errorBodySchema(), examples: references } },
  };
  // The schema is the same on every error: the examples tell the responses apart.
  return shared(registry, 'responses', `error-${status}`, response, references);
}

/** The 200 example of an operation, shared by its paths: what the service answers to its example input. */
export function successExamples(
  registry: OpenAPIRegistry,
  definition: OperationDefinition,
  value: unknown,
  prefix = '',
) {
  const name = `${prefix}${definition.id}`;
  const summary = `What the sample answers to the example parameters`;
  return { [name]: shared(registry, 'examples', name, { summary, value }) };
}

/** The price line of an operation's description. */
export function priceText(price: number): string {
  return `Price: ${price === 0 ? 'free' : creditCount(price)}.`;
}

/**
 * The document of the paths in `registry` (the operations given, each family's and the batch
 * resource's), without `servers`: serveDocumentation names the deployment's base URL, so the document
 * can also be made at build time (the pages function's, scripts/build-functions.ts).
 */
export function buildOpenApiDocument(
  registry: OpenAPIRegistry,
  operations: readonly OperationDefinition[],
): OpenApiDocument {
  const tools = defaultToolNames(operations).length;
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Professional data lookup service',
      version: SERVICE_VERSION,
      description:
        'Lookups of professional profiles, companies, email addresses and websites, billed in credits. ' +
        `AI agents reach the same data lookups as ${tools} MCP tools at POST /mcp (JSON-RPC 2.0 over ` +
        'Streamable HTTP, same key, prices and limits); tools/list describes them. The /api/v2 family ' +
        '(tag v2, key in X-API-Key) runs the same lookups on the same account with its own envelope.',
    },
  });
  publishJsonSchemaPatterns(document);
  return document;
}
