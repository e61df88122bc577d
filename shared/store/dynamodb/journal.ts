/**
 * Records that must land with a change of one item, on DynamoDB without transactions: a credit
 * entry with the balance item it changes, an audit entry with the account item. The one conditional
 * write that changes the item also notes the record on it (an attribute `journal:<id>`); the
 * record's own item is put next, and the note removed last. A crash in between leaves the note:
 * readers merge notes with record items by id, `landNotes` completes them (run by `reconcile`), and
 * `admin migrate` copies them. So the change is never without its record.
 */
import * as z from 'zod';
import type { AuditEntry } from '../../accounts/accounts.js';
import type { CreditEntry } from '../../billing/billing-store.js';
import { auditEntryFields, auditEntryRecord } from '../records/audit-entry.js';
import { creditEntryFields, creditEntryRecord } from '../records/credit-entry.js';
import { fieldsOf, recordCodec } from '../records/stored-record.js';
import { type ItemKey, itemKeys, itemName, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure } from './table.js';
import { UpdateExpression } from './update-expression.js';

type CreditRecord = { type: typeof itemTypes.credit } & CreditEntry;
type AuditRecord = { type: typeof itemTypes.audit } & AuditEntry;
export type JournalRecord = CreditRecord | AuditRecord;

/** A record's own item or its note: the record's fields beside its `type`. */
const anyJournalRecord = recordCodec<JournalRecord>('journal record', () =>
  z.discriminatedUnion('type', [
    creditEntryFields().extend({ type: z.literal(itemTypes.credit) }),
    auditEntryFields().extend({ type: z.literal(itemTypes.audit) }),
  ]),
);

/** Read by the codec of its type, so an error names the kind of record; by the union otherwise. */
function decodeJournalRecord(fields: Record<string, unknown>, item: string): JournalRecord {
  if (fields.type === itemTypes.credit) return creditRecord(creditEntryRecord.decode(fields, item));
  if (fields.type === itemTypes.audit) return auditRecord(auditEntryRecord.decode(fields, item));
  return anyJournalRecord.decode(fields, item);
}

const NOTE_PREFIX = 'journal:';

export const creditRecord = (entry: CreditEntry): CreditRecord => ({ type: itemTypes.credit, ...entry });
export const auditRecord = (entry: AuditEntry): AuditRecord => ({ type: itemTypes.audit, ...entry });

export function recordId(record: JournalRecord): string {
  return record.type === itemTypes.credit ? record.entryId : record.auditId;
}

function recordKey(record: JournalRecord): ItemKey {
  const key = record.type === itemTypes.credit ? itemKeys.credit : itemKeys.audit;
  return key(record.accountId, record.createdAt, recordId(record));
}

/** A record's own item of `table`. */
export function toJournalRecord(table: string, item: Record<string, unknown>): JournalRecord {
  return decodeJournalRecord(item, itemName(table, item));
}

/** The attribute that notes the record on the item it changes. */
export function noteName(record: JournalRecord): string {
  return `${NOTE_PREFIX}${recordId(record)}`;
}

/** The records still noted on an item of `table`. */
export function notesOf(table: string, item: Record<string, unknown> | undefined): JournalRecord[] {
  return Object.entries(item ?? {})
    .filter(([name]) => name.startsWith(NOTE_PREFIX))
    .map(([name, record]) =>
      decodeJournalRecord(fieldsOf(record), `note ${name} of ${itemName(table, item ?? {})}`),
    );
}

/**
 * Puts the record's own item, unless it is there, then removes its note from `owner`. Safe to
 * repeat; `record` may carry more than its note did (the balance a credit left).
 */
export async function land(table: DynamoTable, owner: ItemKey, record: JournalRecord): Promise<void> {
  await putRecord(table, record);
  const update = new UpdateExpression();
  update.remove(update.name(noteName(record))).when('attribute_exists(pk)');
  try {
    await table.client.update(update.input(table.table, owner));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Lands every note of `owner` older than `cutoff` (ISO 8601): what a crash left. */
export async function landNotes(
  table: DynamoTable,
  owner: ItemKey,
  item: Record<string, unknown>,
  cutoff: string,
): Promise<void> {
  for (const record of notesOf(table.table, item))
    if (record.createdAt < cutoff) await land(table, owner, record);
}

/** Puts a record that changes no other item (an audit entry about a key); false when it was there. */
export async function putRecord(table: DynamoTable, record: JournalRecord): Promise<boolean> {
  try {
    await table.client.put({
      TableName: table.table,
      Item: { ...recordKey(record), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** An account's records of one type, newest first: their items, and the notes not landed yet. */
export async function readRecords<Type extends JournalRecord['type']>(
  table: DynamoTable,
  accountId: string,
  type: Type,
  notes: readonly JournalRecord[],
): Promise<Extract<JournalRecord, { type: Type }>[]> {
  const records: JournalRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.client.query({
      TableName: table.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': itemKeys.account(accountId).pk,
        ':prefix': type === itemTypes.credit ? itemKeys.creditPrefix : itemKeys.auditPrefix,
      },
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) records.push(toJournalRecord(table.table, item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const landed = new Set(records.map(recordId));
  records.push(...notes.filter((note) => note.type === type && !landed.has(recordId(note))));
  return records
    .filter((record): record is Extract<JournalRecord, { type: Type }> => record.type === type)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || recordId(b).localeCompare(recordId(a)));
}
