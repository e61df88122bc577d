/**
 * API keys on DynamoDB: the record under the key's hash (read on every request) and a listing entry
 * under the account. `lastUsedAt` lives on the account's balance item (`keyUse`), written by the
 * admission that already writes that item, so recording a use costs no write of its own.
 */
import * as z from 'zod';
import type { ApiKeyRecord, ApiKeyStore } from '../../auth/api-keys.js';
import { apiKeyRecord } from '../records/api-key.js';
import { recordCodec } from '../records/stored-record.js';
import { keyUsesOf } from './balance-item.js';
import { type ItemKey, itemKeys, itemName, itemTypes } from './keys.js';
import type { DynamoTable } from './table.js';

/** The account's listing entry of a key: enough to reach the key's own item. */
const keyListing = recordCodec('API key listing', () => z.object({ keyId: z.string(), keyHash: z.string() }));

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(record: ApiKeyRecord): Promise<void> {
    // Listing entry first (see ApiKeyStore.insert).
    await this.put(itemKeys.accountKey(record.accountId, record.keyId), {
      type: itemTypes.accountKey,
      keyId: record.keyId,
      keyHash: record.keyHash,
    });
    const { lastUsedAt: _notStoredHere, ...stored } = record;
    await this.put(itemKeys.apiKeyByHash(record.keyHash), { type: itemTypes.apiKey, ...stored });
  }

  /** The record as authentication needs it; its `lastUsedAt` is not read here (see `list`). */
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: itemKeys.apiKeyByHash(keyHash),
    });
    return Item ? toRecord(this.table.table, Item, null) : undefined;
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    const [listing, balance] = await Promise.all([
      this.table.client.query({
        TableName: this.table.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': itemKeys.account(accountId).pk,
          ':prefix': itemKeys.accountKeyPrefix,
        },
      }),
      this.table.client.get({
        TableName: this.table.table,
        Key: itemKeys.balance(accountId),
        ProjectionExpression: 'keyUse',
      }),
    ]);
    const uses = keyUsesOf(this.table.table, itemKeys.balance(accountId), balance.Item);
    const records = await Promise.all(
      (listing.Items ?? []).map(async (item) => {
        const { keyId, keyHash } = keyListing.decode(item, itemName(this.table.table, item));
        const found = await this.table.client.get({
          TableName: this.table.table,
          Key: itemKeys.apiKeyByHash(keyHash),
        });
        return found.Item ? toRecord(this.table.table, found.Item, uses.get(keyId) ?? null) : undefined;
      }),
    );
    return records
      .filter((record) => record !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  setRevoked(record: ApiKeyRecord, revokedAt: string): Promise<void> {
    return this.setTime(record, 'revokedAt', revokedAt);
  }

  setExpiresAt(record: ApiKeyRecord, expiresAt: string): Promise<void> {
    return this.setTime(record, 'expiresAt', expiresAt);
  }

  private async setTime(record: ApiKeyRecord, attribute: 'revokedAt' | 'expiresAt', at: string) {
    await this.table.client.update({
      TableName: this.table.table,
      Key: itemKeys.apiKeyByHash(record.keyHash),
      UpdateExpression: 'SET #attribute = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#attribute': attribute },
      ExpressionAttributeValues: { ':at': at },
    });
  }

  private async put(key: ItemKey, attributes: Record<string, unknown>): Promise<void> {
    await this.table.client.put({
      TableName: this.table.table,
      Item: { ...key, ...attributes },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }
}

/** A key item of `table`, with its last use as the balance item records it (`keyUse`). */
export function toRecord(
  table: string,
  item: Record<string, unknown>,
  lastUsedAt: string | null,
): ApiKeyRecord {
  return apiKeyRecord.decode(
    // Items written before key uses moved to the balance item still carry their own.
    { ...item, lastUsedAt: lastUsedAt ?? item.lastUsedAt },
    itemName(table, item),
  );
}
