/**
 * Opens the SQLite database file: WAL (readers never block the writer, and the operator CLI can
 * use the file while the server runs) and the schema, created or upgraded by `PRAGMA user_version`;
 * and queues every write (see `write`), so waiting for another process's lock never blocks the
 * event loop: SQLite's own busy wait is synchronous, so it is kept to a few milliseconds, and longer
 * waits are retried on timers, up to a bound, after which the write fails with StoreBusyError. A
 * server's store checkpoints on a thread of its own once busy (`backgroundCheckpoints`).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreBusyError } from '../store.js';
import { DatabaseSync } from './node-sqlite.js';
import { type CheckpointSchedule, WalCheckpointer } from './wal-checkpointer.js';

/**
 * SQLite's synchronous busy wait for one attempt: absorbs the momentary locks of normal work (another
 * process's commit, a checkpoint) and is too short for the event loop to notice.
 */
const LOCK_ATTEMPT_WAIT_MS = 5;
/** While opening, before anything is served, a synchronous wait holds nobody up. */
const OPEN_BUSY_TIMEOUT_MS = 5_000;
/** Retries of a locked write start this soon and back off, doubling, to at most the last. */
const RETRY_FIRST_DELAY_MS = 5;
const RETRY_MAX_DELAY_MS = 100;

/**
 * How long a write waits, in all, for another process to let go of the lock. A billed admission that
 * waits this long answers 503 (retryable, nothing charged): 2 s is far above any lock of normal work
 * (the CLI's and the server's transactions last milliseconds) and below the patience of a client
 * with a 5–10 s timeout, who is better served by a prompt 503 than by a hang. The operator CLI
 * passes its own, longer wait (open-store.ts).
 */
export const DEFAULT_LOCK_WAIT_MS = 2_000;
/**
 * Writes whose loss costs nobody a credit (a free call's rate-window count and usage record, learned
 * mail-host facts, the health check's heartbeat) wait at most this long: they never hold up an answer.
 */
export const BEST_EFFORT_LOCK_WAIT_MS = 100;

