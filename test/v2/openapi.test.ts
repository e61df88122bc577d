/**
 * The one OpenAPI document serves v1 and v2 side by side: every v2 route with tag v2, the X-API-Key
 * scheme, its path parameter in the path, the v2 envelope, the v1 operation it mirrors, and
 * `x-extension: true` exactly on the extensions; every catalog operation is reachable on v2.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import { type Harness, startHarness } from '../support/harness.js';

interface Operation {
  tags: string[];
  security: Record<string, string[]>[];
  description: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<
    string,
    { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }
  >;
  'x-extension'?: boolean;
}
interface Document {
  paths: Record<string, { get: Operation }>;
  components: { securitySchemes: Record<string, unknown> };
}

let harness: Harness;
let document: Document;

beforeAll(async () => {
  harness = await startHarness();
  document = (await (await harness.app.request('/openapi.json')).json()) as Document;
});
afterAll(() => harness.close());

it('declares the X-API-Key scheme beside the bearer scheme', () => {
  expect(document.components.securitySchemes.apiKeyHeader).toEqual(
    expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
  );
  expect(document.components.securitySchemes.bearerAuth).toBeDefined();
  expect(Object.keys(document.paths).filter((path) => path.startsWith('/v1/')).length).toBeGreaterThan(40);
});

it.each(v2Routes.map((route) => [route.path, route] as const))('documents %s', (path, route) => {
  const operation = document.paths[path]?.get as Operation;
  expect(operation.tags).toEqual(['v2']);
  expect(operation.security).toEqual([{ apiKeyHeader: [] }]);
  expect(operation.description.toLowerCase()).toContain(`operation ${route.operation.id}`);
  expect(operation['x-extension']).toBe(route.extension ? true : undefined);
  const inPath = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
  expect(inPath.map((parameter) => parameter.name)).toEqual(route.pathParameter ? [route.pathParameter] : []);
  expect(
    Object.keys(operation.responses['200']?.content?.['application/json']?.schema.properties ?? {}),
  ).toEqual(['data', 'paging', 'meta']);
});

it('reaches every catalog operation on v2', () => {
  const reached = new Set(v2Routes.map((route) => route.operation.id));
  expect(catalog.filter((operation) => !reached.has(operation.id)).map((operation) => operation.id)).toEqual(
    [],
  );
});
