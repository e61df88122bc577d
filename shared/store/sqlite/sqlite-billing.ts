/**
 * Billing in SQLite. Each step of the billing port is one transaction (BEGIN IMMEDIATE), so the
 * invariant of billing-store.ts holds after every commit without any reconcile: `admit` counts the
 * window, takes the cost and inserts the in-flight row; `settle` deletes that row, writes the final
 * ledger row and, for a refund, returns the cost. `reconcile` refunds the rows a crash left between
 * the two. A grant or adjustment changes the balance and inserts its `credit_entries` row in one
 * transaction. A capped key's spend is a `key_spend` row per key and period (UTC day and month),
 * checked and counted by the admission's transaction and given back by a refund's; the admission
 * drops the key's rows of earlier periods.
 */

import type {
  AccountReadRequest,
  Admission,
  AdmissionRequest,
  BalanceState,
  BillingStore,
  CreditEntry,
  CreditOutcome,
  InflightEntry,
  LedgerEntry,
  LedgerQuery,
  Settlement,
  SettleResult,
  UsageQuery,
  UsageRow,
  WindowAdmission,
} from '../../billing/billing-store.js';
import { inflightEntryOf, settledEntryOf } from '../../billing/billing-store.js';
import { capRefusal, isCapped, type KeySpend, spendPeriods } from '../../billing/spend-caps.js';
import { currentAllowance, storedWindowOf, windowAt } from '../../limits/rolling-window.js';
import { type BalanceRecord, balanceRecord } from '../records/balance.js';
import { creditEntryRecord } from '../records/credit-entry.js';
import { batchItemFields, inflightEntryRecord, ledgerEntryRecord } from '../records/ledger-entry.js';
import type { Database } from './database.js';
import { rowName } from './rows.js';

type Row = Record<string, unknown>;

