/**
 * Records that must land with a change of one item, on DynamoDB without transactions: a credit
 * entry with the balance item it changes, an audit entry with the account item. The one conditional
 * write that changes the item also notes the record on it (an attribute `journal:<id>`); the
 * record's own item is put next, and the note removed last. A crash in between leaves the note:
 * readers merge notes with record items by id, `landNotes` completes them (run by `reconcile`), and
 * `admin migrate` copies them. So the change is never without its record.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '../../accounts/accounts.js';
import type { CreditEntry } from '../../billing/billing-store.js';
import { type ItemKey, itemKeys, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure } from './table.js';
import { UpdateExpression } from './update-expression.js';

type CreditRecord = { type: typeof itemTypes.credit } & CreditEntry;
type AuditRecord = { type: typeof itemTypes.audit } & AuditEntry;
export type JournalRecord = CreditRecord | AuditRecord;

const NOTE_PREFIX = 'journal:';

export const creditRecord = (entry: CreditEntry): CreditRecord => ({ type: itemTypes.credit, ...entry });
export const auditRecord = (entry: AuditEntry): AuditRecord => ({ type: itemTypes.audit, ...entry });

function recordId(record: JournalRecord): string {
  return record.type === itemTypes.credit ? record.entryId : record.auditId;
}

function recordKey(record: JournalRecord): ItemKey {
  const key = record.type === itemTypes.credit ? itemKeys.credit : itemKeys.audit;
  return key(record.accountId, record.createdAt, recordId(record));
}

/** The attribute that notes the record on the item it changes. */
export function noteName(record: JournalRecord): string {
  return `${NOTE_PREFIX}${recordId(record)}`;
}

/** The records still noted on an item. */
export function notesOf(item: Record<string, unknown> | undefined): JournalRecord[] {
  return Object.entries(item ?? {})
    .filter(([name]) => name.startsWith(NOTE_PREFIX))
    .map(([, record]) => record as JournalRecord);
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
    await table.doc.send(update.command(table.table, owner));
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
  for (const record of notesOf(item)) if (record.createdAt < cutoff) await land(table, owner, record);
}

/** Puts a record that changes no other item (an audit entry about a key); false when it was there. */
export async function putRecord(table: DynamoTable, record: JournalRecord): Promise<boolean> {
  try {
    await table.doc.send(
      new PutCommand({
        TableName: table.table,
        Item: { ...recordKey(record), ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** An account's records of one type, newest first: their items, and the notes not landed yet. */
export async function readRecords(
  table: DynamoTable,
  accountId: string,
  type: JournalRecord['type'],
  notes: readonly JournalRecord[],
): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({
        TableName: table.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': itemKeys.account(accountId).pk,
          ':prefix': type === itemTypes.credit ? itemKeys.creditPrefix : itemKeys.auditPrefix,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const { pk: _pk, sk: _sk, ...record } of page.Items ?? []) records.push(record as JournalRecord);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const landed = new Set(records.map(recordId));
  records.push(...notes.filter((note) => note.type === type && !landed.has(recordId(note))));
  return records.sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || recordId(b).localeCompare(recordId(a)),
  );
}
