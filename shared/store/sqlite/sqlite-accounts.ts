/**
 * Accounts in SQLite: one row each, and their audit log in `account_audit` (schema version 5), each
 * change written in the same transaction as its audit row.
 */
import type { Account, AccountStore, AuditEntry } from '../../accounts/accounts.js';
import { accountRecord } from '../records/account.js';
import { auditEntryRecord } from '../records/audit-entry.js';
import type { Database } from './database.js';
import { jsonColumn, rowName } from './rows.js';

type Row = Record<string, unknown>;

export class SqliteAccountStore implements AccountStore {
  constructor(private readonly database: Database) {}

  insert(account: Account, audit: AuditEntry): Promise<void> {
    return this.database.write(() => {
      insertAccount(this.database, account);
      insertAudit(this.database, audit);
    });
  }

  async get(accountId: string): Promise<Account | undefined> {
    const row = this.database.statement('SELECT * FROM accounts WHERE account_id = ?').get(accountId);
    return row ? toAccount(row) : undefined;
  }

  async list(): Promise<Account[]> {
    return this.database
      .statement('SELECT * FROM accounts ORDER BY created_at, account_id')
      .all()
      .map(toAccount);
  }

  update(before: Account, after: Account, audit: AuditEntry): Promise<boolean> {
    return this.database.write(() => {
      const { changes } = this.database
        .statement(
          `UPDATE accounts SET name = ?, status = ?, rate_limit = ?, rate_window_seconds = ?
           WHERE account_id = ? AND name = ? AND status = ? AND rate_limit = ? AND rate_window_seconds = ?`,
        )
        .run(
          after.name,
          after.status,
          after.rateLimit.limit,
          after.rateLimit.windowSeconds,
          before.accountId,
          before.name,
          before.status,
          before.rateLimit.limit,
          before.rateLimit.windowSeconds,
        );
      if (Number(changes) !== 1) return false;
      insertAudit(this.database, audit);
      return true;
    });
  }

  recordAudit(entry: AuditEntry): Promise<void> {
    return this.database.write(() => insertAudit(this.database, entry));
  }

  async audit(accountId: string): Promise<AuditEntry[]> {
    return this.database
      .statement('SELECT * FROM account_audit WHERE account_id = ? ORDER BY created_at DESC, audit_id DESC')
      .all(accountId)
      .map(toAuditEntry);
  }
}

function toAccount(row: Row): Account {
  return accountRecord.decode(
    {
      accountId: row.account_id,
      name: row.name,
      status: row.status,
      rateLimit: { limit: row.rate_limit, windowSeconds: row.rate_window_seconds },
      createdAt: row.created_at,
    },
    rowName('accounts', row.account_id),
  );
}

function toAuditEntry(row: Row): AuditEntry {
  return auditEntryRecord.decode(
    {
      auditId: row.audit_id,
      accountId: row.account_id,
      action: row.action,
      actor: row.actor,
      reason: row.reason,
      details: jsonColumn(row.details),
      createdAt: row.created_at,
    },
    rowName('account_audit', row.account_id, row.audit_id),
  );
}

export function insertAccount(database: Database, account: Account): void {
  database
    .statement(
      `INSERT INTO accounts (account_id, name, status, rate_limit, rate_window_seconds, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(
      account.accountId,
      account.name,
      account.status,
      account.rateLimit.limit,
      account.rateLimit.windowSeconds,
      account.createdAt,
    );
}

export function insertAudit(database: Database, entry: AuditEntry): void {
  database
    .statement(
      `INSERT INTO account_audit (account_id, audit_id, action, actor, reason, details, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.accountId,
      entry.auditId,
      entry.action,
      entry.actor,
      entry.reason ?? null,
      JSON.stringify(entry.details),
      entry.createdAt,
    );
}
