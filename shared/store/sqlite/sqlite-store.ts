/**
 * The SQLite adapter of the store port: one database file (Node's built-in `node:sqlite`), shared
 * by the server and the operator CLI through WAL, every write waiting for the other's lock without
 * blocking (database.ts).
 */
import type { Store } from '../store.js';
import { Database, type DatabaseOptions } from './database.js';
import { SqliteAccountStore } from './sqlite-accounts.js';
import { SqliteApiKeyStore } from './sqlite-api-keys.js';
import { SqliteBatchStore } from './sqlite-batches.js';
import { SqliteBillingStore } from './sqlite-billing.js';
import { SqliteConsoleSessionStore } from './sqlite-console-sessions.js';
import { SqliteCursorStore } from './sqlite-cursors.js';
import { SqliteDomainFactsStore } from './sqlite-domain-facts.js';
import { SqliteHostSlotStore } from './sqlite-host-slots.js';
import { SqliteConnectionStore, SqliteOAuthStateStore } from './sqlite-oauth.js';
import { SqliteOAuthLinkStore } from './sqlite-oauth-links.js';
import { SqlitePasskeyStore } from './sqlite-passkeys.js';
import { SqliteSettingStore } from './sqlite-settings.js';

export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  readonly database: Database;
}

/**
 * Room a billed request's writes may need in fresh pages (a ledger row, an in-flight row and their
 * index entries land on the last pages of growing tables): four pages of the default 4 KiB.
 */
const HEARTBEAT_ROOM = 'x'.repeat(4 * 4096);

/**
 * The health check's write, failing the way billing's writes fail. Inside the group commit, so it
 * also needs the write lock: it inserts a value as large as a billed request's growth and rolls it
 * back (the file must have or be allowed that room: a full `max_page_count` fails it), then commits a
 * heartbeat row, which the log on disk must take (a full disk fails it, as it fails billing's commits).
 */
function heartbeat(database: Database): void {
  database.statement('SAVEPOINT health_room').run();
  try {
    database.statement("INSERT INTO settings (name, value) VALUES ('health.room', ?)").run(HEARTBEAT_ROOM);
  } finally {
    // A full file ends the whole transaction, savepoints included; the error then fails the write.
    if (database.db.isTransaction) {
      database.statement('ROLLBACK TO health_room').run();
      database.statement('RELEASE health_room').run();
    }
  }
  database
    .statement(
      `INSERT INTO settings (name, value) VALUES ('health.heartbeat', ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    )
    .run(new Date().toISOString());
}

/** `path`: the database file (created with its folder if missing), or `:memory:`. */
export function createSqliteStore(path: string, options: DatabaseOptions = {}): SqliteStore {
  const database = new Database(path, options);
  return {
    kind: 'sqlite',
    database,
    accounts: new SqliteAccountStore(database),
    keys: new SqliteApiKeyStore(database),
    billing: new SqliteBillingStore(database),
    cursors: new SqliteCursorStore(database),
    consoleSessions: new SqliteConsoleSessionStore(database),
    settings: new SqliteSettingStore(database),
    domains: new SqliteDomainFactsStore(database),
    hostSlots: new SqliteHostSlotStore(database),
    oauthLinks: new SqliteOAuthLinkStore(database),
    passkeys: new SqlitePasskeyStore(database),
    oauthState: new SqliteOAuthStateStore(database),
    connections: new SqliteConnectionStore(database),
    batches: new SqliteBatchStore(database),
    async ping() {
      // Briefly: a lock longer than this is reported at once, as billing would soon meet it too.
      await database.write(() => heartbeat(database), 'bestEffort');
    },
    async sweepExpired(now) {
      return database.write(() => {
        let deleted = 0;
        deleted += Number(database.statement('DELETE FROM cursors WHERE expires_at < ?').run(now).changes);
        deleted += Number(
          database.statement('DELETE FROM console_sessions WHERE expires_at < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM email_domains WHERE expires_at < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM host_slots WHERE lease_until < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM lock_step_hosts WHERE expires_at < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM passkey_challenges WHERE expires_at < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM oauth_state WHERE expires_at < ?').run(now).changes,
        );
        deleted += Number(
          database.statement('DELETE FROM batch_idempotency WHERE expires_at < ?').run(now).changes,
        );
        return deleted;
      });
    },
    async close() {
      database.close();
    },
  };
}
