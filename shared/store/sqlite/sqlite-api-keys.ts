/**
 * API keys in SQLite: one row per key, found by hash (every request) or by account (listings).
 */
import type { Family } from '../../../schemas/operation-definition.js';
import type { ApiKeyRecord, ApiKeyStore } from '../../auth/api-keys.js';
import type { Database } from './database.js';

type Row = Record<string, unknown>;

export class SqliteApiKeyStore implements ApiKeyStore {
  constructor(private readonly database: Database) {}

  insert(record: ApiKeyRecord): Promise<void> {
    return this.database.write(() => insertKey(this.database, record));
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = this.database.statement('SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash);
    return row ? toRecord(row) : undefined;
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    return this.database
      .statement('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, key_id')
      .all(accountId)
      .map(toRecord);
  }

  async setRevoked(record: ApiKeyRecord, revokedAt: string): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?')
        .run(revokedAt, record.keyHash),
    );
  }
}

export function toRecord(row: Row): ApiKeyRecord {
  return {
    keyId: row.key_id as string,
    accountId: row.account_id as string,
    keyHash: row.key_hash as string,
    preview: row.preview as string,
    label: row.label as string | null,
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes as string) as Family[]),
    createdAt: row.created_at as string,
    expiresAt: row.expires_at as string | null,
    revokedAt: row.revoked_at as string | null,
    lastUsedAt: row.last_used_at as string | null,
  };
}

export function insertKey(database: Database, record: ApiKeyRecord): void {
  database
    .statement(
      `INSERT INTO api_keys (key_hash, key_id, account_id, preview, label, scopes, created_at,
         expires_at, revoked_at, last_used_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      record.keyHash,
      record.keyId,
      record.accountId,
      record.preview,
      record.label,
      record.scopes === null ? null : JSON.stringify(record.scopes),
      record.createdAt,
      record.expiresAt,
      record.revokedAt,
      record.lastUsedAt,
    );
}
