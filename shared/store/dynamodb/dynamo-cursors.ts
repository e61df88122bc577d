/**
 * Cursor records on DynamoDB, deleted by the table's TTL (`expiresAt`, seconds) once expired.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CursorRecord, CursorRecordStore } from '../../paging/cursors.js';
import { itemKeys, itemTypes, ttlSeconds } from './keys.js';
import type { DynamoTable } from './table.js';

export class DynamoCursorStore implements CursorRecordStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(record: CursorRecord): Promise<void> {
    const { id, expiresAt, ...rest } = record;
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.table,
        Item: { ...itemKeys.cursor(id), type: itemTypes.cursor, ...rest, expiresAt: ttlSeconds(expiresAt) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string): Promise<CursorRecord | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({ TableName: this.table.table, Key: itemKeys.cursor(id), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    return {
      id,
      operation: Item.operation as string,
      accountId: Item.accountId as string,
      subject: Item.subject as string,
      position: Item.position as string,
      issuedAt: Item.issuedAt as number,
      expiresAt: (Item.expiresAt as number) * 1000,
    };
  }
}
