/**
 * The operator's commands, one function each: parsed arguments in, a JSON-ready value out. Every
 * command about one account checks that the account exists first, so a typo in an id is reported
 * as such instead of creating orphan keys or failing on a conditional write.
 */
import type { Family } from '../../schemas/catalog.js';
import type { AccountStatus } from '../../shared/accounts/accounts.js';
import { provisionAccount } from '../../shared/accounts/provisioning.js';
import type { ApiKeyRecord } from '../../shared/auth/api-keys.js';
import type { LedgerEntry, LedgerStatus } from '../../shared/billing/credit-ledger.js';
import { longestDeadlineMs } from '../../shared/service.js';
import type { CommandContext } from './run-command.js';

export interface NewAccountOptions {
  name: string;
  credits?: number;
  rateLimit?: number;
  rateWindowSeconds?: number;
  scopes?: Family[];
}

export interface NewKeyOptions {
  scopes?: Family[];
  expiresAt?: string;
  label?: string;
}

/**
 * A pending entry younger than the longest operation deadline may belong to a request still running;
 * the margin covers settlement writes after the deadline.
 */
export const DEFAULT_RECONCILE_AGE_SECONDS = Math.ceil(longestDeadlineMs() / 1000) + 60;

/** A key as operators see it: never its hash. */
function keyView(key: ApiKeyRecord) {
  const { keyId, preview, label, scopes, createdAt, expiresAt, revokedAt, lastUsedAt } = key;
  return { keyId, preview, label, scopes, createdAt, expiresAt, revokedAt, lastUsedAt };
}

export async function createAccount({ repositories, config }: CommandContext, options: NewAccountOptions) {
  const { account, apiKey, keyId, balance } = await provisionAccount(repositories, {
    name: options.name,
    credits: options.credits ?? 0,
    rateLimit: {
      limit: options.rateLimit ?? config.DEFAULT_RATE_LIMIT,
      windowSeconds: options.rateWindowSeconds ?? config.DEFAULT_RATE_WINDOW_SECONDS,
    },
    scopes: options.scopes,
  });
  const { accountId, name, status, rateLimit } = account;
  return { accountId, name, status, rateLimit, balance, apiKey, keyId };
}

export async function listAccounts({ repositories }: CommandContext) {
  const accounts = await repositories.accounts.list();
  return Promise.all(
    accounts.map(async (account) => ({
      ...account,
      balance: (await repositories.ledger.state(account.accountId)).balance,
    })),
  );
}

export async function showAccount({ repositories }: CommandContext, accountId: string) {
  const account = await repositories.accounts.require(accountId);
  const { balance } = await repositories.ledger.state(accountId);
  const keys = await repositories.keys.list(accountId);
  return { ...account, balance, keys: keys.map(keyView) };
}

export function setAccountStatus({ repositories }: CommandContext, accountId: string, status: AccountStatus) {
  return repositories.accounts.setStatus(accountId, status);
}

export async function grantCredits({ repositories }: CommandContext, accountId: string, credits: number) {
  await repositories.accounts.require(accountId);
  return { accountId, balance: await repositories.ledger.grant(accountId, credits) };
}

/** Binds an OAuth subject of OAUTH_ISSUER to the account: its /mcp connections use the account. */
export async function linkOAuth({ repositories }: CommandContext, accountId: string, subject: string) {
  await repositories.accounts.require(accountId);
  await repositories.oauthLinks.link(subject, accountId);
  return { accountId, subject, linked: true };
}

export async function unlinkOAuth({ repositories }: CommandContext, subject: string) {
  return { subject, unlinked: await repositories.oauthLinks.unlink(subject) };
}

export async function issueKey({ repositories }: CommandContext, accountId: string, options: NewKeyOptions) {
  await repositories.accounts.require(accountId);
  const { apiKey, record } = await repositories.keys.issue(accountId, {
    scopes: options.scopes ?? null,
    expiresAt: options.expiresAt ?? null,
    label: options.label ?? null,
  });
  return { accountId, apiKey, ...keyView(record) };
}

export async function revokeKey({ repositories }: CommandContext, accountId: string, keyId: string) {
  await repositories.accounts.require(accountId);
  return { accountId, ...keyView(await repositories.keys.revoke(accountId, keyId)) };
}

export async function listKeys({ repositories }: CommandContext, accountId: string) {
  await repositories.accounts.require(accountId);
  return (await repositories.keys.list(accountId)).map(keyView);
}

type OperationTotals = Record<LedgerStatus, number> & { calls: number; credits: number };

/** Counts by outcome per operation; `credits` are the ones kept, so refunds and pending debits are not. */
function totalsByOperation(entries: readonly LedgerEntry[]): Record<string, OperationTotals> {
  const totals: Record<string, OperationTotals> = {};
  for (const entry of entries) {
    totals[entry.operation] ??= { calls: 0, charged: 0, refunded: 0, pending: 0, credits: 0 };
    const operation = totals[entry.operation] as OperationTotals;
    operation.calls += 1;
    operation[entry.status] += 1;
    if (entry.status === 'charged') operation.credits += entry.cost;
  }
  return totals;
}

export async function usage({ repositories }: CommandContext, accountId: string, recent: number) {
  await repositories.accounts.require(accountId);
  const { balance, granted } = await repositories.ledger.state(accountId);
  const entries = await repositories.ledger.entries(accountId);
  return {
    accountId,
    balance,
    granted,
    totals: totalsByOperation(entries),
    recent: entries.slice(0, recent),
  };
}

export async function reconcile({ repositories }: CommandContext, olderThanSeconds: number) {
  const { settled } = await repositories.ledger.reconcile(olderThanSeconds * 1000);
  return { settled: settled.length, entries: settled };
}
