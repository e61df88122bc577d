/**
 * Reads a whole table into a StoreSnapshot, for `admin migrate`. It understands items written by
 * this adapter and by its earlier versions (before billing moved onto the balance item: in-flight
 * markers holding only a cost, `pending` ledger items, `lastUsedAt` on the key item). Credit and
 * audit entries still noted on their balance or account item (journal.ts) are copied as entries.
 */
import type { AuditEntry } from '../../accounts/accounts.js';
import type { CreditEntry, InflightEntry, LedgerEntry } from '../../billing/billing-store.js';
import type { StoreSnapshot } from '../migration.js';
import { toAccount } from './dynamo-accounts.js';
import { toRecord } from './dynamo-api-keys.js';
import { type JournalRecord, notesOf } from './journal.js';
import { itemTypes } from './keys.js';
import { type DynamoTable, scanAll } from './table.js';

type Item = Record<string, unknown>;

export async function exportSnapshot(table: DynamoTable): Promise<StoreSnapshot> {
  const [accounts, keys, balances, ledger, settings, credits, audit] = await Promise.all(
    [
      itemTypes.account,
      itemTypes.apiKey,
      itemTypes.balance,
      itemTypes.ledger,
      itemTypes.setting,
      itemTypes.credit,
      itemTypes.audit,
    ].map((type) => scanAll(table, type)),
  );
  const keyUses = new Map<string, string>();
  for (const balance of balances ?? []) {
    for (const [keyId, at] of Object.entries((balance.keyUse as Record<string, string> | undefined) ?? {}))
      keyUses.set(keyId, at);
  }
  const byRequest = new Map((ledger ?? []).map((item) => [`${item.accountId}/${item.requestId}`, item]));
  const settled: LedgerEntry[] = [];
  const inflight: InflightEntry[] = [];
  for (const balance of balances ?? []) {
    const accountId = balance.accountId as string;
    for (const [requestId, value] of Object.entries((balance.inflight as Record<string, unknown>) ?? {})) {
      const ledgered = byRequest.get(`${accountId}/${requestId}`);
      if (ledgered && ledgered.status !== 'pending') continue;
      // Current entries carry everything; older markers only a cost, beside a `pending` ledger item.
      const stored =
        typeof value === 'number'
          ? undefined
          : (value as { o: string; c: number; t: string; k?: string; r?: string; h?: number; s?: string });
      if (stored?.r !== undefined) {
        // Refunded, and its ledger item never landed: the entry holds what it would have said.
        const { o: operation, c: cost, t: createdAt, r: refundReason, h: httpStatus, s: settledAt } = stored;
        settled.push({
          requestId,
          accountId,
          operation,
          cost,
          createdAt,
          status: 'refunded',
          refundReason,
          settledAt,
          ...(httpStatus === undefined ? {} : { httpStatus }),
          ...(stored.k === undefined ? {} : { keyId: stored.k }),
        });
        continue;
      }
      inflight.push({
        requestId,
        accountId,
        operation: stored?.o ?? (ledgered?.operation as string | undefined) ?? 'unknown',
        cost: stored?.c ?? (value as number),
        createdAt: stored?.t ?? (ledgered?.createdAt as string | undefined) ?? new Date(0).toISOString(),
        ...(stored?.k === undefined ? {} : { keyId: stored.k }),
      });
    }
  }
  const inflightIds = new Set(inflight.map((entry) => `${entry.accountId}/${entry.requestId}`));
  for (const item of ledger ?? []) {
    const entry = toEntry(item);
    if (entry.status !== 'pending') settled.push(entry);
    // An old `pending` item without its marker took nothing: what reconcile would have recorded.
    else if (!inflightIds.has(`${entry.accountId}/${entry.requestId}`))
      settled.push({ ...entry, status: 'refunded', refundReason: 'reconciled', settledAt: entry.createdAt });
  }
  return {
    accounts: (accounts ?? []).map(toAccount),
    keys: (keys ?? []).map((item) => toRecord(item, keyUses.get(item.keyId as string) ?? null)),
    balances: (balances ?? []).map((item) => ({
      accountId: item.accountId as string,
      balance: item.balance as number,
      granted: item.granted as number,
    })),
    ledger: settled,
    inflight,
    credits: withNotes(credits, [...(balances ?? [])]).map((record) => record as unknown as CreditEntry),
    audit: withNotes(audit, [...(accounts ?? [])]).map((record) => record as unknown as AuditEntry),
    settings: (settings ?? []).map((item) => ({
      name: (item.name as string | undefined) ?? (item.pk as string).replace(/^SETTING#/, ''),
      value: item.value as string,
    })),
  };
}

/** Record items, and the records only noted on their owners so far, without keys and type. */
function withNotes(records: Item[] | undefined, owners: Item[]): Record<string, unknown>[] {
  const byId = new Map<string, Record<string, unknown>>();
  const id = (record: Item) => (record.entryId ?? record.auditId) as string;
  for (const note of owners.flatMap((owner) => notesOf(owner)) as JournalRecord[]) {
    const { type: _type, ...record } = note;
    byId.set(id(record), record);
  }
  // A landed item may know more than its note (the balance a credit left).
  for (const { pk: _pk, sk: _sk, type: _type, ...record } of records ?? []) byId.set(id(record), record);
  return [...byId.values()];
}

function toEntry(item: Item): LedgerEntry {
  const { pk: _pk, sk: _sk, type: _type, ...entry } = item;
  return entry as unknown as LedgerEntry;
}
