/**
 * Another process holding SQLite's write lock (an operator's `sqlite3` shell in `BEGIN IMMEDIATE`, a
 * backup) must not stall `npm start`: while it holds the lock, what needs no write (/openapi.json,
 * /docs, a free check) answers in milliseconds, /healthz says at once that the store cannot take a
 * write, and billed lookups answer 503 `service_unavailable` (retryable, with Retry-After) within the
 * store's wait bound, charging nothing. Once the lock is gone everything works again, and the ledger
 * explains the balance. The operator CLI, sharing the file, waits for the lock instead of failing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlitePath } from '../../shared/store/local-store.js';
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  runCli,
  startServer,
} from '../support/processes.js';
import { holdWriteLock } from '../support/sqlite-lock.js';

afterAll(cleanUpProcesses);

const BILLED = '/v1/profiles/details/by-username?username=amelia-hartmann';
const FREE = '/v1/emails/disposable?email=a%40b.com';
/** Generous: these answer in a few ms; today they wait out the 5 s busy timeout (twice for a free check). */
const PROMPT_MS = 1_000;
/** The store's write-wait bound for a billed admission (2 s), plus room for a loaded machine. */
const BILLED_BOUND_MS = 4_000;

interface Timed {
  status: number;
  ms: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

async function timed(server: RunningServer, path: string, apiKey?: string): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, {
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const body = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  return { status: response.status, ms, headers: response.headers, body };
}

interface Usage {
  balance: number;
  recent: { requestId: string; status: string; cost: number }[];
}

describe('a write lock held by another process', () => {
  let dataDir: string;
  let server: RunningServer;
  let account: { accountId: string; apiKey: string };

  beforeAll(async () => {
    dataDir = await freshDataDir();
    server = await startServer(dataDir);
    account = await cli(dataDir, 'accounts', 'create', '--name', 'Locked out', '--credits', '50');
  });
  afterAll(() => server?.stop());

  it('stalls nothing: free answers are prompt, billed ones a quick retryable 503, nothing charged', {
    timeout: 60_000,
  }, async () => {
    const before = await timed(server, BILLED, account.apiKey);
    expect(before.status).toBe(200);
    // The reference is built on first use, which takes a second or two on a busy machine.
    for (const path of ['/openapi.json', '/docs']) expect((await timed(server, path)).status).toBe(200);

    const lock = await holdWriteLock(join(dataDir, 'lookup.sqlite'), 12_000);
    let refused: Timed[];
    try {
      // Billed lookups first: while they wait for the lock, everything else must still be served.
      const waiting = Promise.all([1, 2, 3].map(() => timed(server, BILLED, account.apiKey)));
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const path of ['/openapi.json', '/docs', '/healthz']) {
        const answer = await timed(server, path);
        expect(answer.ms, `${path} took ${Math.round(answer.ms)} ms`).toBeLessThan(PROMPT_MS);
        if (path === '/healthz') {
          // Truthful: the store cannot take a billing write right now.
          expect(answer.status).toBe(503);
          expect(answer.body).toMatchObject({ status: 'unavailable', store: 'unreachable' });
        } else expect(answer.status).toBe(200);
      }
      const free = await timed(server, FREE, account.apiKey);
      expect(free.status).toBe(200);
      expect(free.ms, `the free check took ${Math.round(free.ms)} ms`).toBeLessThan(PROMPT_MS);
      refused = await waiting;
    } finally {
      await lock.release();
    }
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.ms, `a billed lookup took ${Math.round(answer.ms)} ms`).toBeLessThan(BILLED_BOUND_MS);
      expect(answer.body).toMatchObject({ error: { code: 'service_unavailable', retryable: true } });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    // The lock is gone: the store takes writes again.
    expect((await timed(server, '/healthz')).status).toBe(200);
    const after = await timed(server, BILLED, account.apiKey);
    expect(after.status).toBe(200);

    // The two lookups answered 200 were charged; the refused ones left no trace and cost nothing.
    const usage = await cli<Usage>(dataDir, 'usage', account.accountId, '--recent', '100');
    const billed = usage.recent.filter((entry) => entry.cost > 0);
    expect(billed.map((entry) => entry.status)).toEqual(['charged', 'charged']);
    expect(usage.balance).toBe(50 - billed.reduce((sum, entry) => sum + entry.cost, 0));
    const refusedIds = refused.map((answer) => answer.headers.get('x-request-id'));
    expect(usage.recent.filter((entry) => refusedIds.includes(entry.requestId))).toEqual([]);
    expect(billed.map((entry) => entry.requestId).sort()).toEqual(
      [before, after].map((answer) => answer.headers.get('x-request-id')).sort(),
    );
  });

  it('lets the operator CLI wait for a short lock instead of failing', { timeout: 60_000 }, async () => {
    const holdMs = 5_000;
    const lock = await holdWriteLock(sqlitePath({ DATA_DIR: dataDir } as never), holdMs);
    const lockedAt = Date.now();
    const granted = await runCli(dataDir, ['credits', 'grant', account.accountId, '5']);
    const finishedAt = Date.now();
    await lock.release();
    expect(granted, granted.stderr).toMatchObject({ code: 0, stderr: '' });
    const { balance } = await cli<Usage>(dataDir, 'usage', account.accountId);
    expect(JSON.parse(granted.stdout)).toMatchObject({
      accountId: account.accountId,
      balance,
      entry: { amount: 5 },
    });
    // It wrote after the lock was gone: it waited for it.
    expect(finishedAt - lockedAt).toBeGreaterThanOrEqual(holdMs - 200);
  });
});
