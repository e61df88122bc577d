/**
 * The OAuth authorization server's records in SQLite: oidc-provider's payloads in `oauth_state`
 * (one row per model and id, with the grant and uid they name pulled out for the two lookups that
 * need them), and the connections customers approved in `oauth_connections`.
 */
import {
  type ConnectionRecord,
  type ConnectionRevocation,
  type ConnectionStore,
  ConnectionTakenError,
  type OAuthStateRecord,
  type OAuthStateStore,
} from '../../oauth/oauth-store.js';
import { connectionRecord, oauthStateRecord } from '../records/oauth.js';
import type { Database } from './database.js';
import { jsonColumn, rowName } from './rows.js';

type Row = Record<string, unknown>;

export class SqliteOAuthStateStore implements OAuthStateStore {
  constructor(private readonly database: Database) {}

  async put(model: string, id: string, record: OAuthStateRecord): Promise<void> {
    const { payload } = record;
    await this.database.write(() =>
      this.database
        .statement(
          `INSERT OR REPLACE INTO oauth_state (model, id, payload, grant_id, uid, consumed_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          model,
          id,
          JSON.stringify(payload),
          typeof payload.grantId === 'string' ? payload.grantId : null,
          typeof payload.uid === 'string' ? payload.uid : null,
          record.consumedAt ?? null,
          record.expiresAt,
        ),
    );
  }

  async find(model: string, id: string, now: number): Promise<OAuthStateRecord | undefined> {
    const row = this.database
      .statement('SELECT * FROM oauth_state WHERE model = ? AND id = ? AND expires_at > ?')
      .get(model, id, now);
    return row && toState(row);
  }

  async findByUid(model: string, uid: string, now: number): Promise<OAuthStateRecord | undefined> {
    const row = this.database
      .statement('SELECT * FROM oauth_state WHERE model = ? AND uid = ? AND expires_at > ?')
      .get(model, uid, now);
    return row && toState(row);
  }

  async consume(model: string, id: string, at: number): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement(
          'UPDATE oauth_state SET consumed_at = ? WHERE model = ? AND id = ? AND consumed_at IS NULL',
        )
        .run(at, model, id),
    );
  }

  async delete(model: string, id: string): Promise<void> {
    await this.database.write(() =>
      this.database.statement('DELETE FROM oauth_state WHERE model = ? AND id = ?').run(model, id),
    );
  }

  async deleteGrant(grantId: string): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement(`DELETE FROM oauth_state WHERE grant_id = ?1 OR (model = 'Grant' AND id = ?1)`)
        .run(grantId),
    );
  }
}

export class SqliteConnectionStore implements ConnectionStore {
  constructor(private readonly database: Database) {}

  async insert(record: ConnectionRecord): Promise<void> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `INSERT OR IGNORE INTO oauth_connections (connection_id, account_id, client_id, client_name, scopes,
             daily_credit_cap, created_at, last_used_at, revoked_at, revoked_reason)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.connectionId,
          record.accountId,
          record.clientId,
          record.clientName,
          JSON.stringify(record.scopes),
          record.dailyCreditCap,
          record.createdAt,
          record.lastUsedAt,
          record.revokedAt,
          record.revokedReason,
        ),
    );
    if (Number(changes) === 0) throw new ConnectionTakenError(record.connectionId);
  }

  async get(connectionId: string): Promise<ConnectionRecord | undefined> {
    const row = this.database
      .statement('SELECT * FROM oauth_connections WHERE connection_id = ?')
      .get(connectionId);
    return row && toConnection(row);
  }

  async list(accountId: string): Promise<ConnectionRecord[]> {
    return this.database
      .statement(
        'SELECT * FROM oauth_connections WHERE account_id = ? ORDER BY created_at DESC, connection_id DESC',
      )
      .all(accountId)
      .map(toConnection);
  }

  async recordUse(connectionId: string, at: string): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement('UPDATE oauth_connections SET last_used_at = ? WHERE connection_id = ?')
        .run(at, connectionId),
    );
  }

  async revoke(connectionId: string, at: string, reason: ConnectionRevocation): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `UPDATE oauth_connections SET revoked_at = COALESCE(revoked_at, ?2),
             revoked_reason = COALESCE(revoked_reason, ?3) WHERE connection_id = ?1`,
        )
        .run(connectionId, at, reason),
    );
    return Number(changes) === 1;
  }
}

function toState(row: Row): OAuthStateRecord {
  return oauthStateRecord.decode(
    { payload: jsonColumn(row.payload), expiresAt: row.expires_at, consumedAt: row.consumed_at },
    rowName('oauth_state', row.model, row.id),
  );
}

function toConnection(row: Row): ConnectionRecord {
  return connectionRecord.decode(
    {
      connectionId: row.connection_id,
      accountId: row.account_id,
      clientId: row.client_id,
      clientName: row.client_name,
      scopes: jsonColumn(row.scopes),
      dailyCreditCap: row.daily_credit_cap,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
      revokedReason: row.revoked_reason,
    },
    rowName('oauth_connections', row.connection_id),
  );
}
