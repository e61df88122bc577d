/**
 * Console sessions in SQLite: one row each, deleted by sign-out or by `sweepExpired` once expired.
 */
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../console/console-sessions.js';
import { consoleSessionRecord } from '../records/console-session.js';
import type { Database } from './database.js';
import { rowName } from './rows.js';

export class SqliteConsoleSessionStore implements ConsoleSessionStore {
  constructor(private readonly database: Database) {}

  async insert(record: ConsoleSessionRecord): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement(
          `INSERT INTO console_sessions (id_hash, account_id, method, credential, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.idHash,
          record.accountId,
          record.method,
          record.credential,
          record.createdAt,
          record.expiresAt,
        ),
    );
  }

  async get(idHash: string): Promise<ConsoleSessionRecord | undefined> {
    const row = this.database.statement('SELECT * FROM console_sessions WHERE id_hash = ?').get(idHash);
    if (!row) return undefined;
    return consoleSessionRecord.decode(
      {
        idHash: row.id_hash,
        accountId: row.account_id,
        method: row.method,
        credential: row.credential,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      },
      rowName('console_sessions', idHash),
    );
  }

  async delete(idHash: string): Promise<void> {
    await this.database.write(() =>
      this.database.statement('DELETE FROM console_sessions WHERE id_hash = ?').run(idHash),
    );
  }
}
