/**
 * API keys: a fixed prefix and 66 Base64url characters (396 random bits). Only the SHA-256 of a key
 * is stored; the key itself is shown once, when it is issued. An account may hold several keys at
 * once (rotation with overlap), each with optional scopes (operation families) and expiry.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Family } from '../../schemas/catalog.js';
import type { Clock } from '../clock.js';
import type { Store } from '../store/dynamo.js';
import { itemKeys, itemTypes } from '../store/keys.js';

export const API_KEY_PREFIX = 'lk_live_';
const KEY_BODY_LENGTH = 66;
const apiKeyPattern = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{${KEY_BODY_LENGTH}}$`);

export function generateApiKey(): string {
  // 50 random bytes encode to 67 Base64url characters; 66 keep 396 bits.
  return API_KEY_PREFIX + randomBytes(50).toString('base64url').slice(0, KEY_BODY_LENGTH);
}

export function isWellFormedApiKey(candidate: string): boolean {
  return apiKeyPattern.test(candidate);
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  keyHash: string;
  /** First characters of the key, to tell keys apart in listings. */
  preview: string;
  /** Operator's note, e.g. what the key is for. */
  label: string | null;
  /** Families the key may call; null means all. */
  scopes: Family[] | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface IssuedKey {
  apiKey: string;
  record: ApiKeyRecord;
}

export class ApiKeyNotFoundError extends Error {
  constructor(keyId: string) {
    super(`No key ${keyId} on this account.`);
  }
}

export class ApiKeyRepository {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async issue(
    accountId: string,
    options: { scopes?: Family[] | null; expiresAt?: string | null; label?: string | null } = {},
  ): Promise<IssuedKey> {
    const apiKey = generateApiKey();
    const record: ApiKeyRecord = {
      keyId: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      accountId,
      keyHash: hashApiKey(apiKey),
      preview: `${apiKey.slice(0, API_KEY_PREFIX.length + 4)}…`,
      label: options.label ?? null,
      scopes: options.scopes ?? null,
      createdAt: new Date(this.clock.now()).toISOString(),
      expiresAt: options.expiresAt ?? null,
      revokedAt: null,
      lastUsedAt: null,
    };
    // Listing entry first: a crash in between leaves a listed key that cannot authenticate, never
    // a working key that the operator cannot see or revoke.
    await this.put(itemKeys.accountKey(accountId, record.keyId), {
      type: itemTypes.accountKey,
      keyId: record.keyId,
      keyHash: record.keyHash,
    });
    await this.put(itemKeys.apiKeyByHash(record.keyHash), { type: itemTypes.apiKey, ...record });
    return { apiKey, record };
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: itemKeys.apiKeyByHash(keyHash) }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  /** The account's keys; the record reached by hash is the source of truth for each. */
  async list(accountId: string): Promise<ApiKeyRecord[]> {
    const { Items } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': itemKeys.account(accountId).pk,
          ':prefix': itemKeys.accountKeyPrefix,
        },
      }),
    );
    const records = await Promise.all((Items ?? []).map((item) => this.findByHash(item.keyHash as string)));
    return records
      .filter((record) => record !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async revoke(accountId: string, keyId: string): Promise<ApiKeyRecord> {
    const listed = (await this.list(accountId)).find((key) => key.keyId === keyId);
    if (!listed) throw new ApiKeyNotFoundError(keyId);
    if (listed.revokedAt) return listed;
    const revokedAt = new Date(this.clock.now()).toISOString();
    await this.update(listed, 'revokedAt', revokedAt);
    return { ...listed, revokedAt };
  }

  /** Records use of a key; best effort, and callers throttle it (see Authenticator). */
  async touch(record: ApiKeyRecord, at: string): Promise<void> {
    await this.update(record, 'lastUsedAt', at);
  }

  private async update(record: ApiKeyRecord, attribute: 'revokedAt' | 'lastUsedAt', value: string) {
    await this.store.doc.send(
      new UpdateCommand({
        TableName: this.store.table,
        Key: itemKeys.apiKeyByHash(record.keyHash),
        UpdateExpression: 'SET #attribute = :value',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#attribute': attribute },
        ExpressionAttributeValues: { ':value': value },
      }),
    );
  }

  private async put(key: { pk: string; sk: string }, attributes: Record<string, unknown>): Promise<void> {
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: { ...key, ...attributes },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }
}

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
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
    lastUsedAt: (item.lastUsedAt as string | null | undefined) ?? null,
  };
}
