/**
 * The MCP `batches` toolset through `npm start` (issue 28): opt-in by `?toolsets=batches`, a batch
 * started with start_batch in both protocol eras runs on the server's own worker pool and reads back
 * through get_batch exactly as GET /v1/batches/{id}/results answers it; invalid items are refused as
 * a tool error with details; another account's batch is not found; a batch started by an OAuth
 * connection is held by it and fails once the connection is revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultChars } from '../../shared/mcp/tool-results.js';
import { datasetFixtures } from '../../shared/sources/dataset/fixtures.js';
import { sqlitePath } from '../../shared/store/local-store.js';
import { createSqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import type { BatchState as BatchView } from '../support/batch-answers.js';
import { connectEraClient, ERAS, type EraClient } from '../support/mcp-server.js';
import { signedAccessToken } from '../support/oauth-agent.js';
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  startServer,
} from '../support/processes.js';

interface Account {
  accountId: string;
  apiKey: string;
}

interface GetBatchBody {
  data: { batch: BatchView; results: { index: number; outcome: string; body: unknown }[] };
  meta: { paging: { start: number; returned: number; hasMore: boolean; nextStart: number | null } };
}

/** The token issuer and signing secret the server is started with, so tests can mint connection tokens. */
const BASE = 'http://lookup.test';
const SIGNING_SECRET = 'batch tools test secret long enough to sign with';
const BATCH_TOOLS = ['start_batch', 'get_batch', 'cancel_batch'];
const PROFILE_PRICE = 2;
const RESULT_MAX_CHARS = 16_000;
const usernames = [
  datasetFixtures.richProfile.username,
  datasetFixtures.withheldProfile.username,
  'nobody-at-all-here',
  datasetFixtures.emptyProfile.username,
  datasetFixtures.manyPositionsProfile.username,
  ...datasetFixtures.nonEnglishUsernames,
];

let dataDir: string;
let server: RunningServer;
let owner: Account;
const clients: EraClient[] = [];

beforeAll(async () => {
  dataDir = await freshDataDir();
  server = await startServer(dataDir, {
    BATCH_POLL_MS: '50',
    ACCOUNT_RATE_LIMIT: '100000',
    PUBLIC_BASE_URL: BASE,
    OAUTH_SIGNING_SECRET: SIGNING_SECRET,
    // Small enough that a page of a dozen profiles is cut, large enough for any one of them.
    MCP_RESULT_MAX_CHARS: String(RESULT_MAX_CHARS),
  });
  owner = await newAccount(1_000);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server?.stop();
  await cleanUpProcesses();
});

function newAccount(credits: number): Promise<Account> {
  return cli<Account>(
    dataDir,
    'accounts',
    'create',
    '--name',
    `MCP batches ${credits}`,
    '--credits',
    String(credits),
  );
}

async function client(token: string, era: (typeof ERAS)[number] = '2025-11-25', toolsets = 'batches') {
  const connected = await connectEraClient(`${server.url}/mcp?toolsets=${toolsets}`, token, era);
  clients.push(connected);
  return connected;
}

async function toolNames(query: string): Promise<string[]> {
  const listing = await connectEraClient(`${server.url}/mcp${query}`, owner.apiKey, '2025-11-25');
  clients.push(listing);
  return (await listing.listTools()).tools.map((tool) => tool.name);
}

