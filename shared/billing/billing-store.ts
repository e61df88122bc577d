/**
 * The billing port: an account's credit balance, its rate window and its usage ledger. They are one
 * port because one atomic step admits a request on both its allowance and its balance and records
 * the request as in flight (`admit`); a second settles it (`settle`). Adapters: shared/store/*.
 *
 * Invariant every adapter keeps between any two of its writes, once `reconcile` has run:
 *
 *   granted = Σ amount of credit entries (grants and adjustments, with time, actor and reason)
 *   granted − Σ cost of `charged` ledger entries = balance + Σ cost of pending (in-flight) entries
 *
 * and a request is refunded at most once; for a key with spend caps (spend-caps.ts), its spend in a
 * UTC day or month = Σ cost of its charged and pending entries admitted in that period. (Credits granted before credit entries were recorded are
 * in `granted` without an entry; `history` shows them as one unrecorded sum.) docs/state.md
 * describes how each adapter keeps it.
 */
import type { RateLimitSetting } from '../accounts/accounts.js';
import { isoTime } from '../clock.js';
import type { StoredWindow, WindowState } from '../limits/rolling-window.js';
import { type CapRefusal, isCapped, type KeySpend, type SpendCaps } from './spend-caps.js';

export const ledgerStatuses = ['pending', 'charged', 'refunded'] as const;
export type LedgerStatus = (typeof ledgerStatuses)[number];

/** The surfaces a call can come through, for usage analytics (`batch`: an item of a bulk lookup). */
export const transports = ['rest', 'mcp', 'v2', 'batch'] as const;
export type Transport = (typeof transports)[number];

/** The batch and the item in it (0-based, in the order submitted) that a call was run for. */
export interface BatchItemRef {
  batchId: string;
  index: number;
}

export interface LedgerEntry {
  requestId: string;
  accountId: string;
  operation: string;
  /** Credits this request was priced at. */
  cost: number;
  /** Absent on entries written before transports were recorded. */
  transport?: Transport;
  /** Who made the call: see `InflightEntry.keyId`. */
  keyId?: string;
  /** See `InflightEntry.batchItem`. */
  batchItem?: BatchItemRef;
  status: LedgerStatus;
  /** Public HTTP status the request ended with (absent while pending). */
  httpStatus?: number;
  /** Error code that caused the refund, or `reconciled`. */
  refundReason?: string;
  createdAt: string;
  settledAt?: string;
}

/** A billed request between admission and settlement: everything its ledger entry will hold. */
export interface InflightEntry {
  requestId: string;
  accountId: string;
  operation: string;
  cost: number;
  transport?: Transport;
  /**
   * The API key that made the call, or `oauth:<subject>` for an OAuth caller on /mcp; absent on
   * entries written before callers were recorded.
   */
  keyId?: string;
  /** The batch item this call ran for (transport `batch`); absent on single calls. */
  batchItem?: BatchItemRef;
  /**
   * Admitted against the key's spend caps (spend-caps.ts): its cost counts in the key's spend of the
   * day and month of `createdAt`, and a refund gives it back there.
   */
  capped?: boolean;
  createdAt: string;
}

export interface AdmissionRequest {
  accountId: string;
  requestId: string;
  operation: string;
  /** Credits to take; 0 counts the request against the rate window only. */
  cost: number;
  rateLimit: RateLimitSetting;
  now: number;
  /** A key use to record (`lastUsedAt`) with the admission, at no extra write. */
  keyUse?: { keyId: string; at: string };
  transport?: Transport;
  /** Recorded on the entry: see `InflightEntry.keyId`. */
  keyId?: string;
  /** Recorded on the entry: see `InflightEntry.batchItem`. */
  batchItem?: BatchItemRef;
  /** The calling key's spend caps, checked in the same step as the balance (none: not capped). */
  caps?: SpendCaps;
  /**
   * A free call's usage entry: an adapter that can write it in the admission's own atomic step does
   * so when it admits (saying so with `usageRecorded`), and the caller records it otherwise.
   */
  usage?: LedgerEntry;
}

/** The in-flight entry an admitted billed request leaves, the same in every adapter. */
export function inflightEntryOf(request: AdmissionRequest, now: number): InflightEntry {
  return {
    requestId: request.requestId,
    accountId: request.accountId,
    operation: request.operation,
    cost: request.cost,
    ...(request.transport ? { transport: request.transport } : {}),
    ...(request.keyId ? { keyId: request.keyId } : {}),
    ...(request.batchItem ? { batchItem: request.batchItem } : {}),
    ...(isCapped(request.caps) ? { capped: true } : {}),
    createdAt: isoTime(now),
  };
}

