/**
 * Opens the SQLite database file: WAL (readers never block the writer, and the operator CLI can
 * use the file while the server runs), a busy timeout instead of immediate "database is locked",
 * and the schema, created or upgraded by `PRAGMA user_version`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from './node-sqlite.js';

/** How long a writer waits for another process's transaction (the CLI's are milliseconds long). */
const BUSY_TIMEOUT_MS = 5_000;

const schema = [
  // Version 1.
  `
  CREATE TABLE accounts (
    account_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    rate_limit INTEGER NOT NULL,
    rate_window_seconds INTEGER NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE TABLE api_keys (
    key_hash TEXT PRIMARY KEY,
    key_id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL,
    preview TEXT NOT NULL,
    label TEXT,
    scopes TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT,
    last_used_at TEXT
  ) STRICT;
  CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);
  CREATE TABLE balances (
    account_id TEXT PRIMARY KEY,
    balance INTEGER NOT NULL,
    granted INTEGER NOT NULL,
    window_start INTEGER,
    window_count INTEGER NOT NULL DEFAULT 0,
    previous_count INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE TABLE inflight (
    account_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    cost INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, request_id)
  ) STRICT;
  CREATE INDEX inflight_by_age ON inflight (created_at);
  CREATE TABLE ledger (
    account_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    cost INTEGER NOT NULL,
    status TEXT NOT NULL,
    http_status INTEGER,
    refund_reason TEXT,
    created_at TEXT NOT NULL,
    settled_at TEXT,
    PRIMARY KEY (account_id, request_id)
  ) STRICT;
  CREATE INDEX ledger_by_time ON ledger (account_id, created_at, request_id);
  CREATE TABLE cursors (
    id TEXT PRIMARY KEY,
    operation TEXT NOT NULL,
    account_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    position TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  CREATE TABLE email_domains (
    domain TEXT PRIMARY KEY,
    catch_all INTEGER NOT NULL,
    mx TEXT,
    pattern TEXT,
    learned_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE host_slots (
    kind TEXT NOT NULL,
    host TEXT NOT NULL,
    slot INTEGER NOT NULL,
    holder TEXT NOT NULL,
    lease_until INTEGER NOT NULL,
    PRIMARY KEY (kind, host, slot)
  ) STRICT;
  `,
  // Version 2: the transport of each call, and OAuth subjects bound to accounts (the MCP endpoint).
  `
  ALTER TABLE inflight ADD COLUMN transport TEXT;
  ALTER TABLE ledger ADD COLUMN transport TEXT;
  CREATE TABLE oauth_links (subject TEXT PRIMARY KEY, account_id TEXT NOT NULL) STRICT;
  `,
  // Version 3: mail hosts that answered pipelined SMTP out of step (emails/domain-memory.ts).
  `
  CREATE TABLE lock_step_hosts (
    host TEXT PRIMARY KEY,
    learned_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  `,
  // Version 4 (5 once merged after the other version 4 of this round): the catch-all probe a
  // domain's greylisting has seen (emails/domain-memory.ts).
  `
  ALTER TABLE email_domains ADD COLUMN probe TEXT;
  `,
];

interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class Database {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  /** Writes waiting for the next group commit (see `write`). */
  private pending: QueuedWrite[] = [];

  /** `path` is a file, or `:memory:` for a database that lives as long as this object. */
  constructor(readonly path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
    this.db.exec('PRAGMA journal_mode = WAL');
    // With WAL, NORMAL loses no committed transaction when the process crashes, only (possibly the
    // last ones) on power loss, and each commit then costs no fsync.
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec('PRAGMA foreign_keys = ON');
    this.migrate();
  }

  /** A prepared statement, prepared once per database. */
  statement(sql: string) {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /**
   * Runs `work` as one write transaction. BEGIN IMMEDIATE takes the write lock up front, so two
   * processes never both read a balance and then both write it; the work is synchronous, so
   * nothing else in this process runs in between either.
   */
  transaction<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  /**
   * Runs `work` in the next group commit: every write queued in the same turn of the event loop
   * shares one BEGIN IMMEDIATE … COMMIT, each in a savepoint of its own, so a failing one rolls back
   * only itself. A commit writes the pages it changed, and concurrent requests change the same few
   * (an account's balance, the ledger's last page): one commit for many halves a billed request's
   * cost (docs/benchmarks.md). Each promise settles after the COMMIT, so nothing is answered before
   * it is durable, exactly as with a transaction per write.
   */
  write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length === 1) setImmediate(() => this.commitPending());
    });
  }

  close(): void {
    if (this.pending.length > 0) this.commitPending();
    this.statements.clear();
    this.db.close();
  }

  private commitPending(): void {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    const outcomes: Array<() => void> = [];
    try {
      this.transaction(() => {
        for (const { work, resolve, reject } of batch) {
          this.statement('SAVEPOINT queued_write').run();
          try {
            const result = work();
            this.statement('RELEASE queued_write').run();
            outcomes.push(() => resolve(result));
          } catch (error) {
            this.statement('ROLLBACK TO queued_write').run();
            this.statement('RELEASE queued_write').run();
            outcomes.push(() => reject(error));
          }
        }
      });
    } catch (error) {
      // BEGIN or COMMIT failed (the database is locked too long, the disk is full): none happened.
      for (const { reject } of batch) reject(error);
      return;
    }
    for (const settle of outcomes) settle();
  }

  private migrate(): void {
    this.transaction(() => {
      const { user_version: version } = this.db.prepare('PRAGMA user_version').get() as {
        user_version: number;
      };
      for (let next = version; next < schema.length; next += 1) this.db.exec(schema[next] as string);
      this.db.exec(`PRAGMA user_version = ${schema.length}`);
    });
  }
}
