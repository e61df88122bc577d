/**
 * Bulk lookups through `npm start` (issue 28): batches created over HTTP, run by the server's own
 * worker pool through the billed pipeline, read back as JSONL, CSV and paged JSON. Each item's
 * answer is the single call's, the ledger is exact, the account's rate limit is waited out rather
 * than answered 429, running out of credits pauses a batch until credits are granted, a cancelled
 * batch runs no more items, an Idempotency-Key replays or conflicts, and verifications run against
 * a real SMTP server on loopback.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetFixtures } from '../../shared/sources/dataset/fixtures.js';
import { sqlitePath } from '../../shared/store/local-store.js';
import { createSqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import type { BatchState, ResultLine } from '../support/batch-answers.js';
import { type DnsServerHandle, startDnsServer } from '../support/dns-server.js';
import { ADDRESSES, type MailServers, startMailServers } from '../support/mail-servers.js';
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  startServer,
} from '../support/processes.js';
import { knownUsernames } from '../support/sample-inputs.js';

interface Account {
  accountId: string;
  apiKey: string;
}

const PROFILE_PRICE = 2;
const VERIFY_PRICE = 2;
/** One in every twelve items names nobody: a 404, refunded. */
const usernameAt = (index: number) =>
  index % 12 === 11 ? `nobody-${index}` : (knownUsernames[index % knownUsernames.length] as string);

let dataDir: string;
let server: RunningServer;
let dns: DnsServerHandle;
let mail: MailServers;

/** A webhook receiver on loopback: what it got, and the statuses it answers in turn (then 204). */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const answers = new Map<string, number[]>();
const files = new Map<string, { type: string; text: string }>([
  ['/items.csv', { type: 'text/csv', text: '\uFEFFusername\r\nwei-zhang\r\n"amelia-hartmann"\r\n' }],
  ['/items', { type: 'application/octet-stream', text: '{"username":"wei-zhang"}\n' }],
]);
let receiver: Server;
let receiverBase: string;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      // GET: an items file for `itemsUrl`; anything else is a webhook delivery.
      if (request.method === 'GET') {
        const served = files.get(path);
        if (!served) return response.writeHead(404).end();
        return response.writeHead(200, { 'Content-Type': served.type }).end(served.text);
      }
      received.push({ path, headers: request.headers, body });
      response.writeHead(answers.get(path)?.shift() ?? 204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const { port } = receiver.address() as AddressInfo;
  receiverBase = `http://127.0.0.1:${port}`;
  mail = await startMailServers();
  dns = await startDnsServer({
    'accept.test': { mx: [[10, 'mx.accept.test']] },
    'mx.accept.test': { a: [ADDRESSES.smtp] },
  });
  dataDir = await freshDataDir();
  server = await startServer(dataDir, {
    DNS_SERVERS: dns.address,
    SMTP_PORT: String(mail.port),
    UNSAFE_SMTP_ALLOW_HOSTS: mail.allowHosts,
    BATCH_POLL_MS: '50',
    // The tests poll batch states often; batch calls count in the account reads' window.
    ACCOUNT_RATE_LIMIT: '100000',
    UNSAFE_BATCH_URL_ALLOW_HOSTS: `127.0.0.1:${port}`,
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2,0.4',
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await dns?.close();
  await mail?.close();
  receiver?.close();
  await cleanUpProcesses();
});

async function newAccount(credits: number, rateLimit = 1_000_000, windowSeconds = 60): Promise<Account> {
  return cli<Account>(
    dataDir,
    ...['accounts', 'create', '--name', `Batches ${credits}`, '--credits', String(credits)],
    ...['--rate-limit', String(rateLimit), '--rate-window-seconds', String(windowSeconds)],
  );
}

function call(account: Account, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${account.apiKey}`, ...init.headers },
  });
}

async function createBatch(
  account: Account,
  query: string,
  items: readonly Record<string, unknown>[],
  headers: Record<string, string> = {},
): Promise<BatchState> {
  const response = await call(account, `/v1/batches?${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(items),
  });
  const body = (await response.json()) as { data: BatchState };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.data;
}

