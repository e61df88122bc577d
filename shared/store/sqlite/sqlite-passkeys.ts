/**
 * Passkeys and their ceremonies' challenges in SQLite: a row per passkey, found by credential id
 * and listed by account; a challenge row deleted by the statement that reads it (one use).
 */
import {
  type PasskeyChallenge,
  type PasskeyRecord,
  type PasskeyStore,
  PasskeyTakenError,
} from '../../auth/passkeys.js';
import { passkeyChallengeRecord, passkeyRecord } from '../records/passkey.js';
import type { Database } from './database.js';
import { jsonColumn, rowName } from './rows.js';

type Row = Record<string, unknown>;

export class SqlitePasskeyStore implements PasskeyStore {
  constructor(private readonly database: Database) {}

  async insert(record: PasskeyRecord): Promise<void> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `INSERT OR IGNORE INTO passkeys (credential_id, account_id, public_key, counter, transports, label,
             created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.credentialId,
          record.accountId,
          record.publicKey,
          record.counter,
          JSON.stringify(record.transports),
          record.label,
          record.createdAt,
          record.lastUsedAt,
        ),
    );
    if (Number(changes) === 0) throw new PasskeyTakenError(record.credentialId);
  }

  async find(credentialId: string): Promise<PasskeyRecord | undefined> {
    const row = this.database.statement('SELECT * FROM passkeys WHERE credential_id = ?').get(credentialId);
    return row && toPasskey(row);
  }

  async list(accountId: string): Promise<PasskeyRecord[]> {
    return this.database
      .statement('SELECT * FROM passkeys WHERE account_id = ? ORDER BY created_at, credential_id')
      .all(accountId)
      .map(toPasskey);
  }

  async recordUse(credentialId: string, counter: number, at: string): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          // A counter of 0 is an authenticator that keeps none; any other must only grow.
          `UPDATE passkeys SET counter = ?2, last_used_at = ?3
           WHERE credential_id = ?1 AND (counter < ?2 OR (counter = 0 AND ?2 = 0))`,
        )
        .run(credentialId, counter, at),
    );
    return Number(changes) === 1;
  }

  async remove(accountId: string, credentialId: string): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement('DELETE FROM passkeys WHERE account_id = ? AND credential_id = ?')
        .run(accountId, credentialId),
    );
    return Number(changes) === 1;
  }

  async saveChallenge(challenge: PasskeyChallenge): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement(
          'INSERT INTO passkey_challenges (id, challenge, purpose, account_id, expires_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(
          challenge.id,
          challenge.challenge,
          challenge.purpose,
          challenge.accountId ?? null,
          challenge.expiresAt,
        ),
    );
  }

  async takeChallenge(id: string, now: number): Promise<PasskeyChallenge | undefined> {
    const row = await this.database.write(() =>
      this.database.statement('DELETE FROM passkey_challenges WHERE id = ? RETURNING *').get(id),
    );
    if (!row) return undefined;
    const challenge = passkeyChallengeRecord.decode(
      {
        id: row.id,
        challenge: row.challenge,
        purpose: row.purpose,
        accountId: row.account_id,
        expiresAt: row.expires_at,
      },
      rowName('passkey_challenges', id),
    );
    return challenge.expiresAt > now ? challenge : undefined;
  }
}

function toPasskey(row: Row): PasskeyRecord {
  return passkeyRecord.decode(
    {
      credentialId: row.credential_id,
      accountId: row.account_id,
      publicKey: row.public_key,
      counter: row.counter,
      transports: jsonColumn(row.transports),
      label: row.label,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
    },
    rowName('passkeys', row.credential_id),
  );
}
