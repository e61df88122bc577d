/**
 * Parameters are text: a value (or a name) that is not valid UTF-8 once percent-decoded, that has a
 * broken percent-escape, or that holds a control character is refused with 400 `invalid_request`
 * and an `invalid_format` detail naming the parameter, on every parameter of every family (v1 query,
 * v2 path and query, MCP arguments), before admission: nothing charged, recorded or counted against
 * the rate window. Through the real server over HTTP.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import { type ErrorBody, errorBodySchema } from '../../schemas/errors.js';
import { toolGroups } from '../../schemas/functions.js';
import { buildToolCatalog } from '../../shared/mcp/tool-catalog.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';
import { type ListeningApp, listen, postJsonRpc } from '../support/mcp-server.js';

const file = harnessForFile({
  credits: 1_000_000,
  rateLimit: { limit: 1_000_000, windowSeconds: 60 },
});
let server: ListeningApp;
beforeAll(async () => {
  server = await listen(file.harness);
  return () => server.close();
});

/** One value of each kind that is not text, percent-encoded as a client would send it. */
const SWEEP = ['%ED%A0%80', '%E0%A4%A', 'a%00b', 'a%C2%85b'];

/** Every kind the issue names, for the paths that carry free text. */
const NOT_TEXT: [string, string][] = [
  ['%ED%A0%80', 'a lone surrogate encoded in UTF-8'],
  ['%FF%FE', 'bytes that are never UTF-8'],
  ['a%C3%28%40b.com', 'a lead byte without its continuation'],
  ['%E0%A4%A', 'an escape cut short'],
  ['%', 'a lone percent sign'],
  ['%G1', 'an escape that is not hex'],
  ['a%00b', 'NUL'],
  ['a%09b', 'a tab'],
  ['a%1Bb', 'ESC'],
  ['a%7Fb', 'DEL'],
  ['a%C2%85b', 'NEL, a C1 control'],
];

/** One JSON string of each kind that is not text, for sweeping every tool argument. */
const SWEEP_JSON = ['\ud800', 'a\u0000b', 'a\u0085b'];

/** JSON strings that are not text: lone surrogates and control characters. */
const NOT_TEXT_JSON = ['\ud800', 'a\udc00b', 'a\u0000b', 'a\u001bb', '\u007f', 'a\u0085b'];

const v1 = (url: string, key = file.apiKey) =>
  fetch(`${server.origin}${url}`, { headers: { Authorization: `Bearer ${key}` } });
const v2 = (url: string, key = file.apiKey) =>
  fetch(`${server.origin}${url}`, { headers: { 'X-API-Key': key } });

let nextId = 1;
async function callTool(name: string, args: Record<string, unknown> | string, key = file.apiKey) {
  const argumentsJson = typeof args === 'string' ? args : JSON.stringify(args);
  const body = `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsJson}}}`;
  // Every group asked for, so the tools listed only on request are swept too.
  const response = await postJsonRpc(`${server.url}?toolsets=${[...toolGroups().keys()].join(',')}`, body, {
    Authorization: `Bearer ${key}`,
    'MCP-Protocol-Version': '2025-06-18',
  });
  expect(response.status).toBe(200);
  const message = (await response.json()) as {
    result?: { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, { status: number }> };
    error?: unknown;
  };
  expect(message.error, JSON.stringify(message.error)).toBeUndefined();
  return message.result;
}

/** The error body of a refused tool call, which must be a 400 tool error. */
async function toolRefusal(name: string, args: Record<string, unknown> | string, key?: string) {
  const result = await callTool(name, args, key);
  expect(result?.isError).toBe(true);
  expect(Object.values(result?._meta ?? {})[0]?.status).toBe(400);
  return errorBodySchema().strict().parse(result?.structuredContent);
}

function formatDetail(body: ErrorBody, field: string) {
  return body.error.details.find((detail) => detail.field === field && detail.code === 'invalid_format');
}

describe('every parameter of every v1 path', () => {
  it.each(catalog.flatMap((operation) => operation.variants.map((variant) => ({ operation, variant }))))(
    'refuses values that are not text in each parameter of $variant.path',
    async ({ operation, variant }) => {
      const misses: string[] = [];
      for (const name of Object.keys(operation.query.shape)) {
        for (const raw of SWEEP) {
          const response = await v1(`${variant.path}?${name}=${raw}`);
          const body = response.status === 400 ? errorBodySchema().parse(await response.json()) : undefined;
          if (!body || !formatDetail(body, name)) misses.push(`${name}=${raw} → ${response.status}`);
        }
      }
      expect(misses).toEqual([]);
    },
  );
});

describe('every parameter of every v2 route', () => {
  it.each(v2Routes)('refuses values that are not text in the path and query of $path', async (route) => {
    const { operation } = route;
    const misses: string[] = [];
    const inPath = route.pathParameter;
    const sample = inPath ? route.path.replace(`{${inPath}}`, 'sample-value') : route.path;
    if (inPath) {
      for (const raw of SWEEP) {
        const response = await v2(route.path.replace(`{${inPath}}`, raw));
        const body = response.status === 400 ? errorBodySchema().parse(await response.json()) : undefined;
        if (!body || !formatDetail(body, inPath)) misses.push(`{${inPath}}=${raw} → ${response.status}`);
      }
    }
    for (const name of Object.keys(operation.query.shape)) {
      // The identifier a path carries is not a query parameter of that route.
      if (inPath && name === route.identifier) continue;
      for (const raw of SWEEP) {
        const response = await v2(`${sample}?${name}=${raw}`);
        const body = response.status === 400 ? errorBodySchema().parse(await response.json()) : undefined;
        if (!body || !formatDetail(body, name)) misses.push(`${name}=${raw} → ${response.status}`);
      }
    }
    expect(misses).toEqual([]);
  });
});