/** Calls get_batch until the batch is finished (bounded). */
async function finished(mcp: EraClient, batchId: string): Promise<BatchView> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await mcp.callTool({ name: 'get_batch', arguments: { batchId, limit: 0 } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { batch } = (result.structuredContent as unknown as GetBatchBody).data;
    if (['completed', 'failed', 'cancelled'].includes(batch.state)) return batch;
    if (Date.now() > deadline) throw new Error(`The batch never finished: ${JSON.stringify(batch)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every result line through get_batch, page after page (small pages, so paging is followed). */
async function linesThroughTool(mcp: EraClient, batchId: string): Promise<unknown[]> {
  const lines: unknown[] = [];
  let start: number | null = 0;
  while (start !== null) {
    const result = await mcp.callTool({ name: 'get_batch', arguments: { batchId, start, limit: 4 } });
    const body = result.structuredContent as unknown as GetBatchBody;
    lines.push(...body.data.results);
    start = body.meta.paging.nextStart;
  }
  return lines;
}

async function linesOverRest(account: Account, batchId: string): Promise<unknown[]> {
  const response = await fetch(`${server.url}/v1/batches/${batchId}/results`, {
    headers: { Authorization: `Bearer ${account.apiKey}` },
  });
  expect(response.status).toBe(200);
  return (await response.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

describe('the batches toolset', () => {
  it('is absent from the default listing and served on request, alone or with other toolsets', async () => {
    const byDefault = await toolNames('');
    expect(byDefault).toContain('get_profile_details');
    for (const name of BATCH_TOOLS) expect(byDefault).not.toContain(name);
    expect(await toolNames('?toolsets=batches')).toEqual(BATCH_TOOLS);
    const combined = await toolNames('?toolsets=batches,profiles');
    expect(combined).toEqual(expect.arrayContaining([...BATCH_TOOLS, 'get_profile_details']));

    const card = (await (await fetch(`${server.url}/.well-known/mcp/server-card.json`)).json()) as {
      _meta: Record<string, unknown>;
    };
    const toolsets = Object.entries(card._meta).find(([key]) => key.endsWith('/toolsets'))?.[1] as {
      name: string;
      tools: string[];
    }[];
    expect(toolsets.find((toolset) => toolset.name === 'batches')?.tools).toEqual(BATCH_TOOLS);
  });
});

describe.each(ERAS)('a batch through the tools (%s)', (era) => {
  it('runs on the server, reads back as the REST results, and bills each item as it runs', {
    timeout: 90_000,
  }, async () => {
    const mcp = await client(owner.apiKey, era);
    const balanceBefore = await balanceOf(owner);
    // One era names the tool, the other the operation id: both are accepted.
    const operation = era === '2025-11-25' ? 'get_profile_details' : 'profiles.details';
    const items = usernames.map((username) => ({ username }));
    const started = await mcp.callTool({ name: 'start_batch', arguments: { operation, items } });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    const view = (started.structuredContent as { data: BatchView }).data;
    expect(view).toMatchObject({ state: 'queued', items: { total: items.length, pending: items.length } });
    const texts = started.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
    expect(texts).toContain('Cost: free, nothing charged.');
    expect(texts).toContain(`Each item is billed when it runs`);

    const done = await finished(mcp, view.id);
    expect(done).toMatchObject({ state: 'completed', items: { succeeded: items.length - 1, failed: 1 } });
    // What the batch says it charged (the miss refunded) is what the account paid, item by item.
    expect(done.credits).toMatchObject({ charged: expect.any(Number), refunded: PROFILE_PRICE });
    expect(done.credits.charged).toBeGreaterThan(0);
    expect(balanceBefore - (await balanceOf(owner))).toBe(done.credits.charged);
    const throughTool = await linesThroughTool(mcp, view.id);
    expect(throughTool).toHaveLength(items.length);
    const overRest = await linesOverRest(owner, view.id);
    expect(throughTool).toEqual(overRest);

    // A page over the result bound is cut, and its paging continues right after the last line kept.
    const whole = await mcp.callTool({ name: 'get_batch', arguments: { batchId: view.id, limit: 100 } });
    const cut = whole.structuredContent as unknown as GetBatchBody;
    expect(resultChars(whole)).toBeLessThanOrEqual(RESULT_MAX_CHARS);
    expect(cut.data.results.length).toBeLessThan(items.length);
    expect(cut.data.results).toEqual(overRest.slice(0, cut.data.results.length));
    expect(cut.meta.paging).toMatchObject({ hasMore: true, nextStart: cut.data.results.length });
  });
});

describe('refusals', () => {
  it('refuses an invalid item list with the items named, and starts nothing', async () => {
    const mcp = await client(owner.apiKey);
    const before = await batchCount(owner);
    const result = await mcp.callTool({
      name: 'start_batch',
      arguments: {
        operation: 'profiles.details',
        items: [{ username: 'someone' }, {}, { username: 'a', x: 1 }],
      },
    });
    expect(result.isError).toBe(true);
    const { error } = result.structuredContent as { error: { code: string; details: { field: string }[] } };
    expect(error.code).toBe('invalid_request');
    expect(error.details.map((detail) => detail.field)).toEqual([
      expect.stringMatching(/^items\[1\]/),
      expect.stringMatching(/^items\[2\]/),
    ]);
    expect(await batchCount(owner)).toBe(before);

    const unknown = await mcp.callTool({
      name: 'start_batch',
      arguments: { operation: 'nothing.here', items: [{}] },
    });
    expect(unknown.isError).toBe(true);
    expect(
      (unknown.structuredContent as { error: { details: { field: string }[] } }).error.details[0]?.field,
    ).toBe('operation');
  });

  it('answers a retried start with the same idempotencyKey with the same batch, and refuses other items under it', async () => {
    const mcp = await client(owner.apiKey);
    const start = (username: string) =>
      mcp.callTool({
        name: 'start_batch',
        arguments: { operation: 'profiles.details', items: [{ username }], idempotencyKey: 'retry-1' },
      });
    const first = (await start(usernames[0] as string)).structuredContent as { data: BatchView };
    const again = (await start(usernames[0] as string)).structuredContent as {
      data: BatchView;
      meta: { replayed: boolean };
    };
    expect(again.data.id).toBe(first.data.id);
    expect(again.meta.replayed).toBe(true);
    const other = await start(usernames[1] as string);
    expect(other.isError).toBe(true);
    expect((other.structuredContent as { error: { code: string } }).error.code).toBe('idempotency_conflict');
  });

  it("answers another account's batch as not found", async () => {
    const mine = await client(owner.apiKey);
    const started = await mine.callTool({
      name: 'start_batch',
      arguments: { operation: 'profiles.details', items: [{ username: usernames[0] }] },
    });
    const batchId = (started.structuredContent as { data: BatchView }).data.id;
    const stranger = await client((await newAccount(10)).apiKey);
    for (const name of ['get_batch', 'cancel_batch']) {
      const result = await stranger.callTool({ name, arguments: { batchId } });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error: { code: string } }).error.code).toBe('resource_not_found');
    }
  });
});

describe('a batch started by an OAuth connection', () => {
  it('is held by the connection, runs with it, and fails once the connection is revoked', {
    timeout: 90_000,
  }, async () => {
    const account = await newAccount(100);
    const tokenOf = async (connectionId: string) => {
      await withStore((store) =>
        store.connections.insert({
          connectionId,
          accountId: account.accountId,
          clientId: 'batch-client',
          clientName: 'batch test',
          scopes: ['profiles'],
          dailyCreditCap: null,
          createdAt: new Date().toISOString(),
          lastUsedAt: null,
          revokedAt: null,
          revokedReason: null,
        }),
      );
      return signedAccessToken(SIGNING_SECRET, {
        issuer: BASE,
        audience: `${BASE}/mcp`,
        accountId: account.accountId,
        connectionId,
      });
    };
    const items = [{ username: usernames[0] }, { username: usernames[1] }];

    const connected = await client(await tokenOf('batch-connection-1'));
    const started = await connected.callTool({
      name: 'start_batch',
      arguments: { operation: 'profiles.details', items },
    });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    const ran = await finished(connected, (started.structuredContent as { data: BatchView }).data.id);
    expect(ran).toMatchObject({ state: 'completed', items: { succeeded: 2 } });
    const entries = await withStore((store) => store.billing.entries(account.accountId, { limit: 100 }));
    const callers = entries.filter((entry) => entry.batchItem).map((entry) => entry.keyId);
    expect(callers).toEqual(['cnx_batch-connection-1', 'cnx_batch-connection-1']);

    // The token is still accepted for a while after the revocation (KEY_CACHE_SECONDS), as a
    // revoked key's is; the batch's items check the connection anew and fail the batch.
    const revoked = await client(await tokenOf('batch-connection-2'));
    await revoked.listTools();
    await withStore((store) =>
      store.connections.revoke('batch-connection-2', new Date().toISOString(), 'customer'),
    );
    const late = await revoked.callTool({
      name: 'start_batch',
      arguments: { operation: 'profiles.details', items },
    });
    expect(late.isError, JSON.stringify(late.content)).toBeFalsy();
    const failed = await finished(connected, (late.structuredContent as { data: BatchView }).data.id);
    expect(failed).toMatchObject({ state: 'failed', items: { succeeded: 0, pending: 2 } });
  });
});

async function balanceOf(account: Account): Promise<number> {
  return (await withStore((store) => store.billing.state(account.accountId))).balance;
}

async function batchCount(account: Account): Promise<number> {
  const response = await fetch(`${server.url}/v1/batches?limit=100`, {
    headers: { Authorization: `Bearer ${account.apiKey}` },
  });
  return ((await response.json()) as { data: unknown[] }).data.length;
}

/** The server's store, opened beside it as the CLI does. */
async function withStore<T>(work: (store: ReturnType<typeof createSqliteStore>) => Promise<T>): Promise<T> {
  const store = createSqliteStore(sqlitePath({ DATA_DIR: dataDir } as never));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
