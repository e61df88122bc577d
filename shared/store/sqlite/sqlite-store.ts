/**
 * The SQLite adapter of the store port: one database file (Node's built-in `node:sqlite`), shared
 * by the server and the operator CLI through WAL and a busy timeout.
 */
import type { Store } from '../store.js';
import { Database } from './database.js';
import { SqliteAccountStore } from './sqlite-accounts.js';
import { SqliteApiKeyStore } from './sqlite-api-keys.js';
import { SqliteBillingStore } from './sqlite-billing.js';
import {
  SqliteCursorStore,
  SqliteDomainFactsStore,
  SqliteHostSlotStore,
  SqliteOAuthLinkStore,
  SqliteSettingStore,
} from './sqlite-records.js';

export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  readonly database: Database;
}

/** `path`: the database file (created with its folder if missing), or `:memory:`. */
export function createSqliteStore(path: string): SqliteStore {
  const database = new Database(path);
  return {
    kind: 'sqlite',
    database,
    accounts: new SqliteAccountStore(database),
    keys: new SqliteApiKeyStore(database),
    billing: new SqliteBillingStore(database),
    cursors: new SqliteCursorStore(database),
    settings: new SqliteSettingStore(database),
    domains: new SqliteDomainFactsStore(database),
    hostSlots: new SqliteHostSlotStore(database),
    oauthLinks: new SqliteOAuthLinkStore(database),
    async ping() {
      database.statement('SELECT 1').get();
    },
    async sweepExpired(now) {
      return database.write(() => {
        let deleted = 0;
        deleted += Number(database.statement('DELETE FROM cursors WHERE expires_at < ?').run(now).changes);
        deleted += Number(
          database.statement('DELETE FROM email_domains WHERE expires_at < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM host_slots WHERE lease_until < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM lock_step_hosts WHERE expires_at < ?').run(now).changes,
        );
        return deleted;
      });
    },
    async close() {
      database.close();
    },
  };
}
