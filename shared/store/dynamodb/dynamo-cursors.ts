/**
 * Cursor records on DynamoDB, deleted by the table's TTL (`expiresAt`, seconds) once expired.
 */
import type { CursorRecord, CursorStore } from '../../paging/cursors.js';
import { cursorRecord } from '../records/cursor.js';
import { fromTtl, itemKeys, itemName, itemTypes, ttlSeconds } from './keys.js';
import type { DynamoTable } from './table.js';

export class DynamoCursorStore implements CursorStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(record: CursorRecord): Promise<void> {
    const { id, expiresAt, ...rest } = record;
    await this.table.client.put({
      TableName: this.table.table,
      Item: { ...itemKeys.cursor(id), type: itemTypes.cursor, ...rest, expiresAt: ttlSeconds(expiresAt) },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async get(id: string): Promise<CursorRecord | undefined> {
    const key = itemKeys.cursor(id);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    if (!Item) return undefined;
    return cursorRecord.decode(
      { ...Item, id, expiresAt: fromTtl(Item.expiresAt) },
      itemName(this.table.table, key),
    );
  }
}
