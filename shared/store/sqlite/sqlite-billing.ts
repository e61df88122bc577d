/**
 * Billing in SQLite. Each step of the billing port is one transaction (BEGIN IMMEDIATE), so the
 * invariant of billing-store.ts holds after every commit without any reconcile: `admit` counts the
 * window, takes the cost and inserts the in-flight row; `settle` deletes that row, writes the final
 * ledger row and, for a refund, returns the cost. `reconcile` refunds the rows a crash left between
 * the two. A grant or adjustment changes the balance and inserts its `credit_entries` row in one
 * transaction.
 */
import type {
  Admission,
  AdmissionRequest,
  BalanceState,
  BillingStore,
  CreditEntry,
  CreditKind,
  CreditOutcome,
  InflightEntry,
  LedgerEntry,
  LedgerQuery,
  LedgerStatus,
  Settlement,
  SettleResult,
  Transport,
} from '../../billing/billing-store.js';
import { inflightEntryOf } from '../../billing/billing-store.js';
import { currentAllowance, windowStartAt } from '../../limits/rolling-window.js';
import type { Database } from './database.js';

type Row = Record<string, unknown>;

interface BalanceRow {
  balance: number;
  granted: number;
  window_start: number | null;
  window_count: number;
  previous_count: number;
}

export class SqliteBillingStore implements BillingStore {
  constructor(private readonly database: Database) {}

  open(accountId: string, opening?: CreditEntry): Promise<void> {
    return this.database.write(() => {
      const credits = opening?.amount ?? 0;
      this.database
        .statement('INSERT INTO balances (account_id, balance, granted) VALUES (?, ?, ?)')
        .run(accountId, credits, credits);
      if (opening) insertCredit(this.database, { ...opening, balance: credits });
    });
  }

  credit(entry: CreditEntry): Promise<CreditOutcome> {
    return this.database.write((): CreditOutcome => {
      const before = this.balanceRow(entry.accountId)?.balance ?? 0;
      if (before + entry.amount < 0) return { outcome: 'insufficient_credits', balance: before };
      const row = this.database
        .statement(
          `INSERT INTO balances (account_id, balance, granted) VALUES (?, ?, ?)
           ON CONFLICT (account_id) DO UPDATE SET balance = balance + excluded.balance,
             granted = granted + excluded.granted
           RETURNING balance`,
        )
        .get(entry.accountId, entry.amount, entry.amount);
      const applied = { ...entry, balance: row?.balance as number };
      insertCredit(this.database, applied);
      return { outcome: 'applied', entry: applied, balance: applied.balance };
    });
  }

  async credits(accountId: string): Promise<CreditEntry[]> {
    return this.database
      .statement('SELECT * FROM credit_entries WHERE account_id = ? ORDER BY created_at DESC, entry_id DESC')
      .all(accountId)
      .map(toCreditEntry);
  }

  async state(accountId: string): Promise<BalanceState> {
    const row = this.balanceRow(accountId);
    const pending = this.database
      .statement('SELECT * FROM inflight WHERE account_id = ? ORDER BY created_at, request_id')
      .all(accountId)
      .map(toInflight);
    return { balance: row?.balance ?? 0, granted: row?.granted ?? 0, pending };
  }

  /**
   * A free call's admission only counts the rate window, which fails open: it waits for a lock only
   * briefly, so a locked store never holds up a free answer.
   */
  async admit(request: AdmissionRequest): Promise<Admission> {
    const { accountId, cost, rateLimit } = request;
    return this.database.write(
      (): Admission => {
        const row = this.balanceRow(accountId);
        const windowMs = rateLimit.windowSeconds * 1000;
        let now = request.now;
        let windowStart = windowStartAt(now, rateLimit);
        if (row?.window_start != null && row.window_start > windowStart) {
          // Another process's clock is ahead and opened a later window: count in that one.
          windowStart = row.window_start;
          now = Math.max(now, windowStart);
        }
        const sameWindow = row?.window_start === windowStart;
        const previousCount = sameWindow
          ? (row?.previous_count ?? 0)
          : row?.window_start === windowStart - windowMs
            ? (row?.window_count ?? 0)
            : 0;
        const base = { limit: rateLimit.limit, windowMs, windowStart, now, previousCount };
        const window = { ...base, currentCount: sameWindow ? (row?.window_count ?? 0) : 0 };
        if (window.currentCount >= currentAllowance(base)) return { outcome: 'rate_limited', window };
        const balance = row?.balance ?? 0;
        if (cost > 0 && balance < cost) return { outcome: 'insufficient_credits', window, balance };

        this.database
          .statement(
            `INSERT INTO balances (account_id, balance, granted, window_start, window_count, previous_count)
           VALUES (?, 0, 0, ?, ?, ?)
           ON CONFLICT (account_id) DO UPDATE SET balance = balance - ?, window_start = excluded.window_start,
             window_count = excluded.window_count, previous_count = excluded.previous_count`,
          )
          .run(accountId, windowStart, window.currentCount + 1, previousCount, cost);
        if (request.keyUse) {
          this.database
            .statement('UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND account_id = ?')
            .run(request.keyUse.at, request.keyUse.keyId, accountId);
        }
        const admitted = { ...window, currentCount: window.currentCount + 1 };
        if (cost === 0) return { outcome: 'admitted', window: admitted };
        const entry = inflightEntryOf(request, now);
        insertInflight(this.database, entry);
        return { outcome: 'admitted', window: admitted, balance: balance - cost, entry };
      },
      cost === 0 ? 'bestEffort' : 'required',
    );
  }