/** `required`: waits up to the database's lock wait; `bestEffort`: see BEST_EFFORT_LOCK_WAIT_MS. */
export type WriteUrgency = 'required' | 'bestEffort';

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
  // Version 4: the catch-all probe a domain's greylisting has seen (emails/domain-memory.ts).
  `
  ALTER TABLE email_domains ADD COLUMN probe TEXT;
  `,
  // Version 5: the key (or OAuth subject) behind each call, credit entries (grants and adjustments)
  // and the audit log of other account changes, each with time, actor and reason.
  `
  ALTER TABLE inflight ADD COLUMN key_id TEXT;
  ALTER TABLE ledger ADD COLUMN key_id TEXT;
  CREATE TABLE credit_entries (
    account_id TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    amount INTEGER NOT NULL,
    balance INTEGER,
    actor TEXT NOT NULL,
    reason TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, entry_id)
  ) STRICT;
  CREATE INDEX credit_entries_by_time ON credit_entries (account_id, created_at, entry_id);
  CREATE TABLE account_audit (
    account_id TEXT NOT NULL,
    audit_id TEXT NOT NULL,
    action TEXT NOT NULL,
    actor TEXT NOT NULL,
    reason TEXT,
    details TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, audit_id)
  ) STRICT;
  CREATE INDEX account_audit_by_time ON account_audit (account_id, created_at, audit_id);
  `,
  // Version 6: rate windows kept apart from the lookups' one (account reads: GET /v1/account…).
  `
  CREATE TABLE rate_windows (
    account_id TEXT NOT NULL,
    name TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    window_count INTEGER NOT NULL,
    previous_count INTEGER NOT NULL,
    PRIMARY KEY (account_id, name)
  ) STRICT;
  `,
  // Version 7: signed-in browsers of /console (console/console-sessions.ts), by the hash of their id.
  `
  CREATE TABLE console_sessions (
    id_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    method TEXT NOT NULL,
    credential TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  `,
  // Version 8: passkeys that sign in to the console, and the challenges of their ceremonies.
  `
  CREATE TABLE passkeys (
    credential_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    counter INTEGER NOT NULL,
    transports TEXT NOT NULL,
    label TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  ) STRICT;
  CREATE INDEX passkeys_by_account ON passkeys (account_id, created_at);
  CREATE TABLE passkey_challenges (
    id TEXT PRIMARY KEY,
    challenge TEXT NOT NULL,
    purpose TEXT NOT NULL,
    account_id TEXT,
    expires_at INTEGER NOT NULL
  ) STRICT;
  `,
  // Version 9: spend caps per key, and each capped key's spend per UTC day ('YYYY-MM-DD') and month
  // ('YYYY-MM'), counted by the admission that takes the balance (billing/spend-caps.ts).
  `
  ALTER TABLE api_keys ADD COLUMN daily_credit_cap INTEGER;
  ALTER TABLE api_keys ADD COLUMN monthly_credit_cap INTEGER;
  ALTER TABLE inflight ADD COLUMN capped INTEGER;
  CREATE TABLE key_spend (
    account_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    period TEXT NOT NULL,
    spent INTEGER NOT NULL,
    PRIMARY KEY (account_id, key_id, period)
  ) STRICT;
  `,
  // Version 10: the OAuth authorization server's records (oauth/oauth-store.ts): oidc-provider's
  // payloads by model and id, indexed by grant and uid, and the connections customers approved.
  `
  CREATE TABLE oauth_state (
    model TEXT NOT NULL,
    id TEXT NOT NULL,
    payload TEXT NOT NULL,
    grant_id TEXT,
    uid TEXT,
    consumed_at INTEGER,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (model, id)
  ) STRICT;
  CREATE INDEX oauth_state_by_grant ON oauth_state (grant_id) WHERE grant_id IS NOT NULL;
  CREATE INDEX oauth_state_by_uid ON oauth_state (model, uid) WHERE uid IS NOT NULL;
  CREATE TABLE oauth_connections (
    connection_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_name TEXT,
    scopes TEXT NOT NULL,
    daily_credit_cap INTEGER,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT,
    revoked_reason TEXT
  ) STRICT;
  CREATE INDEX oauth_connections_by_account ON oauth_connections (account_id, created_at);
  `,
  // Version 11: bulk lookups (batches/batch-store.ts): batches, their items (inputs and results as
  // JSON text) and the creates' idempotency keys per account. Items are found by batch and index;
  // the partial indexes keep the worker pool's scans (unfinished batches, ended leases) to the rows
  // they want, however many finished batches and done items there are.
  `
  CREATE TABLE batches (
    batch_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    holder_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    state TEXT NOT NULL,
    pause_reason TEXT,
    item_count INTEGER NOT NULL,
    next_index INTEGER NOT NULL,
    succeeded INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    invalid INTEGER NOT NULL,
    credits_charged INTEGER NOT NULL,
    credits_refunded INTEGER NOT NULL,
    webhook_url TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT
  ) STRICT;
  CREATE INDEX batches_by_account ON batches (account_id, created_at, batch_id);
  CREATE INDEX batches_unfinished ON batches (created_at)
    WHERE state IN ('queued', 'running', 'paused');
  CREATE TABLE batch_items (
    batch_id TEXT NOT NULL REFERENCES batches (batch_id) ON DELETE CASCADE,
    item_index INTEGER NOT NULL,
    input TEXT NOT NULL,
    state TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    lease_until INTEGER,
    outcome TEXT,
    result TEXT,
    PRIMARY KEY (batch_id, item_index)
  ) STRICT;
  CREATE INDEX batch_items_by_lease ON batch_items (batch_id, lease_until) WHERE state = 'running';
  CREATE TABLE batch_idempotency (
    account_id TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, key)
  ) STRICT;
  `,
  // Version 12: the batch item a call ran for (transport 'batch'), on its in-flight and ledger rows.
  `
  ALTER TABLE inflight ADD COLUMN batch_id TEXT;
  ALTER TABLE inflight ADD COLUMN item_index INTEGER;
  ALTER TABLE ledger ADD COLUMN batch_id TEXT;
  ALTER TABLE ledger ADD COLUMN item_index INTEGER;
  `,
  // Version 13: batch webhooks (batches/webhooks.ts): each batch's signing secret, and one row per
  // event to deliver with its attempts as JSON text. The partial index keeps the notifier's scan for
  // due deliveries to the pending rows, however many were delivered.
  `
  ALTER TABLE batches ADD COLUMN webhook_secret TEXT;
  CREATE TABLE webhook_deliveries (
    delivery_id TEXT PRIMARY KEY,
    batch_id TEXT NOT NULL REFERENCES batches (batch_id) ON DELETE CASCADE,
    account_id TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts TEXT NOT NULL,
    next_attempt_at INTEGER,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX webhook_deliveries_by_batch ON webhook_deliveries (batch_id, created_at);
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
  `,
];

/** One write of a batch failed on its first, bare run (`Database.commitBatch`). */
class BatchedWriteFailed extends Error {
  constructor(cause: unknown) {
    super('A write of the batch failed; the batch runs again, each write in a savepoint.', { cause });
  }
}

interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** `performance.now()` past which the write stops waiting for a lock. */
  deadline: number;
  waitMs: number;
}

export interface DatabaseOptions {
  /** How long a required write waits for another process's lock (DEFAULT_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /**
   * Checkpoint on a thread of its own once the database has committed
   * BACKGROUND_CHECKPOINTS_AFTER_COMMITS times (wal-checkpointer.ts): for a server's store. Off (the
   * default), SQLite checkpoints inline, as a one-off command's short-lived connection should.
   */
  backgroundCheckpoints?: boolean;
}