describe('every argument of every MCP tool', () => {
  const tools = () => [...buildToolCatalog(file.harness.operations).values()].map((entry) => entry.tool);

  it('refuses JSON strings that are not text in each argument, as a 400 tool error', async () => {
    const misses: string[] = [];
    for (const tool of tools()) {
      for (const name of Object.keys(tool.inputSchema.properties ?? {})) {
        for (const value of SWEEP_JSON) {
          const body = await toolRefusal(tool.name, { [name]: value });
          if (!formatDetail(body, name)) misses.push(`${tool.name} ${name}=${JSON.stringify(value)}`);
        }
      }
    }
    expect(misses).toEqual([]);
  });
});

describe('the details say what was wrong', () => {
  it.each(NOT_TEXT)('refuses keywords=%s (%s) naming keywords', async (raw) => {
    const body = await expectError(await v1(`/v1/companies/search?keywords=${raw}`), 400, 'invalid_request');
    expect(body.error.details).toEqual([
      { field: 'keywords', code: 'invalid_format', message: expect.stringMatching(/^keywords /) },
    ]);
  });

  it.each([
    ['%ED%A0%80', /not UTF-8 text/],
    ['%E0%A4%A', /broken percent-escape "%A"/],
    ['a%00b', /control character U\+0000/],
  ])('explains %s', async (raw, pattern) => {
    const body = await expectError(await v1(`/v1/companies/search?keywords=${raw}`), 400, 'invalid_request');
    expect(body.error.details[0]?.message).toMatch(pattern);
  });

  it.each([
    ['%FF%FE', '%FF%FE'],
    ['a%00b', 'a%00b'],
    ['%E0%A4%A', '%E0%A4%A'],
  ])('refuses the parameter name %s, naming it as sent', async (name, field) => {
    const body = await expectError(
      await v1(`/v1/companies/search?keywords=software&${name}=1`),
      400,
      'invalid_request',
    );
    expect(body.error.details).toEqual([
      { field, code: 'invalid_format', message: expect.stringContaining(`"${field}"`) },
    ]);
  });

  it('still reads + in a query as a space', async () => {
    const spaced = await v1('/v1/companies/search?keywords=northwind+analytics');
    const escaped = await v1('/v1/companies/search?keywords=northwind%20analytics');
    expect(spaced.status).toBe(200);
    const page = (response: unknown) => (response as { data: unknown }).data;
    expect(page(await spaced.json())).toEqual(page(await escaped.json()));
  });

  it.each([
    ['{"keywords":"software","a\\u0000b":"1"}', 'a?b'],
    ['{"keywords":"software","\\ud800":"1"}', '?'],
  ])('names a tool argument %s that is not text printably, as unknown', async (args, field) => {
    const body = await toolRefusal('search_companies_by_keyword', args);
    expect(body.error.details).toEqual([
      { field, code: 'unknown_parameter', message: `Unknown parameter ${field}.` },
    ]);
  });

  it('refuses a lone surrogate in a tool argument, saying so', async () => {
    const body = await toolRefusal('search_companies_by_keyword', '{"keywords":"\\ud800"}');
    expect(body.error.details).toEqual([
      {
        field: 'keywords',
        code: 'invalid_format',
        message: expect.stringMatching(/unpaired surrogate U\+D800/),
      },
    ]);
  });
});

describe('refused before admission: nothing charged, recorded or counted', () => {
  it('leaves the balance, the ledger and the rate window as they were', async () => {
    const limit = 3;
    const { apiKey: key, account } = await file.harness.provision({
      credits: 100,
      rateLimit: { limit, windowSeconds: 60 },
    });
    const statuses: number[] = [];
    for (const [raw] of NOT_TEXT) {
      for (const url of [
        `/v1/companies/search?keywords=${raw}`,
        `/v1/profiles/details/by-username?username=${raw}`,
        `/v1/emails/disposable?email=${raw}`,
        `/v1/search/people?keywords=software&title=${raw}`,
      ]) {
        statuses.push((await v1(url, key)).status);
      }
      statuses.push((await v2(`/api/v2/profiles/${raw}`, key)).status);
      statuses.push((await v2(`/api/v2/search/companies?keywords=${raw}`, key)).status);
    }
    for (const value of NOT_TEXT_JSON) {
      const body = await toolRefusal('get_profile_details', { username: value }, key);
      statuses.push(body.error.code === 'invalid_request' ? 400 : 0);
    }
    expect(new Set(statuses)).toEqual(new Set([400]));
    expect(statuses.length).toBeGreaterThan(limit * 10);

    expect(await file.harness.repositories.ledger.entries(account.accountId)).toEqual([]);
    expect((await file.harness.repositories.ledger.state(account.accountId)).balance).toBe(100);
    const first = await v1(`/v1/profiles/details/by-username?username=${fx.richProfile.username}`, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe(String(limit - 1));
  });
});
