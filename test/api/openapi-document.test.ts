/**
 * The OpenAPI document tells the truth: patterns in JSON Schema's dialect, each path with exactly
 * the parameters it accepts, an example for each parameter, and a request built from those examples
 * succeeds against the sample dataset. Also its server entry, and /docs/assets answering only the
 * assets it has.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, type OperationDefinition } from '../../schemas/catalog.js';
import { loadConfig } from '../../shared/config.js';
import { renderedRegExp } from '../../shared/http/json-schema-pattern.js';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  example?: string;
  schema: { pattern?: string; minLength?: number; maxLength?: number; enum?: string[] };
}
interface OpenApiDocument {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, { get: { operationId: string; parameters?: Parameter[] } }>;
}

let harness: Harness;
let document: OpenApiDocument;

beforeAll(async () => {
  // The service's own operations: the test-only priced operation is no part of its document.
  harness = await startHarness({ operations: catalog });
  const response = await harness.app.request('/openapi.json');
  expect(response.status).toBe(200);
  document = (await response.json()) as OpenApiDocument;
});
afterAll(() => harness.close());

const operations: readonly OperationDefinition[] = catalog;
const variants = operations.flatMap((definition) =>
  definition.variants.map((variant) => ({ definition, variant })),
);

function parametersOf(path: string): Parameter[] {
  const operation = document.paths[path]?.get;
  if (!operation) throw new Error(`The document has no GET ${path}.`);
  return operation.parameters ?? [];
}

/** Every `pattern` keyword anywhere in the document. */
function allPatterns(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(allPatterns);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string' ? [value] : allPatterns(value),
  );
}

describe('patterns', () => {
  it('are JSON Schema patterns: each compiles with u semantics and carries no JavaScript flags', () => {
    const patterns = allPatterns(document);
    expect(patterns.length).toBeGreaterThan(20);
    for (const pattern of patterns) {
      expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow();
      expect(pattern, pattern).not.toMatch(/\/[dgimsuvy]+$/);
    }
  });

  it('accept the examples of their parameters, as do the length limits', () => {
    for (const { variant } of variants) {
      for (const parameter of parametersOf(variant.path)) {
        const { example, schema } = parameter;
        if (example === undefined) continue;
        const where = `${variant.path} ${parameter.name}=${example}`;
        if (schema.pattern) expect(new RegExp(schema.pattern, 'u').test(example), where).toBe(true);
        expect(example.length, where).toBeGreaterThanOrEqual(schema.minLength ?? 0);
        expect(example.length, where).toBeLessThanOrEqual(schema.maxLength ?? Number.POSITIVE_INFINITY);
        if (schema.enum) expect(schema.enum, where).toContain(example);
      }
    }
  });

  it('read the library rendering back: flags split off only where an unescaped slash ends the source', () => {
    expect(renderedRegExp('^[\\p{L}]+$/u')).toEqual(/^[\p{L}]+$/u);
    expect(renderedRegExp('^\\d{1,15}$')).toEqual(/^\d{1,15}$/);
    expect(renderedRegExp('a\\/u')).toEqual(/a\/u/);
    expect(renderedRegExp('a\\\\/u')).toEqual(/a\\/u);
    expect(renderedRegExp('[a/]')).toEqual(/[a/]/);
  });
});

describe('paths', () => {
  it('publish on each /by-X path only its own identifier, required, besides the other parameters', () => {
    for (const { definition, variant } of variants) {
      const names = parametersOf(variant.path).map((parameter) => parameter.name);
      const identifiers = names.filter((name) => definition.identifiers.includes(name));
      const others = Object.keys(definition.query.shape).filter(
        (name) => !definition.identifiers.includes(name),
      );
      expect(
        names.filter((name) => !identifiers.includes(name)),
        variant.path,
      ).toEqual(others);
      if (!variant.identifier) continue;
      expect(identifiers, variant.path).toEqual([variant.identifier]);
      const own = parametersOf(variant.path).find((parameter) => parameter.name === variant.identifier);
      expect(own?.required, variant.path).toBe(true);
    }
  });

  it('give every parameter an example, except cursor (only a previous page can supply one)', () => {
    const missing = variants.flatMap(({ variant }) =>
      parametersOf(variant.path)
        .filter((parameter) => parameter.example === undefined)
        .map((parameter) => parameter.name),
    );
    expect(new Set(missing)).toEqual(new Set(['cursor']));
  });

  it('validate as an OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });
});

describe('a request built from the examples', () => {
  const queryOf = (path: string) =>
    new URLSearchParams(
      parametersOf(path).flatMap((parameter) =>
        parameter.example === undefined ? [] : [[parameter.name, parameter.example]],
      ),
    );

  it('succeeds on every path that needs no network', { timeout: 60_000 }, async () => {
    const { apiKey } = await harness.provision({
      credits: 1_000_000,
      rateLimit: { limit: 100_000, windowSeconds: 60 },
    });
    const offline = variants.filter(({ definition }) => definition.runtime.needs.length === 0);
    expect(offline.length).toBeGreaterThan(50);
    for (const { variant } of offline) {
      const request = `${variant.path}?${queryOf(variant.path)}`;
      const response = await harness.get(request, apiKey);
      expect(response.status, `${request}: ${await response.clone().text()}`).toBe(200);
    }
  });

  // These reach mail servers and web sites: a key without credits shows that the examples pass
  // validation (402 comes after it, before any network) without dialling anyone.
  it('passes validation on the paths that reach the network', async () => {
    const { apiKey } = await harness.provision({ credits: 0 });
    const online = variants.filter(({ definition }) => definition.runtime.needs.length > 0);
    expect(online.map(({ definition }) => definition.id).sort()).toEqual([
      'emails.find',
      'emails.verify',
      'websites.content',
      'websites.emails',
      'websites.text',
    ]);
    for (const { variant } of online) {
      await expectError(
        await harness.get(`${variant.path}?${queryOf(variant.path)}`, apiKey),
        402,
        'insufficient_credits',
      );
    }
  });
});

describe('servers', () => {
  const served = async (env: Record<string, string>) => {
    const service = await startHarness({ env });
    try {
      return ((await (await service.app.request('/openapi.json')).json()) as OpenApiDocument).servers;
    } finally {
      await service.close();
    }
  };

  it('is PUBLIC_BASE_URL when it is set, without a trailing slash', async () => {
    expect(await served({ PUBLIC_BASE_URL: 'https://api.example.test/lookup/' })).toEqual([
      { url: 'https://api.example.test/lookup' },
    ]);
  });

  it('is the listening address otherwise', async () => {
    expect(await served({ HOST: '0.0.0.0', PORT: '9000' })).toEqual([{ url: 'http://0.0.0.0:9000' }]);
    expect(loadConfig({ HOST: '::1' }).PUBLIC_BASE_URL).toBe('http://[::1]:8787');
  });

  it('refuses a base URL that is not http or https, naming the setting', () => {
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'ftp://example.test' })).toThrow(/PUBLIC_BASE_URL/);
  });
});

describe('GET /docs/assets/:file', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'answers 404 in the error format for %s, a name only a plain object has',
    async (name) => {
      await expectError(await harness.app.request(`/docs/assets/${name}`), 404, 'resource_not_found');
    },
  );

  it('still serves its assets', async () => {
    const response = await harness.app.request('/docs/assets/swagger-ui.css');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });
});
