/**
 * API keys in SQLite: one row per key, found by hash (every request) or by account (listings).
 */
import type { ApiKeyRecord, ApiKeyStore } from '../../auth/api-keys.js';
import { apiKeyRecord } from '../records/api-key.js';
import type { Database } from './database.js';
import { jsonColumn, rowName } from './rows.js';

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

  async setExpiresAt(record: ApiKeyRecord, expiresAt: string): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement('UPDATE api_keys SET expires_at = ? WHERE key_hash = ?')
        .run(expiresAt, record.keyHash),
    );
  }
}

function toRecord(row: Row): ApiKeyRecord {
  return apiKeyRecord.decode(
    {
      keyId: row.key_id,
      accountId: row.account_id,
      keyHash: row.key_hash,
      preview: row.preview,
      label: row.label,
      scopes: jsonColumn(row.scopes),
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
      dailyCreditCap: row.daily_credit_cap,
      monthlyCreditCap: row.monthly_credit_cap,
    },
    rowName('api_keys', row.key_hash),
  );
}

export function insertKey(database: Database, record: ApiKeyRecord): void {
  database
    .statement(
      `INSERT INTO api_keys (key_hash, key_id, account_id, preview, label, scopes, created_at,
         expires_at, revoked_at, last_used_at, daily_credit_cap, monthly_credit_cap)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      record.dailyCreditCap,
      record.monthlyCreditCap,
    );
}