/** The name of the account reads' window in `rate_windows`. */
const ACCOUNT_WINDOW = 'account';

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
           RETURNING *`,
        )
        .get(entry.accountId, entry.amount, entry.amount);
      const applied = { ...entry, balance: toBalance(row, entry.accountId).balance };
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
    return {
      balance: row?.balance ?? 0,
      granted: row?.granted ?? 0,
      pending,
      ...(row?.windowStart === undefined ? {} : { window: storedWindowOf(row) }),
    };
  }

  /**
   * A free call's admission only counts the rate window, which fails open: it waits for a lock only
   * briefly, so a locked store never holds up a free answer. Its usage entry, when given, is written
   * in the same transaction.
   */
  async admit(request: AdmissionRequest): Promise<Admission> {
    const { accountId, cost, rateLimit } = request;
    return this.database.write(
      (): Admission => {
        const row = this.balanceRow(accountId);
        const window = windowAt(row, rateLimit, request.now);
        const { windowStart, previousCount, now } = window;
        if (window.currentCount >= currentAllowance(window)) return { outcome: 'rate_limited', window };
        const balance = row?.balance ?? 0;
        const caps = cost > 0 && isCapped(request.caps) ? request.caps : undefined;
        const spend = caps && this.spendOf(accountId, caps.keyId, now);
        const cap = caps && spend && capRefusal(caps, spend, cost);
        if (cap) return { outcome: 'insufficient_credits', window, balance, cap, spend };
        if (cost > 0 && balance < cost)
          return { outcome: 'insufficient_credits', window, balance, ...(spend ? { spend } : {}) };

        this.database
          .statement(
            `INSERT INTO balances (account_id, balance, granted, window_start, window_count, previous_count)
           VALUES (?, 0, 0, ?, ?, ?)
           ON CONFLICT (account_id) DO UPDATE SET balance = balance - ?, window_start = excluded.window_start,
             window_count = excluded.window_count, previous_count = excluded.previous_count`,
          )
          .run(accountId, windowStart, window.currentCount + 1, previousCount, cost);
        if (request.keyUse) this.recordKeyUse(accountId, request.keyUse);
        const admitted = { ...window, currentCount: window.currentCount + 1 };
        if (cost === 0) {
          if (!request.usage) return { outcome: 'admitted', window: admitted };
          // In the same commit: a free call then touches the store once before it is answered.
          insertLedger(this.database, request.usage, 'REPLACE');
          return { outcome: 'admitted', window: admitted, usageRecorded: true };
        }
        const entry = inflightEntryOf(request, now);
        insertInflight(this.database, entry);
        if (!caps || !spend) return { outcome: 'admitted', window: admitted, balance: balance - cost, entry };
        this.addSpend(accountId, caps.keyId, spend, cost);
        this.database
          .statement('DELETE FROM key_spend WHERE account_id = ? AND key_id = ? AND period NOT IN (?, ?)')
          .run(accountId, caps.keyId, spend.day, spend.month);
        const after = {
          ...spend,
          dailySpent: spend.dailySpent + cost,
          monthlySpent: spend.monthlySpent + cost,
        };
        return { outcome: 'admitted', window: admitted, balance: balance - cost, entry, spend: after };
      },
      cost === 0 ? 'bestEffort' : 'required',
    );
  }

  async settle(entry: InflightEntry, settlement: Settlement): Promise<SettleResult> {
    return this.database.write(() => {
      const stillInFlight = this.takeInflight(entry) === 1;
      insertLedger(this.database, settledEntryOf(entry, settlement), 'IGNORE');
      if (settlement.status === 'charged') return { refunded: false };
      if (stillInFlight) this.returnCost(entry);
      const balance = this.balanceRow(entry.accountId)?.balance ?? 0;
      if (!entry.capped || !entry.keyId) return { refunded: stillInFlight, balance };
      return {
        refunded: stillInFlight,
        balance,
        spend: this.spendOf(entry.accountId, entry.keyId, entry.createdAt),
      };
    });
  }

  /** A free call's record: its loss costs nobody a credit, so it never holds up the answer. */
  recordUsage(entry: LedgerEntry): Promise<void> {
    return this.database.write(() => insertLedger(this.database, entry, 'REPLACE'), 'bestEffort');
  }

  async keySpend(accountId: string, keyId: string, now: number): Promise<KeySpend> {
    return this.spendOf(accountId, keyId, now);
  }

  async entries(accountId: string, query: LedgerQuery = {}): Promise<LedgerEntry[]> {
    // No bound is the empty string below and U+FFFF above every ISO 8601 time; a NULL filter none.
    const filters = `account_id = ?1 AND created_at >= ?3 AND created_at < ?4
      AND (?5 IS NULL OR request_id = ?5) AND (?6 IS NULL OR operation = ?6)
      AND (?7 IS NULL OR created_at < ?7 OR (created_at = ?7 AND request_id < ?8))`;
    return this.database
      .statement(
        `SELECT account_id, request_id, operation, cost, transport, key_id, batch_id, item_index, status,
             http_status, refund_reason, created_at, settled_at
           FROM ledger WHERE ${filters}
         UNION ALL
         SELECT account_id, request_id, operation, cost, transport, key_id, batch_id, item_index, 'pending',
             NULL, NULL, created_at, NULL
           FROM inflight WHERE ${filters}
         ORDER BY created_at DESC, request_id DESC
         LIMIT ?2`,
      )
      .all(
        accountId,
        query.limit ?? -1,
        query.since ?? '',
        query.until ?? '\uffff',
        query.requestId ?? null,
        query.operation ?? null,
        query.after?.createdAt ?? null,
        query.after?.requestId ?? null,
      )
      .map(toLedgerEntry);
  }

  /** Summed in SQL over the ledger's time index (in-flight rows count as charged so far). */
  async usage(accountId: string, query: UsageQuery): Promise<UsageRow[]> {
    return this.database
      .statement(
        `SELECT substr(created_at, 1, 10) AS date, operation, count(*) AS calls,
             sum(CASE WHEN status = 'refunded' THEN 0 ELSE cost END) AS charged,
             sum(CASE WHEN status = 'refunded' THEN cost ELSE 0 END) AS refunded,
             sum(transport = 'rest') AS rest, sum(transport = 'mcp') AS mcp, sum(transport = 'v2') AS v2,
             sum(transport = 'batch') AS batch
           FROM (SELECT created_at, operation, cost, transport, status FROM ledger
                   WHERE account_id = ?1 AND created_at >= ?2 AND created_at < ?3
                 UNION ALL
                 SELECT created_at, operation, cost, transport, 'pending' FROM inflight
                   WHERE account_id = ?1 AND created_at >= ?2 AND created_at < ?3)
         GROUP BY date, operation
         ORDER BY date, operation`,
      )
      .all(accountId, query.since, query.until)
      .map((row) => ({
        date: String(row.date),
        operation: String(row.operation),
        calls: Number(row.calls),
        creditsCharged: Number(row.charged),
        creditsRefunded: Number(row.refunded),
        callsByTransport: {
          rest: Number(row.rest ?? 0),
          mcp: Number(row.mcp ?? 0),
          v2: Number(row.v2 ?? 0),
          batch: Number(row.batch ?? 0),
        },
      }));
  }

  /** Its own row per account, so account reads never take room from lookups. Fails open, like a free call. */
  async admitAccountRead({
    accountId,
    rateLimit,
    now,
    keyUse,
  }: AccountReadRequest): Promise<WindowAdmission> {
    return this.database.write((): WindowAdmission => {
      const row = this.database
        .statement('SELECT * FROM rate_windows WHERE account_id = ? AND name = ?')
        .get(accountId, ACCOUNT_WINDOW);
      const window = windowAt(
        row && {
          windowStart: Number(row.window_start),
          windowCount: Number(row.window_count),
          previousCount: Number(row.previous_count),
        },
        rateLimit,
        now,
      );
      if (window.currentCount >= currentAllowance(window)) return { outcome: 'rate_limited', window };
      this.database
        .statement(
          `INSERT OR REPLACE INTO rate_windows (account_id, name, window_start, window_count, previous_count)
           VALUES (?, ?, ?, ?, ?)`,
        )
        .run(accountId, ACCOUNT_WINDOW, window.windowStart, window.currentCount + 1, window.previousCount);
      if (keyUse) this.recordKeyUse(accountId, keyUse);
      return { outcome: 'admitted', window: { ...window, currentCount: window.currentCount + 1 } };
    }, 'bestEffort');
  }

  async reconcile(cutoff: string, settledAt: string): Promise<LedgerEntry[]> {
    return this.database.write(() =>
      this.database
        .statement('SELECT * FROM inflight WHERE created_at < ? ORDER BY created_at')
        .all(cutoff)
        .map((row) => {
          const entry = toInflight(row);
          const reconciled = settledEntryOf(entry, {
            status: 'refunded',
            refundReason: 'reconciled',
            settledAt,
          });
          this.takeInflight(entry);
          insertLedger(this.database, reconciled, 'IGNORE');
          this.returnCost(entry);
          return reconciled;
        }),
    );
  }

  private recordKeyUse(accountId: string, keyUse: { keyId: string; at: string }): void {
    this.database
      .statement('UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND account_id = ?')
      .run(keyUse.at, keyUse.keyId, accountId);
  }

  private balanceRow(accountId: string): BalanceRecord | undefined {
    const row = this.database.statement('SELECT * FROM balances WHERE account_id = ?').get(accountId);
    return row && toBalance(row, accountId);
  }

  /** Deletes the in-flight row; 1 when it was there. */
  private takeInflight(entry: InflightEntry): number {
    const { changes } = this.database
      .statement('DELETE FROM inflight WHERE account_id = ? AND request_id = ?')
      .run(entry.accountId, entry.requestId);
    return Number(changes);
  }

  /** Gives the cost back to the balance and, for a capped entry, to the periods it was admitted in. */
  private returnCost(entry: InflightEntry): void {
    this.database
      .statement('UPDATE balances SET balance = balance + ? WHERE account_id = ?')
      .run(entry.cost, entry.accountId);
    if (!entry.capped || !entry.keyId) return;
    const { day, month } = spendPeriods(entry.createdAt);
    // A period's row that an admission dropped since is over: nothing to give back to it.
    this.database
      .statement(
        'UPDATE key_spend SET spent = spent - ? WHERE account_id = ? AND key_id = ? AND period IN (?, ?)',
      )
      .run(entry.cost, entry.accountId, entry.keyId, day, month);
  }

  /** The key's spend in the UTC day and month of `at`. */
  private spendOf(accountId: string, keyId: string, at: number | string): KeySpend {
    const { day, month } = spendPeriods(at);
    const spent = new Map(
      this.database
        .statement(
          'SELECT period, spent FROM key_spend WHERE account_id = ? AND key_id = ? AND period IN (?, ?)',
        )
        .all(accountId, keyId, day, month)
        .map((row) => [row.period, Number(row.spent)] as const),
    );
    return { day, dailySpent: spent.get(day) ?? 0, month, monthlySpent: spent.get(month) ?? 0 };
  }

  private addSpend(accountId: string, keyId: string, spend: KeySpend, cost: number): void {
    const add = this.database.statement(
      `INSERT INTO key_spend (account_id, key_id, period, spent) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, key_id, period) DO UPDATE SET spent = spent + excluded.spent`,
    );
    add.run(accountId, keyId, spend.day, cost);
    add.run(accountId, keyId, spend.month, cost);
  }
}

/** `row` may be undefined only where SQL guarantees one (an upsert's RETURNING). */
function toBalance(row: Row | undefined, accountId: string): BalanceRecord {
  return balanceRecord.decode(
    {
      accountId: row?.account_id,
      balance: row?.balance,
      granted: row?.granted,
      windowStart: row?.window_start,
      windowCount: row?.window_count,
      previousCount: row?.previous_count,
    },
    rowName('balances', accountId),
  );
}

/** The fields an in-flight row shares with a ledger row. */
function inflightFields(row: Row) {
  return {
    requestId: row.request_id,
    accountId: row.account_id,
    operation: row.operation,
    cost: row.cost,
    transport: row.transport,
    keyId: row.key_id,
    batchItem: batchItemFields(row.batch_id, row.item_index),
    createdAt: row.created_at,
  };
}

function toInflight(row: Row): InflightEntry {
  return inflightEntryRecord.decode(
    { ...inflightFields(row), capped: row.capped === 1 ? true : undefined },
    rowName('inflight', row.account_id, row.request_id),
  );
}

function toCreditEntry(row: Row): CreditEntry {
  return creditEntryRecord.decode(
    {
      entryId: row.entry_id,
      accountId: row.account_id,
      kind: row.kind,
      amount: row.amount,
      balance: row.balance,
      actor: row.actor,
      reason: row.reason,
      createdAt: row.created_at,
    },
    rowName('credit_entries', row.account_id, row.entry_id),
  );
}

/** A ledger row, or an in-flight row read as a `pending` ledger entry (see `entries`). */
function toLedgerEntry(row: Row): LedgerEntry {
  return ledgerEntryRecord.decode(
    {
      ...inflightFields(row),
      status: row.status,
      httpStatus: row.http_status,
      refundReason: row.refund_reason,
      settledAt: row.settled_at,
    },
    rowName(row.status === 'pending' ? 'inflight' : 'ledger', row.account_id, row.request_id),
  );
}

/** IGNORE keeps a settlement already written (the first one stands); REPLACE overwrites. */
export function insertLedger(database: Database, entry: LedgerEntry, onConflict: 'IGNORE' | 'REPLACE'): void {
  database
    .statement(
      `INSERT OR ${onConflict} INTO ledger (account_id, request_id, operation, cost, transport, key_id,
         batch_id, item_index, status, http_status, refund_reason, created_at, settled_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.accountId,
      entry.requestId,
      entry.operation,
      entry.cost,
      entry.transport ?? null,
      entry.keyId ?? null,
      entry.batchItem?.batchId ?? null,
      entry.batchItem?.index ?? null,
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
      `INSERT INTO inflight (account_id, request_id, operation, cost, transport, key_id, batch_id,
         item_index, capped, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.accountId,
      entry.requestId,
      entry.operation,
      entry.cost,
      entry.transport ?? null,
      entry.keyId ?? null,
      entry.batchItem?.batchId ?? null,
      entry.batchItem?.index ?? null,
      entry.capped ? 1 : null,
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
