/**
 * Every /api/v2 route, listed or extension, through the real service: a success in the v2 envelope
 * whose data deep-equals the v1 data of the same lookup (where v1 has the operation), a 404 for an
 * identifier that matches nothing, a bad parameter answered with its detail (the same error as v1's),
 * and X-API-Key missing or wrong → 401.
 * Routes whose lookups need outside servers (mail servers, a browser) are checked for their refusals
 * here and for their successes in test/v2/outside-servers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import { v2EnvelopeSchema } from '../../schemas/envelope.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';
import { unknownIdentifiers } from '../support/sample-inputs.js';
import { selfContained, v2SampleRequest } from '../support/v2-inputs.js';

const file = harnessForFile({ credits: 10_000 });

const v2 = (url: string, headers: Record<string, string> = { 'X-API-Key': file.apiKey }) =>
  file.harness.app.request(url, { headers });
const v1 = (url: string) => file.harness.get(url, file.apiKey);

const withBogus = (url: string) => `${url}${url.includes('?') ? '&' : '?'}bogus=1`;

it('routes every catalog operation: its listed v2 paths, or one extension derived from its v1 path', () => {
  for (const operation of catalog as readonly OperationDefinition[]) {
    const routes = v2Routes.filter((route) => route.operation === operation);
    if (operation.v2?.length)
      expect(routes.map((route) => route.extension)).toEqual(operation.v2.map(() => false));
    else expect(routes.map((route) => route.extension)).toEqual([true]);
  }
  expect(v2Routes.filter((route) => !route.extension)).toHaveLength(
    (catalog as readonly OperationDefinition[]).reduce(
      (sum, operation) => sum + (operation.v2?.length ?? 0),
      0,
    ),
  );
});

const cases = (routes: typeof v2Routes) => routes.map((route) => [route.path, route] as const);
/** Routes whose lookup runs here (the others need mail servers or a browser). */
const runnable = v2Routes.filter((route) => selfContained.has(route.operation.id));
/** Routes that look something up by an identifier (searches answer an empty success instead). */
const identified = v2Routes.filter(
  (route) => route.identifier !== undefined && route.operation.identifiers.length > 0,
);

/** Routes of operations v1 serves too; the others are of the v2 listing only (test/v2/listing-only.test.ts). */
const mirrored = v2Routes.filter((route) => route.operation.variants.length > 0);

describe('a success', () => {
  it.each(cases(runnable))('%s answers in the v2 envelope', async (_, route) => {
    const operation = route.operation;
    const sample = v2SampleRequest(route);
    const response = await v2(sample.url);
    expect(response.status).toBe(200);
    const body = v2EnvelopeSchema(operation.data, operation.paging, operation.price, operation.meta)
      .strict()
      .parse(await response.json());
    expect(body.meta.requestId).toBe(response.headers.get('x-request-id'));
    expect(body.meta.operation).toBe(operation.id);
    if (operation.price > 0) expect(response.headers.get('x-credits-remaining')).toMatch(/^\d+$/);
    // Account reads count in a window of their own (ACCOUNT_RATE_LIMIT), not the lookups' one.
    const limit = operation.metering === 'account' ? String(file.harness.config.ACCOUNT_RATE_LIMIT) : '1000';
    expect(response.headers.get('x-ratelimit-limit')).toBe(limit);
  });

  it.each(cases(runnable.filter((route) => mirrored.includes(route))))(
    '%s answers with the data of v1',
    async (_, route) => {
      const sample = v2SampleRequest(route);
      const body = (await (await v2(sample.url)).json()) as { data: unknown };
      const v1Body = (await (await v1(sample.v1Url as string)).json()) as { data: unknown };
      expect(body.data).toEqual(v1Body.data);
    },
  );
});

describe('an unknown identifier', () => {
  it.each(cases(identified))('%s answers 404', async (_, route) => {
    const response = await v2(v2SampleRequest(route, unknownIdentifiers).url);
    await expectError(response, 404, 'resource_not_found');
  });
});

describe('a bad parameter', () => {
  it.each(cases(v2Routes))('%s refuses it with its detail', async (_, route) => {
    const body = await expectError(await v2(withBogus(v2SampleRequest(route).url)), 400, 'invalid_request');
    expect(body.error.details).toContainEqual(
      expect.objectContaining({ field: 'bogus', code: 'unknown_parameter' }),
    );
  });

  it.each(cases(mirrored))('%s refuses it with the same error as v1', async (_, route) => {
    const sample = v2SampleRequest(route);
    const body = await expectError(await v2(withBogus(sample.url)), 400, 'invalid_request');
    const v1Body = await expectError(await v1(withBogus(sample.v1Url as string)), 400, 'invalid_request');
    expect(body.error).toEqual(v1Body.error);
  });
});

describe('the key', () => {
  it.each(cases(v2Routes))('%s answers 401 without X-API-Key and with a wrong one', async (_, route) => {
    const { url } = v2SampleRequest(route);
    const missing = await expectError(await v2(url, {}), 401, 'invalid_api_key');
    expect(missing.error.message).toContain('X-API-Key');
    const wrongKey = `${file.apiKey.slice(0, -4)}${file.apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    await expectError(await v2(url, { 'X-API-Key': wrongKey }), 401, 'invalid_api_key');
  });
});
