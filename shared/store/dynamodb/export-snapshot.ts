/**
 * Reads a whole table into a StoreSnapshot, for `admin migrate`. It understands items written by
 * this adapter and by its earlier versions (before billing moved onto the balance item: in-flight
 * markers holding only a cost, `pending` ledger items, `lastUsedAt` on the key item). Credit and
 * audit entries still noted on their balance or account item (journal.ts) are copied as entries.
 * Every item is read through its record's codec (records/), so a corrupt one stops the copy with
 * StoredRecordError naming it, instead of landing in SQLite wrong.
 */
import type { AuditEntry } from '../../accounts/accounts.js';
import type { CreditEntry, InflightEntry, LedgerEntry } from '../../billing/billing-store.js';
import type { StoreSnapshot } from '../migration.js';
import { ledgerEntryRecord } from '../records/ledger-entry.js';
import { settingRecord } from '../records/setting.js';
import { decodeBalanceItem, heldEntry } from './balance-item.js';
import { toAccount } from './dynamo-accounts.js';
import { toRecord } from './dynamo-api-keys.js';
import { type JournalRecord, notesOf, recordId, toJournalRecord } from './journal.js';
import { itemName, itemTypes } from './keys.js';
import { type DynamoTable, scanAll } from './table.js';

export async function exportSnapshot(table: DynamoTable): Promise<StoreSnapshot> {
  const [accountItems, keyItems, balanceItems, ledgerItems, settingItems, creditItems, auditItems] =
    await Promise.all(
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
  const name = table.table;
  const balances = (balanceItems ?? []).map((item) => decodeBalanceItem(name, item));
  const keyUses = new Map<string, string>();
  for (const balance of balances)
    for (const [keyId, at] of Object.entries(balance.keyUse ?? {})) keyUses.set(keyId, at);

  const ledger = (ledgerItems ?? []).map((item) => ledgerEntryRecord.decode(item, itemName(name, item)));
  const byRequest = new Map(ledger.map((entry) => [`${entry.accountId}/${entry.requestId}`, entry]));
  const settled: LedgerEntry[] = [];
  const inflight: InflightEntry[] = [];
  for (const { accountId, inflight: stored } of balances) {
    for (const [requestId, value] of Object.entries(stored)) {
      const ledgered = byRequest.get(`${accountId}/${requestId}`);
      if (ledgered && ledgered.status !== 'pending') continue;
      if (typeof value === 'number') {
        // An older marker holds only a cost, beside a `pending` ledger item.
        inflight.push({
          requestId,
          accountId,
          operation: ledgered?.operation ?? 'unknown',
          cost: value,
          createdAt: ledgered?.createdAt ?? new Date(0).toISOString(),
        });
        continue;
      }
      // Refunded, and its ledger item never landed: the entry holds what it would have said.
      const { entry, refunded } = heldEntry(name, accountId, requestId, value);
      if (refunded) settled.push(refunded);
      else inflight.push(entry);
    }
  }
  const inflightIds = new Set(inflight.map((entry) => `${entry.accountId}/${entry.requestId}`));
  for (const entry of ledger) {
    if (entry.status !== 'pending') settled.push(entry);
    // An old `pending` item without its marker took nothing: what reconcile would have recorded.
    else if (!inflightIds.has(`${entry.accountId}/${entry.requestId}`))
      settled.push({ ...entry, status: 'refunded', refundReason: 'reconciled', settledAt: entry.createdAt });
  }

  const accounts = (accountItems ?? []).map((item) => toAccount(name, item));
  const { credits, audit } = journalEntries(
    name,
    [...(creditItems ?? []), ...(auditItems ?? [])],
    [...(balanceItems ?? []), ...(accountItems ?? [])],
  );
  return {
    accounts,
    keys: (keyItems ?? []).map((item) =>
      toRecord(name, item, typeof item.keyId === 'string' ? (keyUses.get(item.keyId) ?? null) : null),
    ),
    balances: balances.map(({ accountId, balance, granted }) => ({ accountId, balance, granted })),
    ledger: settled,
    inflight,
    credits,
    audit,
    settings: (settingItems ?? []).map((item) =>
      // Items of earlier versions hold no `name`: their key says it.
      settingRecord.decode(
        { name: typeof item.pk === 'string' ? item.pk.replace(/^SETTING#/, '') : undefined, ...item },
        itemName(name, item),
      ),
    ),
  };
}

/** Credit and audit entries: their items, and those only noted on their owners so far. */
function journalEntries(
  table: string,
  items: Record<string, unknown>[],
  owners: Record<string, unknown>[],
): { credits: CreditEntry[]; audit: AuditEntry[] } {
  const byId = new Map<string, JournalRecord>();
  const remember = (record: JournalRecord) => byId.set(`${record.type}/${recordId(record)}`, record);
  for (const owner of owners) notesOf(table, owner).forEach(remember);
  // A landed item may know more than its note (the balance a credit left).
  for (const item of items) remember(toJournalRecord(table, item));
  const credits: CreditEntry[] = [];
  const audit: AuditEntry[] = [];
  for (const record of byId.values()) {
    if (record.type === itemTypes.credit) {
      const { type: _type, ...entry } = record;
      credits.push(entry);
    } else {
      const { type: _type, ...entry } = record;
      audit.push(entry);
    }
  }
  return { credits, audit };
}
