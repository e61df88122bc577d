/**
 * Writes a StoreSnapshot into an empty SQLite store in one transaction, for `admin migrate`, and
 * marks the store as migrated.
 */
import { MIGRATION_SETTING, type StoreSnapshot } from '../migration.js';
import { insertAccount, insertAudit } from './sqlite-accounts.js';
import { insertKey } from './sqlite-api-keys.js';
import { insertCredit, insertInflight, insertLedger } from './sqlite-billing.js';
import type { SqliteStore } from './sqlite-store.js';

export function importSnapshot(store: SqliteStore, snapshot: StoreSnapshot, at: string): void {
  const { database } = store;
  database.transaction(() => {
    const existing = Number(database.statement('SELECT count(*) AS accounts FROM accounts').get()?.accounts);
    if (existing > 0) {
      throw new Error(
        `${database.path} already holds ${existing} account(s); migrate only into a new store.`,
      );
    }
    for (const account of snapshot.accounts) insertAccount(database, account);
    for (const key of snapshot.keys) insertKey(database, key);
    const balance = database.statement(
      'INSERT INTO balances (account_id, balance, granted) VALUES (?, ?, ?)',
    );
    for (const row of snapshot.balances) balance.run(row.accountId, row.balance, row.granted);
    for (const entry of snapshot.ledger) insertLedger(database, entry, 'IGNORE');
    for (const entry of snapshot.inflight) insertInflight(database, entry);
    for (const entry of snapshot.credits) insertCredit(database, entry);
    for (const entry of snapshot.audit) insertAudit(database, entry);
    const setting = database.statement('INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)');
    for (const { name, value } of snapshot.settings) setting.run(name, value);
    setting.run(MIGRATION_SETTING, at);
  });
}
