/**
 * `npm start` reconciles by itself, as the scheduled function does on AWS: debits that a crash left
 * in flight are refunded at the next start-up, and those a running server finds (a settlement write
 * that could not land) on its schedule, with no operator action. The crash is real: `kill -9` of the
 * server's process group while billed lookups run against it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LedgerEntry } from '../../shared/billing/credit-ledger.js';
import { sqlitePath } from '../../shared/store/local-store.js';
import { createSqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  startServer,
} from '../support/processes.js';

afterAll(cleanUpProcesses);

const BILLED = '/v1/profiles/details/by-username?username=amelia-hartmann';
/** Short, for the test: a debit in flight for a second is taken as abandoned. */
const QUICK_RECONCILE = { RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' };

interface Usage {
  balance: number;
  granted: number;
  recent: LedgerEntry[];
}

/** The account's balance and ledger, read from the database file beside the server (as the CLI does). */
async function usageOf(dataDir: string, accountId: string): Promise<Usage> {
  const store = createSqliteStore(sqlitePath({ DATA_DIR: dataDir } as never));
  try {
    const { balance, granted } = await store.billing.state(accountId);
    return { balance, granted, recent: await store.billing.entries(accountId) };
  } finally {
    await store.close();
  }
}

/**
 * Clients sending billed lookups at once: enough that a kill nearly always finds some between their
 * debit and their settlement, now that a lookup settles within a millisecond or two of its debit.
 */
const CLIENTS = 32;

/**
 * Billed lookups from CLIENTS clients at once until `stop` resolves; connection errors are the crash.
 * `answered` counts the answers received so far.
 */
async function load(
  server: RunningServer,
  apiKey: string,
  stop: Promise<void>,
  answered: { count: number },
): Promise<void> {
  let stopping = false;
  void stop.then(() => (stopping = true));
  const client = async () => {
    while (!stopping) {
      await fetch(`${server.url}${BILLED}`, { headers: { Authorization: `Bearer ${apiKey}` } })
        .then((response) => response.arrayBuffer())
        .then(() => (answered.count += 1))
        .catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
}

describe('npm start reconciles by itself', () => {
  let dataDir: string;
  let account: { accountId: string; apiKey: string };
  let server: RunningServer | undefined;

  beforeAll(async () => {
    dataDir = await freshDataDir();
    account = await cli(
      dataDir,
      ...['accounts', 'create', '--name', 'Crashed', '--credits', '100000', '--rate-limit', '1000000'],
    );
  });
  afterAll(() => server?.stop());

  it('refunds at start-up what a kill -9 left in flight', { timeout: 300_000 }, async () => {
    // Kill until the crash catches requests between their debit and their settlement (it nearly always does).
    let pending: LedgerEntry[] = [];
    for (let attempt = 0; attempt < 8 && pending.length === 0; attempt += 1) {
      const crashing = await startServer(dataDir);
      let crash = () => {};
      const crashed = new Promise<void>((resolve) => (crash = resolve));
      const answered = { count: 0 };
      const running = load(crashing, account.apiKey, crashed, answered);
      // Lookups must be flowing when the crash comes: on a busy machine a fresh server's first
      // answers (its dataset opened, its threads started) can take longer than a fixed pause.
      await vi.waitFor(() => expect(answered.count).toBeGreaterThanOrEqual(CLIENTS * 4), {
        timeout: 30_000,
        interval: 50,
      });
      await crashing.crash();
      crash();
      await running;
      pending = (await usageOf(dataDir, account.accountId)).recent.filter(
        (entry) => entry.status === 'pending',
      );
    }
    expect(pending.length).toBeGreaterThan(0);

    server = await startServer(dataDir, { ...QUICK_RECONCILE, LOG_LEVEL: 'info' });
    await vi.waitFor(
      async () => {
        const usage = await usageOf(dataDir, account.accountId);
        const entries = new Map(usage.recent.map((entry) => [entry.requestId, entry]));
        for (const { requestId } of pending)
          expect(entries.get(requestId)).toMatchObject({ status: 'refunded', refundReason: 'reconciled' });
        expect(usage.recent.filter((entry) => entry.status === 'pending')).toEqual([]);
        const charged = usage.recent.filter((entry) => entry.status === 'charged');
        expect(usage.balance).toBe(usage.granted - charged.reduce((sum, entry) => sum + entry.cost, 0));
      },
      { timeout: 20_000, interval: 250 },
    );
    // The log line follows the refunds' commit and crosses a pipe: it may arrive a moment later.
    const { output } = server;
    await vi.waitFor(() => expect(output()).toContain('reconciled in-flight debits'), { timeout: 10_000 });
  });

  it('refunds on its schedule what a running server finds left in flight', { timeout: 60_000 }, async () => {
    expect(server).toBeDefined();
    // Another process debits and never settles: what a settlement write that could not land leaves.
    const other = createSqliteStore(sqlitePath({ DATA_DIR: dataDir } as never));
    const admission = await other.billing.admit({
      accountId: account.accountId,
      requestId: 'req_left_in_flight',
      operation: 'profiles.details',
      cost: 2,
      rateLimit: { limit: 1_000_000, windowSeconds: 60 },
      now: Date.now(),
    });
    expect(admission.outcome).toBe('admitted');
    const before = await other.billing.state(account.accountId);
    expect(before.pending.map((entry) => entry.requestId)).toEqual(['req_left_in_flight']);
    await other.close();

    await vi.waitFor(
      async () => {
        const usage = await usageOf(dataDir, account.accountId);
        expect(usage.recent.find((entry) => entry.requestId === 'req_left_in_flight')).toMatchObject({
          status: 'refunded',
          refundReason: 'reconciled',
        });
        expect(usage.balance).toBe(before.balance + 2);
      },
      { timeout: 20_000, interval: 250 },
    );
  });
});