/** The final ledger entry of a settled request (the `capped` mark stays with the in-flight entry). */
export function settledEntryOf(entry: InflightEntry, settlement: Settlement): LedgerEntry {
  const { capped: _spendBookkeeping, ...recorded } = entry;
  return { ...recorded, ...settlement };
}

export type Admission =
  /**
   * Counted, and for a cost the debit taken (`balance` after it) and `entry` in flight; `window`
   * includes this request; `spend` the capped key's spend with it; `usageRecorded` when the request's
   * `usage` entry was written with the admission.
   */
  | {
      outcome: 'admitted';
      window: WindowState;
      balance?: number;
      entry?: InflightEntry;
      spend?: KeySpend;
      usageRecorded?: boolean;
    }
  | { outcome: 'rate_limited'; window: WindowState }
  /**
   * Nothing written: the window had room, and the balance or (`cap`) one of the key's spend caps did
   * not; `spend` is the capped key's spend.
   */
  | {
      outcome: 'insufficient_credits';
      window: WindowState;
      balance: number;
      cap?: CapRefusal;
      spend?: KeySpend;
    };

export interface Settlement {
  status: 'charged' | 'refunded';
  httpStatus?: number;
  /** Why the cost was given back (refunds only). */
  refundReason?: string;
  settledAt: string;
}

export interface SettleResult {
  /** True when this call gave the cost back (false when it was not in flight any more). */
  refunded: boolean;
  /** The balance after a refund; absent on a charge, where the admission already told it. */
  balance?: number;
  /** After a refund of a capped entry: the key's spend in the periods it was admitted in. */
  spend?: KeySpend;
}

export const creditKinds = ['grant', 'adjustment'] as const;
export type CreditKind = (typeof creditKinds)[number];

/** Credits an operator added or took away: the other side of the ledger (see the invariant). */
export interface CreditEntry {
  entryId: string;
  accountId: string;
  kind: CreditKind;
  /** Credits added; negative for an adjustment that takes credits away. */
  amount: number;
  /** The balance just after (absent when a crash left only DynamoDB's note of the entry). */
  balance?: number;
  actor: string;
  reason?: string;
  createdAt: string;
}

export type CreditOutcome =
  | { outcome: 'applied'; entry: CreditEntry; balance: number }
  /** Nothing written: the balance could not give what a negative adjustment takes. */
  | { outcome: 'insufficient_credits'; balance: number };

/** Where a page of the ledger (newest first) ended: the next page starts just after it. */
export interface LedgerPosition {
  createdAt: string;
  requestId: string;
}

/**
 * Which ledger entries to read: by `createdAt`, `since` inclusive, `until` exclusive (ISO 8601, UTC),
 * only those of one request or one operation when asked, and only those after `after` in the
 * ledger's order (newest first), so a cursor can carry where a page ended.
 */
export interface LedgerQuery {
  since?: string;
  until?: string;
  requestId?: string;
  operation?: string;
  after?: LedgerPosition;
  limit?: number;
}

/** Whether an entry is one `query` asks for (for adapters that filter some entries in memory). */
export function matchesLedgerQuery(
  entry: Pick<LedgerEntry, 'createdAt' | 'requestId' | 'operation'>,
  query: LedgerQuery,
): boolean {
  const { since, until, requestId, operation, after } = query;
  return (
    (since === undefined || entry.createdAt >= since) &&
    (until === undefined || entry.createdAt < until) &&
    (requestId === undefined || entry.requestId === requestId) &&
    (operation === undefined || entry.operation === operation) &&
    (after === undefined || newestFirst(entry, after) > 0)
  );
}

/** The ledger's order: newest first, and by request id (descending) within one instant. */
export function newestFirst(a: LedgerPosition, b: LedgerPosition): number {
  return b.createdAt.localeCompare(a.createdAt) || b.requestId.localeCompare(a.requestId);
}

/**
 * One UTC day × operation of an account's usage, derived from its ledger entries (admitted that
 * day): every entry is a call; `creditsCharged` sums the costs of charged entries and of those
 * still in flight (held so far), `creditsRefunded` those given back; free calls add calls only.
 * `callsByTransport` counts entries that recorded their transport (all since transports were).
 */
