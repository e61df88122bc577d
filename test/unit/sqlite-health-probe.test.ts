/**
 * The SQLite store's health probe fails the way billing's writes fail when the file cannot grow (a
 * `max_page_count` reached, set here on the store's own connection, as an operator's limit would be):
 * a trivial read would still answer then. The full disk and the held lock are tested through the
 * real server (test/integration/store-full.test.ts, store-lock.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../shared/store/sqlite/sqlite-store.js';

let folder: string;
let store: SqliteStore;
afterEach(async () => {
  await store?.close();
  rmSync(folder, { recursive: true, force: true });
});

it('fails while the file has no room for a billed request, and passes once it has', async () => {
  folder = mkdtempSync(join(tmpdir(), 'health-probe-'));
  store = createSqliteStore(join(folder, 'lookup.sqlite'));
  await store.ping();
  const { db } = store.database;
  const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${pages + 1}`);

  await expect(store.ping()).rejects.toThrow(/full/);
  // Billing meets the same wall as its rows grow the ledger.
  const account = 'acct_full';
  await store.billing.open(account);
  await expect(
    (async () => {
      for (let index = 0; index < 1_000; index += 1)
        await store.billing.recordUsage({
          requestId: `req_${index}`,
          accountId: account,
          operation: 'emails.disposable',
          cost: 0,
          status: 'charged',
          httpStatus: 200,
          createdAt: new Date().toISOString(),
          settledAt: new Date().toISOString(),
        });
    })(),
  ).rejects.toThrow(/full/);

  db.exec(`PRAGMA max_page_count = ${pages + 1_000}`);
  await store.ping();
});
