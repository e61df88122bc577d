/**
 * Service-wide settings on DynamoDB: one item each, created once by a conditional put.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SettingStore } from '../store.js';
import { itemKeys, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure } from './table.js';

export class DynamoSettingStore implements SettingStore {
  constructor(private readonly table: DynamoTable) {}

  async get(name: string): Promise<string | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({ TableName: this.table.table, Key: itemKeys.setting(name), ConsistentRead: true }),
    );
    return Item?.value as string | undefined;
  }

  async getOrCreate(name: string, candidate: string): Promise<string> {
    const key = itemKeys.setting(name);
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.table,
          Item: { ...key, type: itemTypes.setting, name, value: candidate },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return candidate;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const value = await this.get(name);
      if (value === undefined) throw new Error(`The setting ${name} could neither be created nor read.`);
      return value;
    }
  }
}