export interface UsageRow {
  /** YYYY-MM-DD, UTC. */
  date: string;
  operation: string;
  calls: number;
  creditsCharged: number;
  creditsRefunded: number;
  callsByTransport: Record<Transport, number>;
}

/** The days to read usage of: `since` and `until` as ISO 8601 times (inclusive, exclusive). */
export interface UsageQuery {
  since: string;
  until: string;
}

/** The usage rows of ledger entries, by day then operation (for adapters that aggregate in memory). */
export function usageRows(entries: readonly LedgerEntry[]): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const entry of entries) {
    const date = entry.createdAt.slice(0, 10);
    const id = `${date} ${entry.operation}`;
    let row = rows.get(id);
    if (!row) {
      row = {
        date,
        operation: entry.operation,
        calls: 0,
        creditsCharged: 0,
        creditsRefunded: 0,
        callsByTransport: { rest: 0, mcp: 0, v2: 0, batch: 0 },
      };
      rows.set(id, row);
    }
    row.calls += 1;
    if (entry.status === 'refunded') row.creditsRefunded += entry.cost;
    else row.creditsCharged += entry.cost;
    if (entry.transport) row.callsByTransport[entry.transport] += 1;
  }
  return [...rows.values()].sort(
    (a, b) => a.date.localeCompare(b.date) || a.operation.localeCompare(b.operation),
  );
}

/** An account read to count: the account's window for them, and a key use to record with it. */
export interface AccountReadRequest {
  accountId: string;
  rateLimit: RateLimitSetting;
  now: number;
  /** As on `AdmissionRequest`: a use of the key (`lastUsedAt`) an admitted read records. */
  keyUse?: { keyId: string; at: string };
}

/** A request counted (or not) against a rate window of its own, apart from the lookups' window. */
export type WindowAdmission = { outcome: 'admitted' | 'rate_limited'; window: WindowState };

export interface BalanceState {
  balance: number;
  /** Every credit ever granted, net of adjustments. */
  granted: number;
  /** Admitted billed requests not settled yet. */
  pending: InflightEntry[];
  /** The lookups' rate window as stored (absent before the first admission), read without counting. */
  window?: StoredWindow;
}

export interface BillingStore {
  /** Creates the balance of a new account, with its opening grant if any. */
  open(accountId: string, opening?: CreditEntry): Promise<void>;
  /**
   * Adds `entry.amount` to the balance and `granted` and records the entry, atomically; a negative
   * amount only while the balance covers it. A positive one creates the balance if an interrupted
   * account creation left none.
   */
  credit(entry: CreditEntry): Promise<CreditOutcome>;
  /** Credit entries of an account, newest first. */
  credits(accountId: string): Promise<CreditEntry[]>;
  state(accountId: string): Promise<BalanceState>;
  /**
   * One atomic step: the rate window's allowance, then the key's spend caps, then the balance; see
   * `Admission`. A capped admission adds the cost to the key's spend of the day and month.
   */
  admit(request: AdmissionRequest): Promise<Admission>;
  /** Ends an in-flight request: keeps the charge or gives it back (at most once), and ledgers it. */
  settle(entry: InflightEntry, settlement: Settlement): Promise<SettleResult>;
  /** The ledger entry of a free call, written once it is over. */
  recordUsage(entry: LedgerEntry): Promise<void>;
  /** A key's spend in the UTC day and month of `now` (zero when it is not capped). */
  keySpend(accountId: string, keyId: string, now: number): Promise<KeySpend>;
  /** Ledger entries of an account, newest first, pending ones included. */
  entries(accountId: string, query?: LedgerQuery): Promise<LedgerEntry[]>;
  /** The account's usage by UTC day and operation over a range, from its ledger (see `UsageRow`). */
  usage(accountId: string, query: UsageQuery): Promise<UsageRow[]>;
  /**
   * Counts an account read (GET /v1/account…) against the account's window for them, kept apart
   * from the lookups' window: one atomic step, exact under concurrency like `admit`.
   */
  admitAccountRead(request: AccountReadRequest): Promise<WindowAdmission>;
  /**
   * Settles every request still in flight that was admitted before `cutoff` (ISO 8601): completes a
   * settlement that a crash interrupted, and refunds the others. Safe at any time, repeatedly.
   * Returns the entries it settled.
   */
  reconcile(cutoff: string, settledAt: string): Promise<LedgerEntry[]>;
}