async function stateOf(account: Account, batchId: string): Promise<BatchState> {
  const response = await call(account, `/v1/batches/${batchId}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: BatchState }).data;
}

/** Polls the batch until `done` holds (bounded: fails after `timeoutMs`). */
async function waitFor(
  account: Account,
  batchId: string,
  done: (state: BatchState) => boolean,
  timeoutMs = 60_000,
): Promise<BatchState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await stateOf(account, batchId);
    if (done(state)) return state;
    if (Date.now() > deadline) throw new Error(`Batch ${batchId} never got there: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function resultsOf(account: Account, batchId: string): Promise<ResultLine[]> {
  const response = await call(account, `/v1/batches/${batchId}/results`);
  expect(response.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ResultLine);
}

/** The account's balance and ledger, read from the database file beside the server. */
async function ledgerOf(accountId: string) {
  const store = createSqliteStore(sqlitePath({ DATA_DIR: dataDir } as never));
  try {
    const { balance, pending } = await store.billing.state(accountId);
    return { balance, pending, entries: await store.billing.entries(accountId, { limit: 10_000 }) };
  } finally {
    await store.close();
  }
}

/** What a single call answers, without the parts that differ per request. */
function comparable(body: ResultLine['body']) {
  if (!body) return body;
  const { requestId: _requestId, ...meta } = body.meta ?? {};
  return body.error ? { error: body.error } : { data: body.data, meta };
}

describe('a batch of 1,000 profile lookups', () => {
  it('answers each item as its single call, bills it exactly and waits out the rate limit', {
    timeout: 120_000,
  }, async () => {
    // 250 lookups per 2 s: the batch cannot finish in under 6 s unless it ignores the limit.
    const account = await newAccount(10_000, 250, 2);
    const items = Array.from({ length: 1_000 }, (_, index) => ({ username: usernameAt(index) }));
    const started = Date.now();
    const created = await createBatch(account, 'operation=profiles.details', items);
    expect(created).toMatchObject({ state: 'queued', items: { total: 1_000, pending: 1_000 } });

    const finished = await waitFor(account, created.id, (state) => state.state === 'completed');
    const elapsedMs = Date.now() - started;
    const failed = items.filter((_, index) => index % 12 === 11).length;
    expect(finished.items).toEqual({
      total: 1_000,
      succeeded: 1_000 - failed,
      failed,
      invalid: 0,
      pending: 0,
    });
    expect(finished.credits).toEqual({
      charged: (1_000 - failed) * PROFILE_PRICE,
      refunded: failed * PROFILE_PRICE,
    });
    expect(elapsedMs).toBeGreaterThanOrEqual(6_000);

    const lines = await resultsOf(account, created.id);
    expect(lines.map((line) => line.index)).toEqual(items.map((_, index) => index));
    expect(lines.filter((line) => line.status === 429)).toEqual([]);

    // Item by item, the single call's answer (one single call per distinct input, after the batch).
    const singles = new Map<string, ResultLine['body']>();
    for (const username of new Set(items.map((item) => item.username))) {
      const path = `/v1/profiles/details/by-username?username=${encodeURIComponent(username)}`;
      // The single calls share the account's rate limit too: a 429 is waited out, as the batch does.
      let response = await call(account, path);
      for (let tries = 0; response.status === 429 && tries < 10; tries += 1) {
        await new Promise((resolve) =>
          setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000),
        );
        response = await call(account, path);
      }
      singles.set(username, (await response.json()) as ResultLine['body']);
    }
    for (const line of lines) {
      const single = singles.get(line.input.username as string);
      expect(comparable(line.body), `item ${line.index}`).toEqual(comparable(single ?? null));
      expect(line.outcome).toBe(line.body?.error ? 'failed' : 'succeeded');
    }

    const { balance, pending, entries } = await ledgerOf(account.accountId);
    const singleCharges = [...singles.values()].filter((body) => !body?.error).length * PROFILE_PRICE;
    expect(pending).toEqual([]);
    expect(balance).toBe(10_000 - finished.credits.charged - singleCharges);
    const batchEntries = entries.filter((entry) => entry.transport === 'batch');
    expect(entries).toHaveLength(1_000 + singles.size);
    expect(batchEntries).toHaveLength(1_000);
    // Each entry names its batch and item: every item once.
    expect(new Set(batchEntries.map((entry) => entry.batchItem?.batchId))).toEqual(new Set([created.id]));
    expect(batchEntries.map((entry) => entry.batchItem?.index).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      items.map((_, index) => index),
    );
    expect(batchEntries.filter((entry) => entry.status === 'charged')).toHaveLength(1_000 - failed);
    expect(batchEntries.filter((entry) => entry.status === 'refunded')).toHaveLength(failed);
  });
});

describe('a batch of 200 email verifications against a loopback SMTP server', () => {
  it('answers each address as its single verification and bills it', { timeout: 120_000 }, async () => {
    const account = await newAccount(10_000);
    const addresses = [
      'jane@accept.test',
      'mjansen@accept.test',
      'nobody@accept.test',
      'renee.vanderberg@accept.test',
    ];
    const items = Array.from({ length: 200 }, (_, index) => ({ email: addresses[index % addresses.length] }));
    const created = await createBatch(account, 'operation=emails.verify', items);
    const finished = await waitFor(account, created.id, (state) => state.state === 'completed');
    expect(finished.items).toMatchObject({ total: 200, succeeded: 200, pending: 0 });
    expect(finished.credits).toEqual({ charged: 200 * VERIFY_PRICE, refunded: 0 });

    const lines = await resultsOf(account, created.id);
    const singles = new Map<string, ResultLine['body']>();
    for (const email of addresses) {
      const response = await call(account, `/v1/emails/verify?email=${encodeURIComponent(email)}`);
      singles.set(email, (await response.json()) as ResultLine['body']);
    }
    for (const line of lines) {
      const single = singles.get(line.input.email as string) as ResultLine['body'];
      const { checkedAt: _batchTime, ...batchData } = (line.body?.data ?? {}) as Record<string, unknown>;
      const { checkedAt: _singleTime, ...singleData } = (single?.data ?? {}) as Record<string, unknown>;
      expect(batchData, `item ${line.index}`).toEqual(singleData);
    }
    expect(mail.rcpts.filter((rcpt) => addresses.includes(rcpt)).length).toBeGreaterThan(0);
  });
});

describe('credits', () => {
  it('pauses a batch that runs out of credits and resumes it once credits are granted', {
    timeout: 60_000,
  }, async () => {
    const account = await newAccount(5 * PROFILE_PRICE);
    const items = Array.from({ length: 12 }, () => ({ username: datasetFixtures.richProfile.username }));
    const created = await createBatch(account, 'operation=profiles.details', items);
    const paused = await waitFor(account, created.id, (state) => state.state === 'paused');
    expect(paused).toMatchObject({
      pauseReason: 'insufficient_credits',
      items: { succeeded: 5, pending: 7 },
    });
    expect((await ledgerOf(account.accountId)).balance).toBe(0);

    await cli(dataDir, 'credits', 'grant', account.accountId, String(7 * PROFILE_PRICE));
    const finished = await waitFor(account, created.id, (state) => state.state === 'completed');
    expect(finished).toMatchObject({ pauseReason: null, items: { succeeded: 12, pending: 0 } });
    expect(finished.credits.charged).toBe(12 * PROFILE_PRICE);
    const { balance, entries } = await ledgerOf(account.accountId);
    expect(balance).toBe(0);
    expect(entries.filter((entry) => entry.status === 'charged')).toHaveLength(12);
  });
});

describe('cancel', () => {
  it('runs no more items once cancelled, and cancelling again answers the same', {
    timeout: 60_000,
  }, async () => {
    // Two lookups per minute: the batch is still running when it is cancelled.
    const account = await newAccount(1_000, 2, 60);
    const items = Array.from({ length: 20 }, () => ({ username: datasetFixtures.richProfile.username }));
    const created = await createBatch(account, 'operation=profiles.details', items);
    await waitFor(account, created.id, (state) => state.items.succeeded >= 2);
    const cancel = await call(account, `/v1/batches/${created.id}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    const cancelled = ((await cancel.json()) as { data: BatchState }).data;
    expect(cancelled.state).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await stateOf(account, created.id)).items.succeeded).toBe(cancelled.items.succeeded);
    const again = await call(account, `/v1/batches/${created.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(200);
  });

  it('refuses to cancel a completed batch with 409', { timeout: 30_000 }, async () => {
    const account = await newAccount(100);
    const created = await createBatch(account, 'operation=profiles.details', [{ username: 'wei-zhang' }]);
    await waitFor(account, created.id, (state) => state.state === 'completed');
    const response = await call(account, `/v1/batches/${created.id}/cancel`, { method: 'POST' });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('batch_finished');
  });
});

describe('Idempotency-Key', () => {
  it('replays a retried create and refuses the same key with another body', { timeout: 30_000 }, async () => {
    const account = await newAccount(100);
    const items = [{ username: 'wei-zhang' }, { username: 'amelia-hartmann' }];
    const headers = { 'Idempotency-Key': 'create-2026-11-26-a' };
    const first = await createBatch(account, 'operation=profiles.details', items, headers);
    const retry = await call(account, '/v1/batches?operation=profiles.details', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(items),
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(((await retry.json()) as { data: BatchState }).data.id).toBe(first.id);

    const conflict = await call(account, '/v1/batches?operation=profiles.details', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(items.slice(0, 1)),
    });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe('idempotency_conflict');
    const listed = await call(account, '/v1/batches');
    expect(((await listed.json()) as { data: BatchState[] }).data.map((batch) => batch.id)).toEqual([
      first.id,
    ]);
  });
});

describe('what a batch refuses', () => {
  let account: Account;
  beforeAll(async () => {
    account = await newAccount(100);
  });

  const post = (query: string, body: string, contentType = 'application/json') =>
    call(account, `/v1/batches?${query}`, { method: 'POST', headers: { 'Content-Type': contentType }, body });

  it.each([
    ['an unknown operation', 'operation=profiles.nothing', '[{"username":"x1"}]', 400, 'invalid_request'],
    ['an account read', 'operation=account.details', '[{}]', 400, 'invalid_request'],
    ['no operation', '', '[{"username":"wei-zhang"}]', 400, 'invalid_request'],
    [
      'an unknown parameter',
      'operation=profiles.details&colour=red',
      '[{"username":"wei-zhang"}]',
      400,
      'invalid_request',
    ],
    ['an empty list', 'operation=profiles.details', '[]', 400, 'invalid_request'],
    [
      'a body that is not an array',
      'operation=profiles.details',
      '{"username":"wei-zhang"}',
      400,
      'invalid_request',
    ],
    [
      'a webhook URL with credentials',
      'operation=profiles.details&webhookUrl=https%3A%2F%2Fu%3Ap%40example.com%2F',
      '[{"username":"wei-zhang"}]',
      400,
      'invalid_request',
    ],
  ])('refuses %s', async (_name, query, body, status, code) => {
    const response = await post(query, body);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
  });

  it('refuses email find items whose names no spelling can write, as the single call would', async () => {
    const items = [
      { firstName: 'Ivan', lastName: 'Petrov', domain: 'example.com' },
      { firstName: 'ꓮꓲ', lastName: 'Petrov', domain: 'example.com' },
      { firstName: 'Ivan', lastName: '𐌰𐌱', domain: 'example.com' },
    ];
    const refused = await post('operation=emails.find', JSON.stringify(items));
    expect(refused.status).toBe(400);
    const error = ((await refused.json()) as { error: { message: string; details: { field: string }[] } })
      .error;
    expect(error.message).toContain('2 of 3 items are invalid');
    expect(error.details.map((detail) => detail.field)).toEqual(['items[1].firstName', 'items[2].lastName']);
  });

  it('lists invalid items by index, at most 16, unless asked to mark them', async () => {
    const items = Array.from({ length: 40 }, (_, index) => ({ username: index % 2 ? 'wei-zhang' : '!' }));
    const refused = await post('operation=profiles.details', JSON.stringify(items));
    expect(refused.status).toBe(400);
    const error = ((await refused.json()) as { error: { message: string; details: { field: string }[] } })
      .error;
    expect(error.message).toContain('20 of 40 items are invalid');
    expect(error.details).toHaveLength(16);
    expect(error.details[0]?.field).toBe('items[0].username');
    expect(error.details[1]?.field).toBe('items[2].username');

    const marked = await post(
      'operation=profiles.details&invalidItems=mark',
      JSON.stringify(items.slice(0, 4)),
    );
    expect(marked.status).toBe(201);
    const batch = ((await marked.json()) as { data: BatchState }).data;
    expect(batch.items).toMatchObject({ total: 4, invalid: 2 });
    await waitFor(account, batch.id, (state) => state.state === 'completed');
    const lines = await resultsOf(account, batch.id);
    expect(lines.map((line) => [line.outcome, line.status])).toEqual([
      ['invalid', 400],
      ['succeeded', 200],
      ['invalid', 400],
      ['succeeded', 200],
    ]);
  });

  it('takes JSON Lines, and refuses other media types with 415 and an oversized list with 413', async () => {
    const lines = await post(
      'operation=profiles.details',
      '{"username":"wei-zhang"}\n\n{"username":"amelia-hartmann"}\n',
      'application/jsonl',
    );
    expect(lines.status).toBe(201);
    expect(((await lines.json()) as { data: BatchState }).data.items.total).toBe(2);
    expect((await post('operation=profiles.details', 'username\nwei-zhang', 'text/plain')).status).toBe(415);
    const tooMany = Array.from({ length: 10_001 }, () => ({ username: 'wei-zhang' }));
    const refused = await post('operation=profiles.details', JSON.stringify(tooMany));
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it("answers 404 for another account's batch and 405 for a method a path does not take", async () => {
    const other = await newAccount(100);
    const created = await createBatch(other, 'operation=profiles.details', [{ username: 'wei-zhang' }]);
    expect((await call(account, `/v1/batches/${created.id}`)).status).toBe(404);
    expect((await call(account, `/v1/batches/${created.id}/results`)).status).toBe(404);
    const deleted = await call(other, `/v1/batches/${created.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(405);
    expect(deleted.headers.get('allow')).toBe('GET');
    expect(
      (await call(other, '/v1/profiles/details/by-username?username=wei-zhang', { method: 'POST' })).status,
    ).toBe(405);
  });

  it('serves results as CSV with formula cells defused, and as paged JSON', async () => {
    const created = await createBatch(account, 'operation=profiles.details&invalidItems=mark', [
      { username: 'wei-zhang' },
      { username: '=cmd|calc' },
    ]);
    await waitFor(account, created.id, (state) => state.state === 'completed');
    const csv = await call(account, `/v1/batches/${created.id}/results`, { headers: { Accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = (await csv.text()).split('\r\n');
    expect(rows[0]).toBe('index,outcome,status,username,url,publicId,error_code,credit_cost,body');
    expect(rows[1]?.startsWith('0,succeeded,200,wei-zhang,,,,2,"{')).toBe(true);
    expect(rows[2]?.startsWith("1,invalid,400,'=cmd|calc,,,invalid_request,0,")).toBe(true);

    const paged = await call(account, `/v1/batches/${created.id}/results?start=1&limit=1`, {
      headers: { Accept: 'application/json' },
    });
    const page = (await paged.json()) as { data: ResultLine[]; meta: { nextStart: number | null } };
    expect(page.data.map((line) => line.index)).toEqual([1]);
    expect(page.meta.nextStart).toBeNull();
  });
});

describe('a restart by kill -9 in the middle of a batch', () => {
  it('resumes the batch with nothing charged twice and nothing lost', { timeout: 180_000 }, async () => {
    const crashDir = await freshDataDir();
    // A debit left in flight by the crash is refunded 3 s after its admission (a lookup takes ms).
    const env = {
      BATCH_POLL_MS: '50',
      ACCOUNT_RATE_LIMIT: '100000',
      RECONCILE_AFTER_SECONDS: '3',
      RECONCILE_INTERVAL_SECONDS: '1',
    };
    const account = await cli<Account>(
      crashDir,
      ...[
        'accounts',
        'create',
        '--name',
        'Crashing',
        '--credits',
        '10000',
        '--rate-limit',
        '100',
        '--rate-window-seconds',
        '1',
      ],
    );
    const items = Array.from({ length: 400 }, (_, index) => ({ username: usernameAt(index) }));
    let running = await startServer(crashDir, env);
    const at = (path: string, init: RequestInit = {}) =>
      fetch(`${running.url}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${account.apiKey}`, ...init.headers },
      });
    const created = await at('/v1/batches?operation=profiles.details', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(items),
    });
    const batchId = ((await created.json()) as { data: BatchState }).data.id;
    const progress = async () =>
      ((await (await at(`/v1/batches/${batchId}`)).json()) as { data: BatchState }).data;
    const until = async (done: (state: BatchState) => boolean) => {
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
        const state = await progress();
        if (done(state)) return state;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`Batch ${batchId} never got there: ${JSON.stringify(await progress())}`);
    };
    const before = await until((state) => state.items.succeeded + state.items.failed >= 100);
    await running.crash();
    expect(before.state).toBe('running');

    running = await startServer(crashDir, env);
    const finished = await until((state) => state.state === 'completed');
    const failed = items.filter((_, index) => index % 12 === 11).length;
    expect(finished.items).toEqual({ total: 400, succeeded: 400 - failed, failed, invalid: 0, pending: 0 });
    expect(finished.credits.charged).toBe((400 - failed) * PROFILE_PRICE);

    const lines = (await (await at(`/v1/batches/${batchId}/results`)).text()).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as ResultLine).index)).toEqual(
      items.map((_, index) => index),
    );

    // Once reconcile has refunded what the crash left in flight, the ledger holds one charge per
    // successful item and the balance is what they cost.
    const ledger = async () => {
      const store = createSqliteStore(sqlitePath({ DATA_DIR: crashDir } as never));
      try {
        const { balance, pending } = await store.billing.state(account.accountId);
        const entries = await store.billing.entries(account.accountId, { limit: 10_000 });
        const handedOutAgain = (await store.batches.items(batchId, 0, 400)).filter(
          (item) => item.attempt > 1,
        );
        return { balance, pending, entries, handedOutAgain };
      } finally {
        await store.close();
      }
    };
    let settled = await ledger();
    for (const deadline = Date.now() + 30_000; settled.pending.length > 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      settled = await ledger();
    }
    expect(settled.pending).toEqual([]);
    // The crash caught items under a lease (running, or waiting out the rate limit): run again.
    expect(settled.handedOutAgain.length).toBeGreaterThan(0);
    const charged = settled.entries.filter((entry) => entry.status === 'charged');
    expect(charged).toHaveLength(400 - failed);
    // No item charged twice: one charge per successful item, named by its index.
    expect(new Set(charged.map((entry) => entry.batchItem?.index)).size).toBe(400 - failed);
    expect(settled.balance).toBe(10_000 - (400 - failed) * PROFILE_PRICE);
    await running.stop();
  });
});

describe('webhooks', () => {
  interface Delivery {
    type: string;
    state: string;
    attempts: { status: number | null; error: string | null }[];
  }

  let refusals: Promise<Account>;
  beforeAll(() => {
    refusals = newAccount(100);
  });

  const deliveriesOf = async (account: Account, batchId: string) =>
    ((await (await call(account, `/v1/batches/${batchId}/deliveries`)).json()) as { data: Delivery[] }).data;

  it('signs the completion event so the library verifies it with the batch secret', {
    timeout: 30_000,
  }, async () => {
    const account = await newAccount(100);
    const url = `${receiverBase}/signed`;
    const created = await createBatch(
      account,
      `operation=profiles.details&webhookUrl=${encodeURIComponent(url)}`,
      [{ username: 'wei-zhang' }],
    );
    const webhook = (created as BatchState & { webhook: { url: string; secret: string } }).webhook;
    expect(webhook.url).toBe(url);
    expect(webhook.secret).toMatch(/^whsec_/);
    await waitFor(account, created.id, (state) => state.state === 'completed');
    const deadline = Date.now() + 10_000;
    while (!received.some((hit) => hit.path === '/signed') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const hit = received.find((request) => request.path === '/signed') as Received;
    const headers = Object.fromEntries(
      Object.entries(hit.headers).map(([name, value]) => [name, String(value)]),
    );
    const event = new Webhook(webhook.secret.slice('whsec_'.length)).verify(hit.body, headers) as {
      type: string;
      data: BatchState;
    };
    expect(event.type).toBe('batch.completed');
    expect(event.data).toMatchObject({ id: created.id, state: 'completed', items: { succeeded: 1 } });
    expect(() => new Webhook('c2VjcmV0LW9mLWFub3RoZXItYmF0Y2g=').verify(hit.body, headers)).toThrow();
  });

  it('retries a failing receiver and shows every attempt', { timeout: 30_000 }, async () => {
    const account = await newAccount(100);
    answers.set('/flaky', [500, 503]);
    const created = await createBatch(
      account,
      `operation=profiles.details&webhookUrl=${encodeURIComponent(`${receiverBase}/flaky`)}`,
      [{ username: 'wei-zhang' }],
    );
    await waitFor(account, created.id, (state) => state.state === 'completed');
    const deadline = Date.now() + 15_000;
    let deliveries = await deliveriesOf(account, created.id);
    while (deliveries[0]?.state !== 'delivered' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      deliveries = await deliveriesOf(account, created.id);
    }
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ type: 'batch.completed', state: 'delivered' });
    expect(deliveries[0]?.attempts.map((attempt) => attempt.status)).toEqual([500, 503, 204]);
    expect(received.filter((hit) => hit.path === '/flaky')).toHaveLength(3);
  });

  it.each([
    ['a private address', 'https://10.0.0.7/hook'],
    ['the metadata service', 'http://169.254.169.254/latest/meta-data/'],
    ['loopback by name', 'https://localhost/hook'],
    ['loopback on a port not allowed', 'http://127.0.0.1:9/hook'],
  ])('refuses a webhook URL at %s and creates nothing', async (_name, url) => {
    const account = await refusals;
    const response = await call(
      account,
      `/v1/batches?operation=profiles.details&webhookUrl=${encodeURIComponent(url)}`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '[{"username":"wei-zhang"}]',
      },
    );
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { details: { field: string }[] } }).error;
    expect(error.details[0]?.field).toBe('webhookUrl');
    expect(((await (await call(account, '/v1/batches')).json()) as { data: unknown[] }).data).toEqual([]);
  });
});

describe('items in CSV, and items at a URL', () => {
  let account: Account;
  beforeAll(async () => {
    account = await newAccount(1_000);
  });

  it('takes a CSV body with a header row of parameter names', { timeout: 30_000 }, async () => {
    const response = await call(account, '/v1/batches?operation=profiles.details', {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: 'username,url\r\nwei-zhang,\r\namelia-hartmann,\r\n',
    });
    expect(response.status).toBe(201);
    const created = ((await response.json()) as { data: BatchState }).data;
    await waitFor(account, created.id, (state) => state.state === 'completed');
    const lines = await resultsOf(account, created.id);
    expect(lines.map((line) => [line.input, line.status])).toEqual([
      [{ username: 'wei-zhang' }, 200],
      [{ username: 'amelia-hartmann' }, 200],
    ]);
  });

  it('fetches the items from itemsUrl through the egress guard', { timeout: 30_000 }, async () => {
    const itemsAt = `operation=profiles.details&itemsUrl=${encodeURIComponent(`${receiverBase}/items.csv`)}`;
    // Items come from the URL or the body, never both.
    const both = await call(account, `/v1/batches?${itemsAt}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '[{"username":"wei-zhang"}]',
    });
    expect(both.status).toBe(400);
    expect(((await both.json()) as { error: { details: { field: string }[] } }).error.details[0]?.field).toBe(
      'itemsUrl',
    );
    const response = await call(
      account,
      `/v1/batches?operation=profiles.details&itemsUrl=${encodeURIComponent(`${receiverBase}/items.csv`)}`,
      { method: 'POST' },
    );
    expect(response.status).toBe(201);
    const batch = ((await response.json()) as { data: BatchState }).data;
    expect(batch.items.total).toBe(2);
    await waitFor(account, batch.id, (state) => state.state === 'completed');
    expect((await resultsOf(account, batch.id)).map((line) => line.input.username)).toEqual([
      'wei-zhang',
      'amelia-hartmann',
    ]);
  });

  it.each([
    ['a private address', 'https://10.0.0.8/items.csv', 'private'],
    ['the metadata service', 'http://169.254.169.254/latest/items.csv', 'not https'],
    ['loopback by name', 'https://localhost/items.csv', 'loopback'],
    ['an answer that is not an item list', 'RECEIVER/items', 'serve application/json'],
    ['a missing file', 'RECEIVER/nothing.csv', 'answered HTTP 404'],
  ])('refuses an items URL at %s', async (_name, url, reason) => {
    const itemsUrl = url.replace('RECEIVER', receiverBase);
    const response = await call(
      account,
      `/v1/batches?operation=profiles.details&itemsUrl=${encodeURIComponent(itemsUrl)}`,
      {
        method: 'POST',
      },
    );
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { details: { field: string; message: string }[] } })
      .error;
    expect(error.details[0]?.field).toBe('itemsUrl');
    expect(error.details[0]?.message).toContain(reason);
  });
});
