/**
 * The DynamoDB balance item beyond the balance record it holds (records/balance.ts): the requests
 * in flight and the accounts' key uses, written by the same conditional writes as the balance.
 *
 *   inflight    request id → { o: operation, c: cost, t: admitted at, x: transport, k: key id, for a
 *               batch item b: batch id and i: item index, and once refunded r: reason, h: HTTP
 *               status, s: settled at }: admitted, not yet cleared
 *   keyUse      key id → last admitted use (the key's `lastUsedAt`)
 *   spend:<keyId>/<period>   credits a capped key spent in a UTC day (`YYYY-MM-DD`) or month
 *               (`YYYY-MM`), refunds given back (billing/spend-caps.ts). Top-level attributes, not
 *               entries of one map: a nested path whose parent map is missing fails the write, and
 *               items written before caps existed have no such map; a top-level attribute needs none.
 *
 * In-flight entries use short names, since every write of the item pays for its size; they read as
 * the in-flight entry record, and a refunded one also as its `refunded` ledger entry.
 */
import * as z from 'zod';
import type { InflightEntry, LedgerEntry, Transport } from '../../billing/billing-store.js';
import { type KeySpend, spendPeriods } from '../../billing/spend-caps.js';
import { type BalanceRecord, balanceRecord } from '../records/balance.js';
import { batchItemFields, inflightEntryRecord, ledgerEntryRecord } from '../records/ledger-entry.js';
import { fieldsOf, recordCodec } from '../records/stored-record.js';
import { type ItemKey, itemKeys, itemName } from './keys.js';

/** An in-flight entry as stored. */
export interface StoredEntry {
  o: string;
  c: number;
  t: string;
  x?: Transport;
  k?: string;
  /** The batch item the call runs for (`InflightEntry.batchItem`): its batch id and index. */
  b?: string;
  i?: number;
  /** Admitted against the key's spend caps (`InflightEntry.capped`). */
  p?: boolean;
  /** Set by the refund: its reason, HTTP status and time. */
  r?: string;
  h?: number;
  s?: string;
}

export interface BalanceItem extends BalanceRecord {
  /** Stored entries by request id, each read by `heldEntries`. */
  inflight: Record<string, unknown>;
  /** Absent on items written before key uses moved here. */
  keyUse?: Record<string, string>;
  /** The `spend:` attributes: name → credits. */
  spend: Map<string, number>;
}

/** An in-flight entry, and its refund as the item notes it (undefined while not refunded). */
export interface HeldEntry {
  entry: InflightEntry;
  refunded?: LedgerEntry;
}

const keyUses = () => z.record(z.string(), z.string());
const balanceItemMaps = recordCodec('balance', () =>
  z.object({ inflight: z.record(z.string(), z.unknown()).default({}), keyUse: keyUses().optional() }),
);
const keyUsesOnly = recordCodec('balance', () => z.object({ keyUse: keyUses().default({}) }));

const SPEND_PREFIX = 'spend:';
const spendAttributes = recordCodec('balance', () => z.record(z.string(), z.number().int()));

export function decodeBalanceItem(table: string, item: Record<string, unknown>): BalanceItem {
  const name = itemName(table, item);
  return {
    ...balanceRecord.decode(item, name),
    ...balanceItemMaps.decode(item, name),
    spend: spendOf(item, name),
  };
}

/** The `spend:` attributes of an item, or of the attributes a write returned; `name` names the item. */
export function spendOf(attributes: Record<string, unknown>, name: string): Map<string, number> {
  const spend = Object.fromEntries(
    Object.entries(attributes).filter(([attribute]) => attribute.startsWith(SPEND_PREFIX)),
  );
  return new Map(Object.entries(spendAttributes.decode(spend, name)));
}

/** The attribute counting a key's spend in a period (a day or a month). */
export function spendName(keyId: string, period: string): string {
  return `${SPEND_PREFIX}${keyId}/${period}`;
}

/** A key's spend in the periods of `at`, from the `spend:` attributes of an item (or a projection of it). */
export function keySpendOf(spend: ReadonlyMap<string, number>, keyId: string, at: number | string): KeySpend {
  const { day, month } = spendPeriods(at);
  return {
    day,
    dailySpent: spend.get(spendName(keyId, day)) ?? 0,
    month,
    monthlySpent: spend.get(spendName(keyId, month)) ?? 0,
  };
}

/** The `spend:` attributes of periods before those of `now`: over, to be removed by a later write. */
export function staleSpendNames(spend: ReadonlyMap<string, number>, now: number): string[] {
  const { day, month } = spendPeriods(now);
  return [...spend.keys()].filter((name) => {
    const period = name.slice(name.lastIndexOf('/') + 1);
    return period.length === day.length ? period < day : period < month;
  });
}

/** Key id → last use, from a balance item or the part of it a projection read. */
export function keyUsesOf(
  table: string,
  key: ItemKey,
  item: Record<string, unknown> = {},
): Map<string, string> {
  return new Map(Object.entries(keyUsesOnly.decode(item, itemName(table, key)).keyUse));
}

export function storedEntryOf(entry: InflightEntry): StoredEntry {
  return {
    o: entry.operation,
    c: entry.cost,
    t: entry.createdAt,
    ...(entry.transport ? { x: entry.transport } : {}),
    ...(entry.keyId ? { k: entry.keyId } : {}),
    ...(entry.batchItem ? { b: entry.batchItem.batchId, i: entry.batchItem.index } : {}),
    ...(entry.capped ? { p: true } : {}),
  };
}

/** One stored entry of the balance item of `accountId`. */
export function heldEntry(table: string, accountId: string, requestId: string, stored: unknown): HeldEntry {
  const name = `in-flight entry ${requestId} of ${itemName(table, itemKeys.balance(accountId))}`;
  const { o, c, t, x, k, b, i, p, r, h, s } = fieldsOf(stored);
  const entry = inflightEntryRecord.decode(
    {
      requestId,
      accountId,
      operation: o,
      cost: c,
      transport: x,
      keyId: k,
      batchItem: batchItemFields(b, i),
      capped: p,
      createdAt: t,
    },
    name,
  );
  if (r === undefined) return { entry };
  const refunded = ledgerEntryRecord.decode(
    { ...entry, status: 'refunded', refundReason: r, httpStatus: h, settledAt: s ?? t },
    name,
  );
  return { entry, refunded };
}

export function heldEntries(table: string, item: BalanceItem): HeldEntry[] {
  return Object.entries(item.inflight).map(([requestId, stored]) =>
    heldEntry(table, item.accountId, requestId, stored),
  );
}
