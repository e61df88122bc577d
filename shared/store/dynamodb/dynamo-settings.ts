/**
 * Service-wide settings on DynamoDB: one item each, created once by a conditional put.
 */
import type { SettingStore } from '../../paging/cursors.js';
import { settingRecord } from '../records/setting.js';
import { itemKeys, itemName, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure } from './table.js';

export class DynamoSettingStore implements SettingStore {
  constructor(private readonly table: DynamoTable) {}

  async get(name: string): Promise<string | undefined> {
    const key = itemKeys.setting(name);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    // Items of earlier versions hold no `name`: their key says it.
    return Item && settingRecord.decode({ name, ...Item }, itemName(this.table.table, key)).value;
  }

  async getOrCreate(name: string, candidate: string): Promise<string> {
    const key = itemKeys.setting(name);
    try {
      await this.table.client.put({
        TableName: this.table.table,
        Item: { ...key, type: itemTypes.setting, name, value: candidate },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      return candidate;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const value = await this.get(name);
      if (value === undefined) throw new Error(`The setting ${name} could neither be created nor read.`);
      return value;
    }
  }
}