  async settle(entry: InflightEntry, settlement: Settlement): Promise<SettleResult> {
    return this.database.write(() => {
      const stillInFlight = this.takeInflight(entry) === 1;
      insertLedger(this.database, { ...entry, ...settlement }, 'IGNORE');
      if (settlement.status === 'charged') return { refunded: false };
      if (stillInFlight) this.returnCost(entry);
      return { refunded: stillInFlight, balance: this.balanceRow(entry.accountId)?.balance ?? 0 };
    });
  }

  /** A free call's record: its loss costs nobody a credit, so it never holds up the answer. */
  recordUsage(entry: LedgerEntry): Promise<void> {
    return this.database.write(() => insertLedger(this.database, entry, 'REPLACE'), 'bestEffort');
  }

  async entries(accountId: string, query: LedgerQuery = {}): Promise<LedgerEntry[]> {
    // No bound is the empty string below and U+FFFF above every ISO 8601 time.
    return this.database
      .statement(
        `SELECT account_id, request_id, operation, cost, transport, key_id, status, http_status,
             refund_reason, created_at, settled_at
           FROM ledger WHERE account_id = ?1 AND created_at >= ?3 AND created_at < ?4
         UNION ALL
         SELECT account_id, request_id, operation, cost, transport, key_id, 'pending', NULL, NULL,
             created_at, NULL
           FROM inflight WHERE account_id = ?1 AND created_at >= ?3 AND created_at < ?4
         ORDER BY created_at DESC, request_id DESC
         LIMIT ?2`,
      )
      .all(accountId, query.limit ?? -1, query.since ?? '', query.until ?? '\uffff')
      .map(toLedgerEntry);
  }

  async reconcile(cutoff: string, settledAt: string): Promise<LedgerEntry[]> {
    return this.database.write(() =>
      this.database
        .statement('SELECT * FROM inflight WHERE created_at < ? ORDER BY created_at')
        .all(cutoff)
        .map((row) => {
          const entry = toInflight(row);
          const reconciled: LedgerEntry = {
            ...entry,
            status: 'refunded',
            refundReason: 'reconciled',
            settledAt,
          };
          this.takeInflight(entry);
          insertLedger(this.database, reconciled, 'IGNORE');
          this.returnCost(entry);
          return reconciled;
        }),
    );
  }

  private balanceRow(accountId: string): BalanceRow | undefined {
    return this.database.statement('SELECT * FROM balances WHERE account_id = ?').get(accountId) as
      | BalanceRow
      | undefined;
  }

  /** Deletes the in-flight row; 1 when it was there. */
  private takeInflight(entry: InflightEntry): number {
    const { changes } = this.database
      .statement('DELETE FROM inflight WHERE account_id = ? AND request_id = ?')
      .run(entry.accountId, entry.requestId);
    return Number(changes);
  }

  private returnCost(entry: InflightEntry): void {
    this.database
      .statement('UPDATE balances SET balance = balance + ? WHERE account_id = ?')
      .run(entry.cost, entry.accountId);
  }
}

function toInflight(row: Row): InflightEntry {
  const entry: InflightEntry = {
    requestId: row.request_id as string,
    accountId: row.account_id as string,
    operation: row.operation as string,
    cost: row.cost as number,
    createdAt: row.created_at as string,
  };
  if (row.transport !== null) entry.transport = row.transport as Transport;
  if (row.key_id !== null) entry.keyId = row.key_id as string;
  return entry;
}

function toCreditEntry(row: Row): CreditEntry {
  return {
    entryId: row.entry_id as string,
    accountId: row.account_id as string,
    kind: row.kind as CreditKind,
    amount: row.amount as number,
    ...(row.balance === null ? {} : { balance: row.balance as number }),
    actor: row.actor as string,
    ...(row.reason === null ? {} : { reason: row.reason as string }),
    createdAt: row.created_at as string,
  };
}

function toLedgerEntry(row: Row): LedgerEntry {
  const entry: LedgerEntry = { ...toInflight(row), status: row.status as LedgerStatus };
  if (row.http_status !== null) entry.httpStatus = row.http_status as number;
  if (row.refund_reason !== null) entry.refundReason = row.refund_reason as string;
  if (row.settled_at !== null) entry.settledAt = row.settled_at as string;
  return entry;
}

/** IGNORE keeps a settlement already written (the first one stands); REPLACE overwrites. */
export function insertLedger(database: Database, entry: LedgerEntry, onConflict: 'IGNORE' | 'REPLACE'): void {
  database
    .statement(
      `INSERT OR ${onConflict} INTO ledger (account_id, request_id, operation, cost, transport, key_id,
         status, http_status, refund_reason, created_at, settled_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.accountId,
      entry.requestId,
      entry.operation,
      entry.cost,
      entry.transport ?? null,
      entry.keyId ?? null,
      entry.status,
      entry.httpStatus ?? null,
      entry.refundReason ?? null,
      entry.createdAt,
      entry.settledAt ?? null,
    );
}

export function insertInflight(database: Database, entry: InflightEntry): void {
  database
    .statement(
      `INSERT INTO inflight (account_id, request_id, operation, cost, transport, key_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.accountId,
      entry.requestId,
      entry.operation,
      entry.cost,
      entry.transport ?? null,
      entry.keyId ?? null,
      entry.createdAt,
    );
}

export function insertCredit(database: Database, entry: CreditEntry): void {
  database
    .statement(
      `INSERT INTO credit_entries (account_id, entry_id, kind, amount, balance, actor, reason, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.accountId,
      entry.entryId,
      entry.kind,
      entry.amount,
      entry.balance ?? null,
      entry.actor,
      entry.reason ?? null,
      entry.createdAt,
    );
}
