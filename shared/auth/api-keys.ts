/**
 * API keys: a fixed prefix and 66 Base64url characters (396 random bits). Only the SHA-256 of a key
 * is stored; the key itself is shown once, when it is issued. An account may hold several keys at
 * once (rotation with overlap), each with optional scopes (operation families) and expiry.
 * `ApiKeyStore` is the port an adapter under shared/store/ implements. A key's `lastUsedAt` is
 * written by the billing port together with the request's admission (no write of its own).
 */
import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Family } from '../../schemas/operation-definition.js';
import type { Clock } from '../clock.js';

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

/** Every request with a key hashes it: the one-shot `hash` takes half the time of a Hash object. */
export function hashApiKey(apiKey: string): string {
  return hash('sha256', apiKey, 'hex');
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
  /** Credits the key may spend per UTC day and per UTC month (billing/spend-caps.ts); null: no cap. */
  dailyCreditCap: number | null;
  monthlyCreditCap: number | null;
}

/** What an issuer may set on a new key. */
export interface KeyOptions {
  scopes?: Family[] | null;
  expiresAt?: string | null;
  label?: string | null;
  dailyCreditCap?: number | null;
  monthlyCreditCap?: number | null;
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

/** The port: where key records are kept, reachable by hash (every request) and by account. */
export interface ApiKeyStore {
  /**
   * Adds a key. An adapter that cannot write both ways in one step writes the account's listing
   * first: a crash in between leaves a listed key that cannot authenticate, never a working key
   * that the operator cannot see or revoke.
   */
  insert(record: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** The account's keys, oldest first, with their `lastUsedAt`. */
  list(accountId: string): Promise<ApiKeyRecord[]>;
  setRevoked(record: ApiKeyRecord, revokedAt: string): Promise<void>;
  /** Sets when the key stops working (a rotation's overlap ends). */
  setExpiresAt(record: ApiKeyRecord, expiresAt: string): Promise<void>;
}

export class ApiKeyRepository {
  constructor(
    private readonly store: ApiKeyStore,
    private readonly clock: Clock,
  ) {}

  async issue(accountId: string, options: KeyOptions = {}): Promise<IssuedKey> {
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
      dailyCreditCap: options.dailyCreditCap ?? null,
      monthlyCreditCap: options.monthlyCreditCap ?? null,
    };
    await this.store.insert(record);
    return { apiKey, record };
  }

  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.store.findByHash(keyHash);
  }

  list(accountId: string): Promise<ApiKeyRecord[]> {
    return this.store.list(accountId);
  }

  async revoke(accountId: string, keyId: string): Promise<ApiKeyRecord> {
    const listed = (await this.list(accountId)).find((key) => key.keyId === keyId);
    if (!listed) throw new ApiKeyNotFoundError(keyId);
    if (listed.revokedAt) return listed;
    const revokedAt = new Date(this.clock.now()).toISOString();
    await this.store.setRevoked(listed, revokedAt);
    return { ...listed, revokedAt };
  }

  /** Makes the key expire at `expiresAt`, or keeps the earlier expiry it already has. */
  async expire(accountId: string, keyId: string, expiresAt: string): Promise<ApiKeyRecord> {
    const listed = (await this.list(accountId)).find((key) => key.keyId === keyId);
    if (!listed) throw new ApiKeyNotFoundError(keyId);
    if (listed.expiresAt && Date.parse(listed.expiresAt) <= Date.parse(expiresAt)) return listed;
    await this.store.setExpiresAt(listed, expiresAt);
    return { ...listed, expiresAt };
  }
}
