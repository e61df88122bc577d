/**
 * The customer's own account through the real server: GET /v1/account, /v1/account/usage and
 * /v1/account/ledger, their /api/v2/ext forms and the get_account… MCP tools (a real SDK client).
 * Account reads are free, never ledgered, and counted in a window of their own, not the lookups';
 * /v1/account says what the operator CLI says; after a mix of charged, refunded and free calls over
 * v1, v2, MCP and as batch items (the billed pipeline run as a batch worker runs it), usage rows and
 * ledger entries match the calls exactly, each found by the X-Request-Id of its answer, a batch
 * item's naming its batch and index; the ledger pages by cursor; bad input is a clear 400.
 */
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { defaultToolNames } from '../../schemas/operation-definition.js';
import { profileDetails } from '../../schemas/operations/profiles.js';
import type { Transport, UsageRow } from '../../shared/billing/billing-store.js';
import { datasetFixtures } from '../../shared/sources/dataset/fixtures.js';
import { runBatchItem } from '../support/batch-item.js';
import { type Harness, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { connectClient, type ListeningApp, listen } from '../support/mcp-server.js';
import { cleanUpProcesses, cli, freshDataDir } from '../support/processes.js';

afterAll(cleanUpProcesses);
// One CLI process runs in this file, which takes seconds on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

const ACCOUNT_RATE_LIMIT = 30;
const USERNAME = datasetFixtures.richProfile.username;
const MISSING = 'nobody-by-this-name-404';
const META_KEY = 'lookup-service.invalid/lookup';
const PROFILE_PRICE = profileDetails.price;

interface Envelope<T> {
  data: T;
  meta: { creditCost: number; paging?: { hasMore: boolean; nextCursor: string | null } };
}
interface LedgerRow {
  requestId: string;
  time: string;
  operation: string;
  transport: Transport | null;
  status: number | null;
  outcome: string;
  credits: number;
  reason: string | null;
  batchId?: string;
  itemIndex?: number;
}

const clock = new ManualClock(Date.parse('2026-11-26T09:30:00.000Z'));
let dataDir: string;
let harness: Harness;
let app: ListeningApp;

beforeAll(async () => {
  dataDir = await freshDataDir();
  harness = await startHarness({
    clock,
    store: 'sqlite',
    // The file the operator CLI opens on DATA_DIR.
    endpoint: join(dataDir, 'lookup.sqlite'),
    env: { ACCOUNT_RATE_LIMIT: String(ACCOUNT_RATE_LIMIT) },
  });
  app = await listen(harness);
});
afterAll(async () => {
  await app?.close();
  await harness?.close();
});

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function account(apiKey: string, server: Harness = harness) {
  const response = await server.get('/v1/account', apiKey);
  expect(response.status).toBe(200);
  return (await json<Envelope<Record<string, unknown> & { rateLimit: { remaining: number } }>>(response))
    .data;
}

describe('GET /v1/account', () => {
  it('says what the operator CLI says about the same account and key', async () => {
    const { account: created, apiKey, keyId } = await harness.provision({ name: 'Acme', credits: 42 });
    const body = await account(apiKey);
    const shown = await cli<{
      accountId: string;
      name: string;
      status: string;
      balance: number;
      rateLimit: { limit: number; windowSeconds: number };
      keys: Record<string, unknown>[];
    }>(dataDir, 'accounts', 'show', created.accountId);
    const {
      preview: _preview,
      revokedAt: _revoked,
      dailyCreditCap,
      monthlyCreditCap,
      ...cliKey
    } = shown.keys.find((key) => key.keyId === keyId) ?? {};
    expect([dailyCreditCap, monthlyCreditCap]).toEqual([null, null]);
    expect(body).toMatchObject({
      accountId: shown.accountId,
      name: shown.name,
      status: shown.status,
      credits: { balance: shown.balance },
      rateLimit: { limit: shown.rateLimit.limit, windowSeconds: shown.rateLimit.windowSeconds },
      key: { ...cliKey, caps: { daily: null, monthly: null } },
    });
  });

  it('shows a capped key its caps as the CLI issued them, with what is left this UTC day and month', async () => {
    const { account: created } = await harness.provision({ name: 'Capped', credits: 42 });
    const issued = await cli<{ apiKey: string; keyId: string }>(
      dataDir,
      ...['keys', 'issue', created.accountId, '--daily-credit-cap', '10', '--monthly-credit-cap', '200'],
    );
    const lookup = await harness.get(`/v1/profiles/details/by-username?username=${USERNAME}`, issued.apiKey);
    expect(lookup.status).toBe(200);
    const spent = (await json<Envelope<unknown>>(lookup)).meta.creditCost;
    expect(spent).toBe(PROFILE_PRICE);
    const { key } = (await account(issued.apiKey)) as unknown as { key: { caps: unknown } };
    const listed = (await cli<Record<string, unknown>[]>(dataDir, 'keys', 'list', created.accountId)).find(
      (each) => each.keyId === issued.keyId,
    );
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const [year, month] = today.split('-').map(Number) as [number, number];
    expect(key.caps).toEqual({
      daily: {
        cap: listed?.dailyCreditCap,
        left: 10 - spent,
        resetsAt: new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString(),
      },
      monthly: {
        cap: listed?.monthlyCreditCap,
        left: 200 - spent,
        resetsAt: new Date(Date.UTC(year, month, 1)).toISOString(),
      },
    });
  });

  it('lists every operation with its price in force, paths, MCP tool and settlement rule', async () => {
    const { apiKey } = await harness.provision();
    const { prices } = (await account(apiKey)) as unknown as {
      prices: { operation: string; credits: number }[];
    };
    expect(prices.map((price) => price.operation)).toEqual(catalog.map((definition) => definition.id));
    expect(prices.find((price) => price.operation === 'profiles.details')).toEqual({
      operation: 'profiles.details',
      paths: [
        '/v1/profiles/details/by-username',
        '/v1/profiles/details/by-url',
        '/v1/profiles/details/by-id',
      ],
      mcpTool: 'get_profile_details',
      credits: PROFILE_PRICE,
      settlement: 'Charged on a result; refunded on every error, 404 included.',
    });
    expect(prices.find((price) => price.operation === 'emails.disposable')?.credits).toBe(0);
  });

  it('is free and not counted against the lookup rate limit, whose standing it shows', async () => {
    const { account: created, apiKey } = await harness.provision({
      credits: 10,
      rateLimit: { limit: 3, windowSeconds: 60 },
    });
    for (let read = 0; read < 5; read++) {
      const response = await harness.get('/v1/account', apiKey);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-credits-remaining')).toBeNull();
      expect((await json<Envelope<unknown>>(response)).meta.creditCost).toBe(0);
    }
    expect((await account(apiKey)).rateLimit.remaining).toBe(3);
    for (let lookup = 0; lookup < 3; lookup++)
      expect(
        (await harness.get(`/v1/profiles/details/by-username?username=${USERNAME}`, apiKey)).status,
      ).toBe(200);
    expect((await account(apiKey)).rateLimit.remaining).toBe(0);
    expect((await harness.get(`/v1/profiles/details/by-username?username=${USERNAME}`, apiKey)).status).toBe(
      429,
    );
    expect((await account(apiKey)).credits).toEqual({ balance: 10 - 3 * PROFILE_PRICE });
    // Account reads leave no ledger entry: only the lookups (3 charged, 1 refused before admission).
    const entries = await harness.repositories.ledger.entries(created.accountId);
    expect(entries.map((entry) => entry.operation)).toEqual(Array(3).fill('profiles.details'));
  });

  it(`answers 429 past ACCOUNT_RATE_LIMIT account reads a minute, which lookups do not count`, async () => {
    const { apiKey } = await harness.provision({ credits: 10 });
    const statuses: number[] = [];
    for (let read = 0; read <= ACCOUNT_RATE_LIMIT; read++)
      statuses.push((await harness.get('/v1/account/usage', apiKey)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(ACCOUNT_RATE_LIMIT);
    const refused = await harness.get('/v1/account/ledger', apiKey);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json<{ error: { code: string } }>(refused)).error.code).toBe('rate_limit_exceeded');
    // The lookups' window still has all its room.
    expect((await harness.get(`/v1/profiles/details/by-username?username=${USERNAME}`, apiKey)).status).toBe(
      200,
    );
    clock.advance(120_000);
    expect((await harness.get('/v1/account', apiKey)).status).toBe(200);
  });

  it('is open to a key whatever its scopes', async () => {
    const { apiKey } = await harness.provision({ scopes: ['emails'] });
    expect((await harness.get(`/v1/profiles/details/by-username?username=${USERNAME}`, apiKey)).status).toBe(
      403,
    );
    const body = await account(apiKey);
    expect(body.key).toMatchObject({ scopes: ['emails'] });
  });
});

describe.each(storeKinds)(
  'usage and ledger after charged, refunded and free calls over v1, v2, MCP and in a batch, on %s',
  (kind) => {
    // The file's server on SQLite; a second one on DynamoDB (dynalite), for this part only.
    const served = {} as { harness: Harness; app: ListeningApp };
    beforeAll(async () => {
      if (kind === 'sqlite') {
        Object.assign(served, { harness, app });
      } else {
        served.harness = await startHarness({ clock, store: kind });
        served.app = await listen(served.harness);
      }
      await makeCalls();
    });
    afterAll(async () => {
      if (kind === 'sqlite') return;
      await served.app?.close();
      await served.harness?.close();
    });

    interface Call {
      requestId: string;
      operation: string;
      transport: Transport;
      status: number;
      outcome: 'charged' | 'refunded' | 'free';
      credits: number;
      reason: string | null;
      batchItem?: { batchId: string; index: number };
    }
    const calls: Call[] = [];
    let apiKey: string;

    /** The calls, made once the server is up. */
    async function makeCalls() {
      ({ apiKey } = await served.harness.provision({ credits: 100 }));
      const rest = async (path: string) => {
        const response = await served.harness.get(path, apiKey);
        return { status: response.status, requestId: response.headers.get('x-request-id') as string };
      };
      const v2 = async (path: string) => {
        const response = await served.harness.app.request(path, { headers: { 'X-API-Key': apiKey } });
        return { status: response.status, requestId: response.headers.get('x-request-id') as string };
      };
      const client = await connectClient(served.app.url, apiKey);
      const mcp = async (name: string, args: Record<string, string>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        const meta = result._meta?.[META_KEY] as { status: number; headers: Record<string, string> };
        return { status: meta.status, requestId: meta.headers['X-Request-Id'] as string };
      };
      const batchId = `bat_${kind}`;
      const batch = (operationId: string, values: Record<string, string>, index: number) =>
        runBatchItem(served.harness, apiKey, operationId, values, { batchId, index });
      const record = (
        made: { status: number; requestId: string; batchItem?: Call['batchItem'] },
        operation: string,
        transport: Transport,
        credits: number,
      ) => {
        const outcome = credits === 0 ? 'free' : made.status === 200 ? 'charged' : 'refunded';
        const reason = outcome === 'refunded' ? 'resource_not_found' : null;
        calls.push({ ...made, operation, transport, outcome, credits, reason });
      };
      try {
        record(
          await rest(`/v1/profiles/details/by-username?username=${USERNAME}`),
          'profiles.details',
          'rest',
          PROFILE_PRICE,
        );
        record(
          await rest(`/v1/profiles/details/by-username?username=${MISSING}`),
          'profiles.details',
          'rest',
          PROFILE_PRICE,
        );
        record(await rest('/v1/emails/disposable?email=a%40mailinator.com'), 'emails.disposable', 'rest', 0);
        record(await v2(`/api/v2/profiles/${USERNAME}`), 'profiles.details', 'v2', PROFILE_PRICE);
        record(await v2(`/api/v2/profiles/${MISSING}`), 'profiles.details', 'v2', PROFILE_PRICE);
        record(await v2('/api/v2/ext/emails/disposable?email=b%40example.com'), 'emails.disposable', 'v2', 0);
        record(
          await mcp('get_profile_details', { username: USERNAME }),
          'profiles.details',
          'mcp',
          PROFILE_PRICE,
        );
        record(
          await mcp('get_profile_details', { username: MISSING }),
          'profiles.details',
          'mcp',
          PROFILE_PRICE,
        );
        record(
          await batch('profiles.details', { username: USERNAME }, 0),
          'profiles.details',
          'batch',
          PROFILE_PRICE,
        );
        record(
          await batch('profiles.details', { username: MISSING }, 1),
          'profiles.details',
          'batch',
          PROFILE_PRICE,
        );
        record(
          await batch('emails.disposable', { email: 'c@mailinator.com' }, 2),
          'emails.disposable',
          'batch',
          0,
        );
      } finally {
        await client.close();
      }
      expect(calls.map((call) => call.status)).toEqual([
        200, 404, 200, 200, 404, 200, 200, 404, 200, 404, 200,
      ]);
    }

    it('usage has one row per day and operation that sums the calls exactly', async () => {
      const response = await served.harness.get('/v1/account/usage', apiKey);
      expect(response.status).toBe(200);
      const { data } = await json<Envelope<{ from: string; to: string; rows: UsageRow[] }>>(response);
      expect(data.to).toBe('2026-11-26');
      expect(data.from).toBe('2026-10-28');
      const expected = ['emails.disposable', 'profiles.details'].map((operation) => {
        const mine = calls.filter((call) => call.operation === operation);
        const by = (transport: Transport) => mine.filter((call) => call.transport === transport).length;
        return {
          date: '2026-11-26',
          operation,
          calls: mine.length,
          creditsCharged: mine
            .filter((call) => call.outcome === 'charged')
            .reduce((sum, call) => sum + call.credits, 0),
          creditsRefunded: mine
            .filter((call) => call.outcome === 'refunded')
            .reduce((sum, call) => sum + call.credits, 0),
          callsByTransport: { rest: by('rest'), mcp: by('mcp'), v2: by('v2'), batch: by('batch') },
        };
      });
      expect(data.rows).toEqual(expected);
      expect(expected[1]).toMatchObject({
        calls: 8,
        creditsCharged: 4 * PROFILE_PRICE,
        creditsRefunded: 4 * PROFILE_PRICE,
      });
      // The same over v2 and MCP.
      const viaV2 = await served.harness.app.request(
        '/api/v2/ext/account/usage?from=2026-11-26&to=2026-11-26',
        {
          headers: { 'X-API-Key': apiKey },
        },
      );
      expect((await json<{ data: { rows: UsageRow[] } }>(viaV2)).data.rows).toEqual(expected);
      const client = await connectClient(`${served.app.url}?toolsets=account`, apiKey);
      try {
        const result = (await client.callTool({
          name: 'get_account_usage',
          arguments: {},
        })) as CallToolResult;
        expect((result.structuredContent as { data: { rows: unknown } }).data.rows).toEqual(expected);
      } finally {
        await client.close();
      }
    });

    it('the ledger finds each call by the X-Request-Id of its answer, with why it cost what it did', async () => {
      for (const call of calls) {
        const response = await served.harness.get(`/v1/account/ledger?requestId=${call.requestId}`, apiKey);
        expect(response.status).toBe(200);
        const { data, meta } = await json<Envelope<{ entries: LedgerRow[] }>>(response);
        expect(meta).toEqual({ creditCost: 0, paging: { hasMore: false, nextCursor: null } });
        expect(data.entries).toEqual([
          {
            requestId: call.requestId,
            time: new Date(clock.now()).toISOString(),
            operation: call.operation,
            transport: call.transport,
            status: call.status,
            outcome: call.outcome,
            credits: call.credits,
            reason: call.reason,
            connectionId: null,
            // Only a batch item's entry names its batch and index.
            ...(call.batchItem ? { batchId: call.batchItem.batchId, itemIndex: call.batchItem.index } : {}),
          },
        ]);
      }
      const all = await json<Envelope<{ entries: LedgerRow[] }>>(
        await served.harness.get('/v1/account/ledger', apiKey),
      );
      expect(new Set(all.data.entries.map((entry) => entry.requestId))).toEqual(
        new Set(calls.map((call) => call.requestId)),
      );
      const free = await served.harness.get('/v1/account/ledger?operation=emails.disposable', apiKey);
      expect(
        (await json<Envelope<{ entries: LedgerRow[] }>>(free)).data.entries.map((entry) => entry.outcome),
      ).toEqual(['free', 'free', 'free']);
    });

    it('get_account over MCP is listed only on request and answers what /v1/account answers', async () => {
      const listed = await connectClient(served.app.url, apiKey);
      const asked = await connectClient(`${served.app.url}?toolsets=account`, apiKey);
      try {
        expect((await listed.listTools()).tools.map((tool) => tool.name)).toEqual(defaultToolNames(catalog));
        expect(defaultToolNames(catalog)).toHaveLength(35);
        expect((await asked.listTools()).tools.map((tool) => tool.name)).toEqual([
          'get_account',
          'get_account_usage',
          'get_account_ledger',
        ]);
        const result = (await asked.callTool({ name: 'get_account', arguments: {} })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect((result.structuredContent as unknown as Envelope<unknown>).data).toEqual(
          await account(apiKey, served.harness),
        );
      } finally {
        await Promise.all([listed.close(), asked.close()]);
      }
    });
  },
);

describe('ledger paging', () => {
  it('pages newest first by cursor, bound to the account and the filters', async () => {
    const { account: created, apiKey } = await harness.provision();
    const { ledger } = harness.repositories;
    for (let index = 0; index < 105; index++) {
      clock.advance(10);
      await ledger.recordUsage(
        ledger.freeEntry({
          requestId: `req_page${String(index).padStart(3, '0')}`,
          accountId: created.accountId,
          operation: 'emails.disposable',
          transport: 'rest',
        }),
      );
    }
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
      const response = await harness.get(`/v1/account/ledger${query}`, apiKey);
      expect(response.status).toBe(200);
      const body = await json<Envelope<{ entries: LedgerRow[] }>>(response);
      pages.push(body.data.entries.map((entry) => entry.requestId));
      cursor = body.meta.paging?.nextCursor ?? null;
      expect(body.meta.paging?.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([50, 50, 5]);
    const expected = Array.from(
      { length: 105 },
      (_, index) => `req_page${String(104 - index).padStart(3, '0')}`,
    );
    expect(pages.flat()).toEqual(expected);

    const first = await json<Envelope<unknown>>(await harness.get('/v1/account/ledger', apiKey));
    const next = encodeURIComponent(first.meta.paging?.nextCursor as string);
    const otherFilter = await harness.get(
      `/v1/account/ledger?operation=profiles.details&cursor=${next}`,
      apiKey,
    );
    expect(otherFilter.status).toBe(400);
    const { apiKey: otherKey } = await harness.provision();
    expect((await harness.get(`/v1/account/ledger?cursor=${next}`, otherKey)).status).toBe(400);
    clock.advance(16 * 60_000);
    const expired = await harness.get(`/v1/account/ledger?cursor=${next}`, apiKey);
    expect((await json<{ error: { code: string } }>(expired)).error.code).toBe('cursor_expired');
  });
});

describe('hostile input', () => {
  const refusals: [string, string, string][] = [
    ['/v1/account?__proto__=1', '__proto__', 'unknown_parameter'],
    ['/v1/account/usage?constructor=1', 'constructor', 'unknown_parameter'],
    ['/v1/account/usage?from=2026-01-01&to=2026-04-03', 'to', 'invalid_value'],
    ['/v1/account/usage?from=2026-11-27&to=2026-11-26', 'from', 'invalid_value'],
    ['/v1/account/usage?from=2026-02-30', 'from', 'invalid_format'],
    ['/v1/account/usage?from=yesterday', 'from', 'invalid_format'],
    ['/v1/account/usage?to=2026-13-01', 'to', 'invalid_format'],
    ['/v1/account/ledger?from=2026-11-26T25:00:00Z', 'from', 'invalid_format'],
    ['/v1/account/ledger?operation=__proto__', 'operation', 'invalid_format'],
    ['/v1/account/ledger?from=2026-11-26&to=2026-11-25', 'from', 'invalid_value'],
    ['/v1/account/ledger?cursor=not.a.cursor', 'cursor', 'invalid_value'],
  ];
  it.each(refusals)('%s is a 400 naming %s (%s)', async (path, field, code) => {
    const { apiKey } = await harness.provision();
    const response = await harness.get(path, apiKey);
    expect(response.status).toBe(400);
    const body = await json<{
      error: { code: string; details: { field: string; code: string; message: string }[] };
    }>(response);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details).toContainEqual(expect.objectContaining({ field, code }));
    // A sentence that names the parameter, never a schema's phrase after a colon ("from: is not …").
    for (const { message } of body.error.details) expect(message).not.toMatch(/^\w+: /);
  });

  it('a request id of __proto__ finds nothing, and 92 days are allowed', async () => {
    const { apiKey } = await harness.provision();
    const ledger = await harness.get('/v1/account/ledger?requestId=__proto__', apiKey);
    expect((await json<Envelope<{ entries: unknown[] }>>(ledger)).data.entries).toEqual([]);
    expect((await harness.get('/v1/account/usage?from=2026-01-01&to=2026-04-02', apiKey)).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('has the three account endpoints on v1 and v2', async () => {
    const document = await json<{ paths: Record<string, { get?: { description?: string } }> }>(
      await harness.app.request('/openapi.json'),
    );
    for (const path of [
      '/v1/account',
      '/v1/account/usage',
      '/v1/account/ledger',
      '/api/v2/ext/account',
      '/api/v2/ext/account/usage',
      '/api/v2/ext/account/ledger',
    ])
      expect(document.paths[path]?.get, path).toBeDefined();
    expect(document.paths['/v1/account']?.get?.description).toContain('Price: free.');
  });
});
