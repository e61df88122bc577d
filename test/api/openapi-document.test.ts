/**
 * The OpenAPI document tells the truth: patterns in JSON Schema's dialect, each path with exactly
 * the parameters it accepts, an example for each parameter, and a request built from those examples
 * succeeds against the sample dataset. Also its server entry, and /docs/assets answering only the
 * assets it has.
 */

import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import { successEnvelopeSchema, v2EnvelopeSchema } from '../../schemas/envelope.js';
import { errorBodySchema, errorTable } from '../../schemas/errors.js';
import { exampleInput, type OperationDefinition } from '../../schemas/operation-definition.js';
import { RESPONSE_EXAMPLES_FILE, recordResponseExamples } from '../../scripts/response-examples.js';
import type { BatchWorkerPool } from '../../shared/batches/batch-worker.js';
import { mountBatches } from '../../shared/batches/mount-batches.js';
import { loadConfig } from '../../shared/config.js';
import {
  batchEnvelopeSchema,
  batchListSchema,
  batchResultsPageSchema,
  webhookDeliveriesSchema,
} from '../../shared/http/batch-openapi.js';
import { renderedRegExp } from '../../shared/http/json-schema-pattern.js';
import { SERVICE_VERSION } from '../../shared/version.js';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  example?: string;
  schema: { pattern?: string; minLength?: number; maxLength?: number; enum?: string[] };
}
type Reference = { $ref: string };
interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, Reference>;
}
interface DocumentedOperation {
  operationId: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> } | Reference>;
}
interface OpenApiDocument {
  openapi: string;
  info: { version: string };
  servers?: { url: string }[];
  paths: Record<string, Partial<Record<'get' | 'post', DocumentedOperation>>>;
  components: {
    examples: Record<string, { summary: string; value: unknown }>;
    responses: Record<string, { content: Record<string, MediaType> }>;
  };
}

let harness: Harness;
let batchWorkers: BatchWorkerPool;
let webhookReceiver: Server;
let webhookHost: string;
let document: OpenApiDocument;
/** Where the batch resource's paths start (issue 28); every other path runs a catalog operation. */
const BATCHES = '/v1/batches';

beforeAll(async () => {
  // The service's own operations: the test-only priced operation is no part of its document.
  // A webhook receiver on loopback (allowed by name), so a batch's deliveries are real ones.
  webhookReceiver = createServer((_request, response) => response.writeHead(204).end());
  webhookReceiver.listen(0, '127.0.0.1');
  await once(webhookReceiver, 'listening');
  webhookHost = `127.0.0.1:${(webhookReceiver.address() as AddressInfo).port}`;
  harness = await startHarness({
    operations: catalog,
    env: { BATCH_POLL_MS: '20', UNSAFE_BATCH_URL_ALLOW_HOSTS: webhookHost },
  });
  // The batch routes and workers as `npm start` mounts them, to hold their answers to the document.
  batchWorkers = mountBatches(harness, harness.store).pool;
  const response = await harness.app.request('/openapi.json');
  expect(response.status).toBe(200);
  document = (await response.json()) as OpenApiDocument;
});
afterAll(async () => {
  await batchWorkers?.stop();
  await harness?.close();
  webhookReceiver?.close();
});

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

