/**
 * Accounts on DynamoDB: one item per account, beside its balance item under the same partition key,
 * and its audit log as items `AUDIT#<time>#<id>` there too. A change of the account item notes its
 * audit entry in the same conditional write (journal.ts), so no change goes unrecorded.
 */
import type { Account, AccountStore, AuditEntry } from '../../accounts/accounts.js';
import { accountRecord } from '../records/account.js';
import { auditRecord, land, noteName, notesOf, putRecord, readRecords } from './journal.js';
import { itemKeys, itemName, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure, scanAll } from './table.js';
import { UpdateExpression } from './update-expression.js';

export class DynamoAccountStore implements AccountStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(account: Account, audit: AuditEntry): Promise<void> {
    const record = auditRecord(audit);
    const key = itemKeys.account(account.accountId);
    await this.table.client.put({
      TableName: this.table.table,
      Item: { ...key, type: itemTypes.account, ...account, [noteName(record)]: record },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    await land(this.table, key, record);
  }

  async get(accountId: string): Promise<Account | undefined> {
    const Item = await this.read(accountId, false);
    return Item ? toAccount(this.table.table, Item) : undefined;
  }

  async list(): Promise<Account[]> {
    const items = await scanAll(this.table, itemTypes.account);
    return items
      .map((item) => toAccount(this.table.table, item))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async update(before: Account, after: Account, audit: AuditEntry): Promise<boolean> {
    const record = auditRecord(audit);
    const key = itemKeys.account(before.accountId);
    const update = new UpdateExpression();
    const [name, status, limit] = [update.name('name'), update.name('status'), update.name('limit')];
    update
      .set(
        `${name} = ${update.value(after.name)}`,
        `${status} = ${update.value(after.status)}`,
        `rateLimit = ${update.value(after.rateLimit)}`,
        `${update.name(noteName(record))} = ${update.value(record)}`,
      )
      .when(
        'attribute_exists(pk)',
        `${name} = ${update.value(before.name)}`,
        `${status} = ${update.value(before.status)}`,
        `rateLimit.${limit} = ${update.value(before.rateLimit.limit)}`,
        `rateLimit.windowSeconds = ${update.value(before.rateLimit.windowSeconds)}`,
      );
    try {
      await this.table.client.update(update.input(this.table.table, key));
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await land(this.table, key, record);
    return true;
  }

  async recordAudit(entry: AuditEntry): Promise<void> {
    await putRecord(this.table, auditRecord(entry));
  }

  async audit(accountId: string): Promise<AuditEntry[]> {
    const notes = notesOf(this.table.table, await this.read(accountId, true));
    const records = await readRecords(this.table, accountId, itemTypes.audit, notes);
    return records.map(({ type: _type, ...entry }) => entry);
  }

  private async read(accountId: string, consistent: boolean): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: itemKeys.account(accountId),
      ConsistentRead: consistent,
    });
    return Item;
  }
}

/** An account item of `table`: the account's fields under their own names, beside keys and notes. */
export function toAccount(table: string, item: Record<string, unknown>): Account {
  return accountRecord.decode(item, itemName(table, item));
}
