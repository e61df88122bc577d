/**
 * Accounts: status, request ceiling and name, and their history. The credit balance is kept by
 * billing/, so the hot admission path never rewrites the account record. `AccountStore` is the port
 * an adapter under shared/store/ implements; `AccountRepository` adds what does not depend on the
 * backend. Every change of an account is recorded in its audit log with time, actor and reason
 * (credit changes in the credit ledger instead: billing/billing-store.ts).
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

/** What an operator may change on an account. */
export type AccountSettings = Pick<Account, 'name' | 'status' | 'rateLimit'>;

/** Who made a change and why; every change of an account records it. */
export interface Attribution {
  /** `cli:<user>` for the operator CLI, `system:<part>` for the service itself. */
  actor: string;
  reason?: string;
}

export const auditActions = [
  'account.created',
  'account.renamed',
  'account.rate_limit_changed',
  'account.suspended',
  'account.resumed',
  'key.issued',
  'key.revoked',
  'key.expiry_set',
  'oauth.linked',
  'oauth.unlinked',
  'oauth.connection_revoked',
] as const;
export type AuditAction = (typeof auditActions)[number];

/** What an audited change touched: the settings before and after, or the key, subject or connection. */
export interface AuditDetails {
  from?: Partial<AccountSettings>;
  to?: Partial<AccountSettings>;
  keyId?: string;
  subject?: string;
  connectionId?: string;
}

/** One change of an account that is not a change of its credits. */
export interface AuditEntry {
  auditId: string;
  accountId: string;
  action: AuditAction;
  actor: string;
  reason?: string;
  details: AuditDetails;
  createdAt: string;
}

/** The port: where accounts and their audit log are kept. */
export interface AccountStore {
  /** Adds a new account with its `account.created` entry, atomically; fails if its id is taken. */
  insert(account: Account, audit: AuditEntry): Promise<void>;
  get(accountId: string): Promise<Account | undefined>;
  /** Every account, oldest first. */
  list(): Promise<Account[]>;
  /**
   * Writes the settings of `after` with its audit entry, atomically, if the stored settings still
   * equal those of `before`; false when they do not (changed meanwhile) or the account is gone.
   */
  update(before: Account, after: Account, audit: AuditEntry): Promise<boolean>;
  /** Records a change kept by another store (keys, OAuth links). */
  recordAudit(entry: AuditEntry): Promise<void>;
  /** The account's audit entries, newest first. */
  audit(accountId: string): Promise<AuditEntry[]>;
}

/**
 * Audit entries are listed by time, then by id: entries made in one millisecond by one process (an
 * account created with its first key) must keep the order they were made in, so the id starts with a
 * per-process sequence; the random rest keeps ids of different processes apart.
 */
let auditSequence = 0;
function nextAuditId(): string {
  const sequence = (auditSequence++).toString(36).padStart(8, '0');
  return `aud_${sequence}${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

export class AccountNotFoundError extends Error {
  constructor(accountId: string) {
    super(`No account ${accountId}.`);
  }
}

/** Attempts of a change whose account another writer changed between the read and the write. */
const MAX_CHANGE_ATTEMPTS = 3;

export class AccountRepository {
  constructor(
    private readonly store: AccountStore,
    private readonly clock: Clock,
  ) {}

  async create(input: { name: string; rateLimit: RateLimitSetting }, by: Attribution): Promise<Account> {
    const account: Account = {
      accountId: `acct_${randomUUID().replaceAll('-', '')}`,
      name: input.name,
      status: 'active',
      rateLimit: input.rateLimit,
      createdAt: this.now(),
    };
    const { name, status, rateLimit } = account;
    const audit = this.auditEntry(
      account.accountId,
      'account.created',
      { to: { name, status, rateLimit } },
      by,
    );
    await this.store.insert(account, { ...audit, createdAt: account.createdAt });
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

  setStatus(accountId: string, status: AccountStatus, by: Attribution): Promise<Account> {
    const action = status === 'suspended' ? 'account.suspended' : 'account.resumed';
    return this.change(accountId, () => ({ status }), action, by);
  }

  rename(accountId: string, name: string, by: Attribution): Promise<Account> {
    return this.change(accountId, () => ({ name }), 'account.renamed', by);
  }

  /** Sets the limit, the window or both; what is not given stays as it is. */
  setRateLimit(accountId: string, rateLimit: Partial<RateLimitSetting>, by: Attribution): Promise<Account> {
    const merged = (before: Account) => ({ rateLimit: { ...before.rateLimit, ...rateLimit } });
    return this.change(accountId, merged, 'account.rate_limit_changed', by);
  }

  /** Records a change of the account kept elsewhere (a key issued or revoked, an OAuth link). */
  async record(
    accountId: string,
    action: AuditAction,
    details: AuditDetails,
    by: Attribution,
  ): Promise<void> {
    await this.store.recordAudit(this.auditEntry(accountId, action, details, by));
  }

  /** The account's audit log, newest first. */
  async history(accountId: string): Promise<AuditEntry[]> {
    await this.require(accountId);
    return this.store.audit(accountId);
  }

  /**
   * Applies the settings `change` makes of the account as it finds it, with one audit entry holding
   * the values before and after. A change that changes nothing is not recorded.
   */
  private async change(
    accountId: string,
    change: (before: Account) => Partial<AccountSettings>,
    action: AuditAction,
    by: Attribution,
  ): Promise<Account> {
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt += 1) {
      const before = await this.require(accountId);
      const settings = change(before);
      const after: Account = { ...before, ...settings };
      const fields = (Object.keys(settings) as (keyof AccountSettings)[]).filter(
        (field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]),
      );
      if (fields.length === 0) return before;
      const details = { from: pick(before, fields), to: pick(after, fields) };
      if (await this.store.update(before, after, this.auditEntry(accountId, action, details, by)))
        return after;
    }
    throw new Error(`Account ${accountId} kept changing under this command; nothing was changed. Try again.`);
  }

  private auditEntry(
    accountId: string,
    action: AuditAction,
    details: AuditDetails,
    by: Attribution,
  ): AuditEntry {
    return {
      auditId: nextAuditId(),
      accountId,
      action,
      actor: by.actor,
      ...(by.reason === undefined ? {} : { reason: by.reason }),
      details,
      createdAt: this.now(),
    };
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

function pick(account: Account, fields: readonly (keyof AccountSettings)[]): Partial<AccountSettings> {
  return Object.fromEntries(fields.map((field) => [field, account[field]]));
}
