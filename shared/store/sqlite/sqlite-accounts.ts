/**
 * Accounts in SQLite: one row each.
 */
import type { Account, AccountStatus, AccountStore } from '../../accounts/accounts.js';
import type { Database } from './database.js';

type Row = Record<string, unknown>;

export class SqliteAccountStore implements AccountStore {
  constructor(private readonly database: Database) {}

  insert(account: Account): Promise<void> {
    return this.database.write(() => insertAccount(this.database, account));
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

  setStatus(accountId: string, status: AccountStatus): Promise<Account | undefined> {
    return this.database.write(() => {
      const row = this.database
        .statement('UPDATE accounts SET status = ? WHERE account_id = ? RETURNING *')
        .get(status, accountId);
      return row ? toAccount(row) : undefined;
    });
  }
}

export function toAccount(row: Row): Account {
  return {
    accountId: row.account_id as string,
    name: row.name as string,
    status: row.status as AccountStatus,
    rateLimit: { limit: row.rate_limit as number, windowSeconds: row.rate_window_seconds as number },
    createdAt: row.created_at as string,
  };
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
