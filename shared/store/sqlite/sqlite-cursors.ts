/**
 * Cursor records in SQLite: one row each, deleted by `sweepExpired` once expired.
 */
import type { CursorRecord, CursorStore } from '../../paging/cursors.js';
import { cursorRecord } from '../records/cursor.js';
import type { Database } from './database.js';
import { rowName } from './rows.js';

export class SqliteCursorStore implements CursorStore {
  constructor(private readonly database: Database) {}

  async insert(record: CursorRecord): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement(
          `INSERT INTO cursors (id, operation, account_id, subject, position, issued_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.id,
          record.operation,
          record.accountId,
          record.subject,
          record.position,
          record.issuedAt,
          record.expiresAt,
        ),
    );
  }

  async get(id: string): Promise<CursorRecord | undefined> {
    const row = this.database.statement('SELECT * FROM cursors WHERE id = ?').get(id);
    if (!row) return undefined;
    return cursorRecord.decode(
      {
        id: row.id,
        operation: row.operation,
        accountId: row.account_id,
        subject: row.subject,
        position: row.position,
        issuedAt: row.issued_at,
        expiresAt: row.expires_at,
      },
      rowName('cursors', id),
    );
  }
}