describe('the batch paths', () => {
  const operationOf = (path: string, method: 'get' | 'post') => {
    const operation = document.paths[path]?.[method];
    if (!operation) throw new Error(`The document has no ${method.toUpperCase()} ${path}.`);
    return operation;
  };
  /** The codes the document lists for a status of a path, from its shared error response. */
  const documentedCodes = (path: string, method: 'get' | 'post', status: number) => {
    const response = operationOf(path, method).responses[String(status)] as Reference | undefined;
    if (!response) return [];
    return examplesOf(
      resolved<{ content: Record<string, MediaType> }>(response).content['application/json'],
    ).map((example) => example.name);
  };
  const call = (apiKey: string, path: string, init: RequestInit = {}) => harness.get(path, apiKey, init);
  const profiles = catalog.find((definition) => definition.id === 'profiles.details') as OperationDefinition;
  const item = Object.fromEntries(
    exampleInput(profiles, profiles.variants[0] as OperationDefinition['variants'][0]),
  );

  it('list the resource: create and list, read, results, deliveries and cancel, under the batches tag with the bearer key', () => {
    const documented = Object.entries(document.paths)
      .filter(([path]) => path.startsWith(BATCHES))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(
          ([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`,
        ),
      )
      .sort();
    expect(documented).toEqual([
      'GET /v1/batches batches.list',
      'GET /v1/batches/{id} batches.get',
      'GET /v1/batches/{id}/deliveries batches.deliveries',
      'GET /v1/batches/{id}/results batches.results',
      'POST /v1/batches batches.create',
      'POST /v1/batches/{id}/cancel batches.cancel',
    ]);
    for (const [, methods] of Object.entries(document.paths).filter(([path]) => path.startsWith(BATCHES)))
      for (const operation of Object.values(methods)) {
        expect(operation.tags).toEqual(['batches']);
        expect((operation as { security?: unknown }).security).toEqual([{ bearerAuth: [] }]);
      }
  });

  it('take the items as a JSON array, JSON Lines or CSV, with the create parameters and the Idempotency-Key header', () => {
    const create = operationOf(BATCHES, 'post');
    // Optional: itemsUrl may name the items instead.
    expect(create.requestBody?.required).toBe(false);
    expect(Object.keys(create.requestBody?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/jsonl',
      'text/csv',
    ]);
    expect(create.requestBody?.content['application/json']?.example).toEqual([item, item]);
    expect((create.parameters ?? []).map(({ name, in: where }) => `${where} ${name}`).sort()).toEqual([
      'header Idempotency-Key',
      'query invalidItems',
      'query itemsUrl',
      'query operation',
      'query webhookUrl',
    ]);
    expect(Object.keys(operationOf(`${BATCHES}/{id}/results`, 'get').responses['200'] as object)).toContain(
      'content',
    );
    const results = operationOf(`${BATCHES}/{id}/results`, 'get').responses['200'] as {
      content: Record<string, MediaType>;
    };
    expect(Object.keys(results.content).sort()).toEqual([
      'application/json',
      'application/jsonl',
      'text/csv',
    ]);
  });

  it('show examples the schemas of the real answers accept', () => {
    const create = operationOf(BATCHES, 'post').responses['201'] as { content: Record<string, MediaType> };
    expect(batchEnvelopeSchema.safeParse(create.content['application/json']?.example).error).toBeUndefined();
    const list = operationOf(BATCHES, 'get').responses['200'] as { content: Record<string, MediaType> };
    expect(batchListSchema.safeParse(list.content['application/json']?.example).error).toBeUndefined();
    const page = operationOf(`${BATCHES}/{id}/results`, 'get').responses['200'] as {
      content: Record<string, MediaType>;
    };
    expect(batchResultsPageSchema.safeParse(page.content['application/json']?.example).error).toBeUndefined();
  });

  it('show example bodies the route accepts, in each media type', async () => {
    const { apiKey } = await harness.provision({ credits: 100 });
    const content = operationOf(BATCHES, 'post').requestBody?.content ?? {};
    for (const [type, media] of Object.entries(content)) {
      const body = typeof media.example === 'string' ? media.example : JSON.stringify(media.example);
      const response = await call(apiKey, `${BATCHES}?operation=profiles.details`, {
        method: 'POST',
        headers: { 'Content-Type': type },
        body,
      });
      expect(response.status, `${type}: ${await response.clone().text()}`).toBe(201);
      const { data } = batchEnvelopeSchema.parse(await response.json());
      expect(data.items.total, type).toBe(2);
    }
  });

  it('describe what the routes answer: a batch run to the end, read, listed, its results and deliveries', {
    timeout: 30_000,
  }, async () => {
    const { apiKey } = await harness.provision({
      credits: 1_000,
      rateLimit: { limit: 100_000, windowSeconds: 60 },
    });
    const lines = `${JSON.stringify(item)}\n${JSON.stringify({ ...item, username: 'nobody-here-at-all' })}\n`;
    const created = await call(
      apiKey,
      `${BATCHES}?operation=profiles.details&webhookUrl=http://${webhookHost}/in`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/jsonl' },
        body: lines,
      },
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const { data: batch } = batchEnvelopeSchema.strict().parse(await created.json());
    let state = batch.state;
    for (let tries = 0; tries < 300 && state !== 'completed'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const read = batchEnvelopeSchema.parse(await (await call(apiKey, `${BATCHES}/${batch.id}`)).json());
      state = read.data.state;
    }
    expect(state).toBe('completed');
    batchListSchema.parse(await (await call(apiKey, BATCHES)).json());
    const page = await call(apiKey, `${BATCHES}/${batch.id}/results?limit=1`, {
      headers: { Accept: 'application/json' },
    });
    const results = batchResultsPageSchema.parse(await page.json());
    expect(results.meta.nextStart).toBe(1);
    const deliveries = await call(apiKey, `${BATCHES}/${batch.id}/deliveries`);
    expect(webhookDeliveriesSchema.parse(await deliveries.json()).data[0]?.type).toBe('batch.completed');
    const jsonl = await (await call(apiKey, `${BATCHES}/${batch.id}/results`)).text();
    for (const line of jsonl.trim().split('\n'))
      expect(batchResultsPageSchema.shape.data.element.safeParse(JSON.parse(line)).error).toBeUndefined();
    const csv = await (
      await call(apiKey, `${BATCHES}/${batch.id}/results`, { headers: { Accept: 'text/csv' } })
    ).text();
    const example = (
      operationOf(`${BATCHES}/{id}/results`, 'get').responses['200'] as {
        content: Record<string, MediaType>;
      }
    ).content['text/csv']?.example as string;
    expect(csv.startsWith(example)).toBe(true);

    // Each refusal a route really answers is documented on its path, with its status and code.
    const refusals: [path: string, method: 'get' | 'post', Response][] = [
      [
        BATCHES,
        'post',
        await call(apiKey, `${BATCHES}?operation=profiles.details`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/plain' },
          body: 'x',
        }),
      ],
      [
        BATCHES,
        'post',
        await call(apiKey, BATCHES, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '[{}]',
        }),
      ],
      [BATCHES, 'post', await call(apiKey, BATCHES, { method: 'PUT' })],
      [BATCHES, 'get', await call(apiKey, `${BATCHES}?limit=0`)],
      [BATCHES, 'get', await call('wrong', BATCHES)],
      [`${BATCHES}/{id}`, 'get', await call(apiKey, `${BATCHES}/bat_1`)],
      [`${BATCHES}/{id}`, 'get', await call(apiKey, `${BATCHES}/bat_00000000000000000000`)],
      [
        `${BATCHES}/{id}/results`,
        'get',
        await call(apiKey, `${BATCHES}/${batch.id}/results`, { headers: { Accept: 'image/png' } }),
      ],
      [
        `${BATCHES}/{id}/cancel`,
        'post',
        await call(apiKey, `${BATCHES}/${batch.id}/cancel`, { method: 'POST' }),
      ],
    ];
    const answered = await Promise.all(
      refusals.map(async ([path, method, response]) => {
        const body = (await response.json()) as { error: { code: string } };
        return `${method} ${path} ${response.status} ${body.error.code}`;
      }),
    );
    expect(answered).toEqual([
      'post /v1/batches 415 unsupported_media_type',
      'post /v1/batches 400 invalid_request',
      'post /v1/batches 405 method_not_allowed',
      'get /v1/batches 400 invalid_request',
      'get /v1/batches 401 invalid_api_key',
      'get /v1/batches/{id} 400 invalid_request',
      'get /v1/batches/{id} 404 resource_not_found',
      'get /v1/batches/{id}/results 406 not_acceptable',
      'post /v1/batches/{id}/cancel 409 batch_finished',
    ]);
    for (const line of answered) {
      const [method, path, status, code] = line.split(' ') as [string, string, string, string];
      expect(documentedCodes(path, method as 'get' | 'post', Number(status)), line).toContain(code);
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

/** The value a `#/components/<type>/<name>` reference names. */
function resolved<T>(reference: Reference): T {
  const [, , type, name] = reference.$ref.split('/');
  const components = document.components as unknown as Record<string, Record<string, T>>;
  const found = components[type as string]?.[name as string];
  if (found === undefined) throw new Error(`Nothing at ${reference.$ref}.`);
  return found;
}

function examplesOf(media: MediaType | undefined): { name: string; summary: string; value: unknown }[] {
  return Object.entries(media?.examples ?? {}).map(([name, reference]) => ({
    name,
    ...resolved<{ summary: string; value: unknown }>(reference),
  }));
}

describe('examples', () => {
  const definitions = new Map<string, OperationDefinition>(
    catalog.map((definition) => [definition.id, definition]),
  );
  const v2Paths = new Map(v2Routes.map((route) => [route.path, route]));
  /** The operation a documented path runs, and whether it is a v2 path. */
  const operationAt = (path: string) => {
    const route = v2Paths.get(path);
    const definition = route
      ? route.operation
      : catalog.find((candidate) => candidate.variants.some((variant) => variant.path === path));
    if (!definition) throw new Error(`No operation at ${path}.`);
    return { definition: definitions.get(definition.id) as OperationDefinition, v2: route !== undefined };
  };

  it('show on every lookup path a 200 answer that its response schema accepts', () => {
    const paths = Object.entries(document.paths).filter(([path]) => !path.startsWith(BATCHES));
    expect(paths.length).toBeGreaterThan(110);
    for (const [path, { get }] of paths) {
      const { definition, v2 } = operationAt(path);
      const ok = (get as DocumentedOperation).responses['200'] as { content: Record<string, MediaType> };
      const [example, ...others] = examplesOf(ok.content['application/json']);
      expect(others, path).toEqual([]);
      const envelope = (v2 ? v2EnvelopeSchema : successEnvelopeSchema)(
        definition.data,
        definition.paging,
        definition.price,
        definition.meta,
      );
      const parsed = envelope.safeParse(example?.value);
      expect(parsed.error, path).toBeUndefined();
    }
  });

  it('show every error status with its own codes, each body valid, a 400 naming a parameter of the path', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.values(methods).map((operation) => [path, operation] as const),
    );
    for (const [path, operation] of operations) {
      const names = new Set((operation.parameters ?? []).map((parameter) => parameter.name));
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status.startsWith('2')) continue;
        const media = resolved<{ content: Record<string, MediaType> }>(response as Reference).content[
          'application/json'
        ];
        const examples = examplesOf(media);
        expect(examples.length, `${path} ${status}`).toBeGreaterThan(0);
        for (const { name, value } of examples) {
          const body = errorBodySchema().parse(value);
          expect(body.error.code, `${path} ${status}`).toBe(name);
          expect(errorTable[body.error.code].status, `${path} ${status}`).toBe(Number(status));
          if (body.error.code !== 'invalid_request') continue;
          const fields = body.error.details.map((detail) => detail.field);
          expect(fields.length, path).toBe(1);
          // A path of no parameter can only be sent one it does not take.
          if (names.size > 0) expect(names.has(fields[0] as string), `${path} ${fields}`).toBe(true);
        }
      }
    }
  });

  it('are what the sample dataset answers to the example inputs today (npm run docs rewrites them)', {
    timeout: 120_000,
  }, async () => {
    const committed = JSON.parse(await readFile(RESPONSE_EXAMPLES_FILE, 'utf8')) as Record<string, unknown>;
    // A cursor is signed afresh at every answer: only its presence is fixed.
    const withoutCursors = (examples: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(examples), (key, value) =>
        key === 'nextCursor' && typeof value === 'string' ? '<cursor>' : value,
      );
    expect(withoutCursors(committed)).toEqual(withoutCursors(await recordResponseExamples()));
  });
});

describe('the version', () => {
  it('is the one /healthz reports', async () => {
    const health = (await (await harness.app.request('/healthz')).json()) as { version: string };
    expect(document.info.version).toBe(SERVICE_VERSION);
    expect(health.version).toBe(document.info.version);
  });
});

describe('GET /', () => {
  it('answers a JSON index of the entry points, free and without a key', async () => {
    const response = await harness.app.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('vary')).toBe('Accept');
    const base = harness.config.PUBLIC_BASE_URL;
    expect(await response.json()).toEqual({
      name: 'lookup-service',
      version: SERVICE_VERSION,
      docs: `${base}/docs`,
      openapi: `${base}/openapi.json`,
      mcp: `${base}/mcp`,
      health: `${base}/healthz`,
    });
    const head = await harness.app.request('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('sends a browser to /docs', async () => {
    const response = await harness.app.request('/', {
      headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${harness.config.PUBLIC_BASE_URL}/docs`);
    expect((await harness.app.request('/', { headers: { Accept: '*/*' } })).status).toBe(200);
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