/**
 * A server starts its checkpoint thread once this busy: a server that is started and stopped, as
 * most tests do, never pays for a thread.
 */
const BACKGROUND_CHECKPOINTS_AFTER_COMMITS = 200;
/**
 * How the checkpoint thread works (checkpoint-thread.ts): it copies the WAL into the file every half
 * second, and starts the WAL over once it is past 64 MB (about 15 s of a free-call load on one core).
 */
const CHECKPOINT_SCHEDULE: CheckpointSchedule = { intervalMs: 500, restartBytes: 64 * 1024 * 1024 };
/** SQLite's own default, in pages, restored should the checkpoint thread fail. */
const INLINE_CHECKPOINT_PAGES = 1000;

export class Database {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  private readonly lockWaitMs: number;
  /** Writes waiting for the next group commit (see `write`). */
  private pending: QueuedWrite[] = [];
  /** Cancels the next commit attempt, when one is scheduled. */
  private cancelAttempt: (() => void) | undefined;
  private retryDelayMs = RETRY_FIRST_DELAY_MS;
  /** Commits so far while no checkpoint thread runs; undefined once none is to start. */
  private commitsBeforeCheckpointer: number | undefined;
  private checkpointer: WalCheckpointer | undefined;

  /** `path` is a file, or `:memory:` for a database that lives as long as this object. */
  constructor(
    readonly path: string,
    options: DatabaseOptions = {},
  ) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    if (options.backgroundCheckpoints && path !== ':memory:') this.commitsBeforeCheckpointer = 0;
    this.db = new DatabaseSync(path, { timeout: OPEN_BUSY_TIMEOUT_MS });
    this.db.exec('PRAGMA journal_mode = WAL');
    // With WAL, NORMAL loses no committed transaction when the process crashes, only (possibly the
    // last ones) on power loss, and each commit then costs no fsync.
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec('PRAGMA foreign_keys = ON');
    this.migrate();
    this.db.exec(`PRAGMA busy_timeout = ${LOCK_ATTEMPT_WAIT_MS}`);
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
   * Runs `work` as one write transaction, now: for opening and one-off commands, where nobody else
   * is waiting (a locked database fails it after LOCK_ATTEMPT_WAIT_MS). BEGIN IMMEDIATE takes the
   * write lock up front, so two processes never both read a balance and then both write it; the work
   * is synchronous, so nothing else in this process runs in between either.
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
   * shares one BEGIN IMMEDIATE … COMMIT, and a failing one rolls back only itself (see
   * `commitBatch`). A commit writes the pages it changed, and concurrent requests change the same few
   * (an account's balance, the ledger's last page): one commit for many halves a billed request's
   * cost (docs/benchmarks.md). Each promise settles after the COMMIT, so nothing is answered before
   * it is durable, exactly as with a transaction per write.
   *
   * `work` reads and writes this database and nothing else, and returns what it found: a batch in
   * which another write fails runs it again, after rolling back its first run.
   *
   * While another process holds the lock, the batch is retried on a timer (writes queued meanwhile
   * join it); a write still unwritten when its wait (`urgency`) runs out fails with StoreBusyError,
   * having changed nothing.
   */
  write<T>(work: () => T, urgency: WriteUrgency = 'required'): Promise<T> {
    const waitMs =
      urgency === 'required' ? this.lockWaitMs : Math.min(BEST_EFFORT_LOCK_WAIT_MS, this.lockWaitMs);
    return new Promise<T>((resolve, reject) => {
      const deadline = performance.now() + waitMs;
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject, deadline, waitMs });
      if (!this.cancelAttempt) this.scheduleAttempt();
    });
  }

  /** Commits what is queued if the lock is free now; what cannot wait any longer fails. */
  close(): void {
    this.cancelAttempt?.();
    this.commitsBeforeCheckpointer = undefined;
    this.commitPending(true);
    this.checkpointer?.close();
    this.statements.clear();
    this.db.close();
  }

  /** Counts a commit, and starts the checkpoint thread when the database has become busy. */
  private countCommit(): void {
    if (this.commitsBeforeCheckpointer === undefined) return;
    this.commitsBeforeCheckpointer += 1;
    if (this.commitsBeforeCheckpointer < BACKGROUND_CHECKPOINTS_AFTER_COMMITS) return;
    this.commitsBeforeCheckpointer = undefined;
    this.checkpointer = new WalCheckpointer(this.path, CHECKPOINT_SCHEDULE, {
      ready: () => this.db.exec('PRAGMA wal_autocheckpoint = 0'),
      lost: () => {
        this.checkpointer = undefined;
        if (this.db.isOpen) this.db.exec(`PRAGMA wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`);
      },
    });
  }

  /** The next commit attempt: in the next turn of the event loop, or after `delayMs`. */
  private scheduleAttempt(delayMs?: number): void {
    if (delayMs === undefined) {
      const immediate = setImmediate(() => this.commitPending());
      this.cancelAttempt = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(() => this.commitPending(), delayMs);
      this.cancelAttempt = () => clearTimeout(timer);
    }
  }

  private commitPending(closing = false): void {
    this.cancelAttempt = undefined;
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    let outcomes: Array<() => void>;
    try {
      outcomes = this.commitBatch(batch);
    } catch (error) {
      // BEGIN or COMMIT (or a lone write) failed, so none of the batch happened.
      if (isLocked(error) && !closing) {
        this.waitForLock(batch, error);
        return;
      }
      this.retryDelayMs = RETRY_FIRST_DELAY_MS;
      for (const { reject, waitMs } of batch)
        reject(isLocked(error) ? new StoreBusyError(waitMs, error) : error);
      return;
    }
    this.retryDelayMs = RETRY_FIRST_DELAY_MS;
    this.countCommit();
    for (const settle of outcomes) settle();
  }

  /**
   * Runs a batch in one transaction; how to settle each write's promise after the COMMIT. Writes
   * almost never fail, so every write first runs bare: a savepoint around each (SAVEPOINT, RELEASE,
   * and the pages SQLite copies aside for it) was a fifth of a free call's store time
   * (docs/benchmarks.md). Should one fail, the whole transaction rolls back and the batch runs again
   * with each write in a savepoint of its own, so that only the failing write is refused. A lone
   * write needs no savepoint: if it fails, its transaction rolls back.
   */
  private commitBatch(batch: QueuedWrite[]): Array<() => void> {
    if (batch.length === 1) return this.transaction(() => [this.runAlone(batch[0] as QueuedWrite)]);
    try {
      return this.transaction(() => batch.map((queued) => this.runAlone(queued, true)));
    } catch (error) {
      if (!(error instanceof BatchedWriteFailed)) throw error;
    }
    return this.transaction(() => batch.map((queued) => this.runQueued(queued)));
  }

  /**
   * A write run bare; how to settle its promise after the COMMIT. In a batch (`batched`), its
   * failure is a BatchedWriteFailed, which tells `commitBatch` to run the batch again.
   */
  private runAlone({ work, resolve }: QueuedWrite, batched = false): () => void {
    let result: unknown;
    try {
      result = work();
    } catch (error) {
      throw batched ? new BatchedWriteFailed(error) : error;
    }
    return () => resolve(result);
  }

  /** One queued write in its own savepoint; how to settle its promise once the commit is done. */
  private runQueued({ work, resolve, reject }: QueuedWrite): () => void {
    this.statement('SAVEPOINT queued_write').run();
    try {
      const result = work();
      this.statement('RELEASE queued_write').run();
      return () => resolve(result);
    } catch (error) {
      // SQLite ends the whole transaction on some errors (a full disk or file, I/O): none of the
      // batch can commit then, and it fails with that error.
      if (!this.db.isTransaction) throw error;
      this.statement('ROLLBACK TO queued_write').run();
      this.statement('RELEASE queued_write').run();
      return () => reject(error);
    }
  }

  /** Fails the writes whose wait is over; the others try again after a growing delay. */
  private waitForLock(batch: QueuedWrite[], lockError: unknown): void {
    const now = performance.now();
    const waiting = batch.filter((queued) => queued.deadline > now);
    for (const queued of batch)
      if (queued.deadline <= now) queued.reject(new StoreBusyError(queued.waitMs, lockError));
    // Writes queued meanwhile wait behind the older ones, in order.
    this.pending.unshift(...waiting);
    if (this.pending.length === 0) {
      this.retryDelayMs = RETRY_FIRST_DELAY_MS;
      return;
    }
    const soonestDeadline = Math.min(...this.pending.map((queued) => queued.deadline));
    const delay = Math.max(1, Math.min(this.retryDelayMs, Math.ceil(soonestDeadline - now)));
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_DELAY_MS);
    this.scheduleAttempt(delay);
  }

  /** Takes the write lock only when the schema must change, so opening never waits on a lock otherwise. */
  private migrate(): void {
    const version = () =>
      (this.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version() === schema.length) return;
    this.transaction(() => {
      for (let next = version(); next < schema.length; next += 1) this.db.exec(schema[next] as string);
      this.db.exec(`PRAGMA user_version = ${schema.length}`);
    });
  }
}

const SQLITE_BUSY = 5;

/** SQLITE_BUSY, with any extended code (BUSY_RECOVERY, BUSY_SNAPSHOT, BUSY_TIMEOUT). */
function isLocked(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | undefined)?.errcode;
  return typeof code === 'number' && (code & 0xff) === SQLITE_BUSY;
}
