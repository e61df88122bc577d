/**
 * Console sessions on DynamoDB: one item each, deleted by sign-out or by the table's TTL
 * (`expiresAt`, seconds) once expired.
 */
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../console/console-sessions.js';
import { consoleSessionRecord } from '../records/console-session.js';
import { fromTtl, itemKeys, itemName, itemTypes, ttlSeconds } from './keys.js';
import type { DynamoTable } from './table.js';

export class DynamoConsoleSessionStore implements ConsoleSessionStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(record: ConsoleSessionRecord): Promise<void> {
    const { idHash, expiresAt, ...rest } = record;
    await this.table.client.put({
      TableName: this.table.table,
      Item: {
        ...itemKeys.consoleSession(idHash),
        type: itemTypes.consoleSession,
        ...rest,
        expiresAt: ttlSeconds(expiresAt),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async get(idHash: string): Promise<ConsoleSessionRecord | undefined> {
    const key = itemKeys.consoleSession(idHash);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    if (!Item) return undefined;
    return consoleSessionRecord.decode(
      { ...Item, idHash, expiresAt: fromTtl(Item.expiresAt) },
      itemName(this.table.table, key),
    );
  }

  async delete(idHash: string): Promise<void> {
    await this.table.client.delete({ TableName: this.table.table, Key: itemKeys.consoleSession(idHash) });
  }
}
