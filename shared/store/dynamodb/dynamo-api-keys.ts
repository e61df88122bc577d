/**
 * API keys on DynamoDB: the record under the key's hash (read on every request) and a listing entry
 * under the account. `lastUsedAt` lives on the account's balance item (`keyUse`), written by the
 * admission that already writes that item, so recording a use costs no write of its own.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Family } from '../../../schemas/operation-definition.js';
import type { ApiKeyRecord, ApiKeyStore } from '../../auth/api-keys.js';
import { type ItemKey, itemKeys, itemTypes } from './keys.js';
import type { DynamoTable } from './table.js';

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
    const { Item } = await this.table.doc.send(
      new GetCommand({ TableName: this.table.table, Key: itemKeys.apiKeyByHash(keyHash) }),
    );
    return Item ? toRecord(Item, null) : undefined;
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    const [listing, balance] = await Promise.all([
      this.table.doc.send(
        new QueryCommand({
          TableName: this.table.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': itemKeys.account(accountId).pk,
            ':prefix': itemKeys.accountKeyPrefix,
          },
        }),
      ),
      this.table.doc.send(
        new GetCommand({
          TableName: this.table.table,
          Key: itemKeys.balance(accountId),
          ProjectionExpression: 'keyUse',
        }),
      ),
    ]);
    const uses = (balance.Item?.keyUse as Record<string, string> | undefined) ?? {};
    const records = await Promise.all(
      (listing.Items ?? []).map(async (item) => {
        const found = await this.table.doc.send(
          new GetCommand({ TableName: this.table.table, Key: itemKeys.apiKeyByHash(item.keyHash as string) }),
        );
        return found.Item ? toRecord(found.Item, uses[item.keyId as string] ?? null) : undefined;
      }),
    );
    return records
      .filter((record) => record !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async setRevoked(record: ApiKeyRecord, revokedAt: string): Promise<void> {
    await this.table.doc.send(
      new UpdateCommand({
        TableName: this.table.table,
        Key: itemKeys.apiKeyByHash(record.keyHash),
        UpdateExpression: 'SET revokedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': revokedAt },
      }),
    );
  }

  private async put(key: ItemKey, attributes: Record<string, unknown>): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.table,
        Item: { ...key, ...attributes },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }
}

export function toRecord(item: Record<string, unknown>, lastUsedAt: string | null): ApiKeyRecord {
  return {
    keyId: item.keyId as string,
    accountId: item.accountId as string,
    keyHash: item.keyHash as string,
    preview: item.preview as string,
    label: (item.label as string | null | undefined) ?? null,
    scopes: (item.scopes as Family[] | null | undefined) ?? null,
    createdAt: item.createdAt as string,
    expiresAt: (item.expiresAt as string | null | undefined) ?? null,
    revokedAt: (item.revokedAt as string | null | undefined) ?? null,
    // Items written before key uses moved to the balance item still carry their own.
    lastUsedAt: lastUsedAt ?? (item.lastUsedAt as string | null | undefined) ?? null,
  };
}
