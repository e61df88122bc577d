/**
 * Accounts: status, request ceiling and name. The credit balance is kept by billing/, so the hot
 * admission path never rewrites the account record. `AccountStore` is the port an adapter under
 * shared/store/ implements; `AccountRepository` adds what does not depend on the backend.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';

export const accountStatuses = ['active', 'suspended'] as const;
export type AccountStatus = (typeof accountStatuses)[number];

export interface RateLimitSetting {
  /** Requests admitted per rolling window. */
  limit: number;
  windowSeconds: number;
}

export interface Account {
  accountId: string;
  name: string;
  status: AccountStatus;
  rateLimit: RateLimitSetting;
  createdAt: string;
}

/** The port: where accounts are kept. */
export interface AccountStore {
  /** Adds a new account; fails if its id is taken. */
  insert(account: Account): Promise<void>;
  get(accountId: string): Promise<Account | undefined>;
  /** Every account, oldest first. */
  list(): Promise<Account[]>;
  /** The account after the change, or undefined when there is no such account. */
  setStatus(accountId: string, status: AccountStatus): Promise<Account | undefined>;
}

export class AccountNotFoundError extends Error {
  constructor(accountId: string) {
    super(`No account ${accountId}.`);
  }
}

export class AccountRepository {
  constructor(
    private readonly store: AccountStore,
    private readonly clock: Clock,
  ) {}

  async create(input: { name: string; rateLimit: RateLimitSetting }): Promise<Account> {
    const account: Account = {
      accountId: `acct_${randomUUID().replaceAll('-', '')}`,
      name: input.name,
      status: 'active',
      rateLimit: input.rateLimit,
      createdAt: new Date(this.clock.now()).toISOString(),
    };
    await this.store.insert(account);
    return account;
  }

  get(accountId: string): Promise<Account | undefined> {
    return this.store.get(accountId);
  }

  async require(accountId: string): Promise<Account> {
    const account = await this.get(accountId);
    if (!account) throw new AccountNotFoundError(accountId);
    return account;
  }

  list(): Promise<Account[]> {
    return this.store.list();
  }

  async setStatus(accountId: string, status: AccountStatus): Promise<Account> {
    const account = await this.store.setStatus(accountId, status);
    if (!account) throw new AccountNotFoundError(accountId);
    return account;
  }
}
