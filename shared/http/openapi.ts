/**
 * The OpenAPI 3.1 document, generated from the catalog (and the prices in force), and the
 * interactive reference at /docs, whose assets come from the installed swagger-ui-dist package:
 * no CDN, so it works behind firewalls and offline. Each path publishes exactly the parameters it
 * accepts, each with an example (schemas/examples.ts), and patterns in JSON Schema's dialect.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { z } from 'zod';
import { type OperationDefinition, type OperationVariant, pathParameters } from '../../schemas/catalog.js';
import { successEnvelopeSchema } from '../../schemas/envelope.js';
import { type ErrorCode, errorBodySchema, errorCodes, errorTable } from '../../schemas/errors.js';
import { parameterExamples } from '../../schemas/examples.js';
import { BUNDLED_DOCS_DIRECTORY } from '../../schemas/functions.js';
import { besideBundle } from '../bundle-assets.js';
import { creditCount } from '../errors.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { publishJsonSchemaPatterns } from './json-schema-pattern.js';

const headerSchema = (description: string) => ({ description, schema: { type: 'string' as const } });

export const successHeaders = (billed: boolean) => ({
  'X-Request-Id': headerSchema('Request id; equals meta.requestId of error bodies.'),
  'X-RateLimit-Limit': headerSchema('Requests admitted per rolling window.'),
  'X-RateLimit-Remaining': headerSchema('Requests still admitted now.'),
  'X-RateLimit-Reset': headerSchema('Whole seconds until the window is back to full capacity.'),
  ...(billed ? { 'X-Credits-Remaining': headerSchema('Credit balance after this call.') } : {}),
});

function codesOf(status: number): ErrorCode[] {
  return errorCodes.filter((code) => errorTable[code].status === status);
}

const examplesByOperation: ReadonlyMap<string, Readonly<Record<string, string>>> = new Map(
  Object.entries(parameterExamples),
);

/**
 * The parameters a path accepts, each with its example: a `/by-X` path takes its own identifier,
 * required, and none of the operation's other identifiers.
 */
export function documentedParameters(
  definition: OperationDefinition,
  variant: OperationVariant,
): [name: string, schema: z.ZodType][] {
  const examples = examplesByOperation.get(definition.id) ?? {};
  return pathParameters(definition, variant).map(({ name, schema }) => {
    const example = Object.hasOwn(examples, name) ? examples[name] : undefined;
    return [name, example === undefined ? schema : schema.meta({ param: { example } })];
  });
}

/** The error responses of an operation, one per status it can answer besides 200. */
export function errorResponses(definition: OperationDefinition) {
  return Object.fromEntries(
    definition.statuses
      .filter((status) => status !== 200)
      .map((status) => [
        String(status),
        {
          description: `Error: ${codesOf(status).join(' or ')}.`,
          content: { 'application/json': { schema: errorBodySchema } },
        },
      ]),
  );
}

/** The price line of an operation's description. */
export function priceText(price: number): string {
  return `Price: ${price === 0 ? 'free' : creditCount(price)}.`;
}

export function registerOperationDocs<E extends Env>(
  app: OpenAPIHono<E>,
  operation: RegisteredOperation,
  variant: OperationVariant,
): void {
  const { definition, price } = operation;
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: variant.path,
    operationId: variant.identifier ? `${definition.id}.by-${variant.identifier}` : definition.id,
    tags: [definition.family],
    summary: definition.summary,
    description: `${definition.description}\n\n${priceText(price)}`,
    security: [{ bearerAuth: [] }],
    request: { query: z.object(Object.fromEntries(documentedParameters(definition, variant))) },
    responses: {
      200: {
        description: 'The result.',
        headers: successHeaders(price > 0),
        content: {
          'application/json': {
            schema: successEnvelopeSchema(definition.data, definition.paging, price, definition.meta),
          },
        },
      },
      ...errorResponses(definition),
    },
  });
}

export interface DocumentationSettings {
  /** The base URL clients use (`PUBLIC_BASE_URL`), published as the document's one server. */
  publicBaseUrl?: string;
}

export function serveDocumentation<E extends Env>(
  app: OpenAPIHono<E>,
  settings: DocumentationSettings = {},
): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key: a fixed prefix followed by 66 Base64url characters.',
  });
  let document: unknown;
  app.get('/openapi.json', (c) => {
    if (document === undefined) {
      document = app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'Professional data lookup service',
          version: '1.0.0',
          description:
            'Lookups of professional profiles, companies, email addresses and websites, billed in credits. ' +
            'AI agents reach the same data lookups as 35 MCP tools at POST /mcp (JSON-RPC 2.0 over ' +
            'Streamable HTTP, same key, prices and limits); tools/list describes them. The /api/v2 family ' +
            '(tag v2, key in X-API-Key) runs the same lookups on the same account with its own envelope.',
        },
        servers: settings.publicBaseUrl ? [{ url: settings.publicBaseUrl }] : undefined,
      });
      publishJsonSchemaPatterns(document);
    }
    return c.json(document);
  });
  app.get('/docs', (c) => c.html(docsPage));
  app.get('/docs/assets/:file', async (c) => {
    // The name comes from the request: only a Map answers exactly the names it was given.
    const file = c.req.param('file');
    const type = swaggerAssets.get(file);
    if (!type) return c.notFound();
    const body = await readFile(join(swaggerUiDirectory(), file));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
}

export const swaggerAssets: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

/** The pages function carries the assets beside its bundle; from source, the package's own. */
export function swaggerUiDirectory(): string {
  return (
    besideBundle(BUNDLED_DOCS_DIRECTORY) ??
    dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  );
}

const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Lookup service API reference</title>
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' });</script>
</body>
</html>`;
