/**
 * The operator's commands, one function each: parsed arguments in, a JSON-ready value out. Every
 * command about one account checks that the account exists first, so a typo in an id is reported
 * as such instead of creating orphan keys or failing on a conditional write. Every change names
 * who made it and why (`Attribution`): credit changes become credit entries, the others audit
 * entries, and `history` lists both.
 */
import { catalog } from '../../schemas/catalog.js';
import type { Family } from '../../schemas/operation-definition.js';
import type {
  AccountStatus,
  Attribution,
  AuditEntry,
  RateLimitSetting,
} from '../../shared/accounts/accounts.js';
import {
  issueKey as issueAuditedKey,
  provisionAccount,
  revokeKey as revokeAuditedKey,
} from '../../shared/accounts/provisioning.js';
import type { ApiKeyRecord } from '../../shared/auth/api-keys.js';
import type { CreditEntry, LedgerEntry, LedgerStatus } from '../../shared/billing/credit-ledger.js';
import { longestDeadlineMs } from '../../shared/service.js';
import { CommandRefusedError } from './command-refused.js';
import type { CommandContext } from './run-command.js';

export interface NewAccountOptions extends Attribution {
  name: string;
  credits?: number;
  rateLimit?: number;
  rateWindowSeconds?: number;
  scopes?: Family[];
}

/** A time range of `createdAt`: `since` inclusive, `until` exclusive, both ISO 8601 in UTC. */
export interface TimeRange {
  since?: string;
  until?: string;
}

export interface NewKeyOptions extends Attribution {
  scopes?: Family[];
  expiresAt?: string;
  label?: string;
  dailyCreditCap?: number;
  monthlyCreditCap?: number;
}

/**
 * A pending entry younger than the longest operation deadline may belong to a request still running;
 * the margin covers settlement writes after the deadline.
 */
export const DEFAULT_RECONCILE_AGE_SECONDS = Math.ceil(longestDeadlineMs(catalog) / 1000) + 60;

/** A key as operators see it: never its hash. */
function keyView(key: ApiKeyRecord) {
  const { keyId, preview, label, scopes, createdAt, expiresAt, revokedAt, lastUsedAt } = key;
  const { dailyCreditCap, monthlyCreditCap } = key;
  return {
    keyId,
    preview,
    label,
    scopes,
    createdAt,
    expiresAt,
    revokedAt,
    lastUsedAt,
    dailyCreditCap,
    monthlyCreditCap,
  };
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
    by: attribution(options),
  });
  const { accountId, name, status, rateLimit } = account;
  return { accountId, name, status, rateLimit, balance, apiKey, keyId };
}

export async function listAccounts({ repositories }: CommandContext) {
  const accounts = await repositories.accounts.list();
  return Promise.all(
    accounts.map(async (account) => {
      const { balance, granted } = await repositories.ledger.state(account.accountId);
      return { ...account, balance, granted };
    }),
  );
}

/** The account, its balance, its credit entries (grants and adjustments) and its keys. */
export async function showAccount({ repositories }: CommandContext, accountId: string) {
  const account = await repositories.accounts.require(accountId);
  const { balance, granted } = await repositories.ledger.state(accountId);
  const credits = await repositories.ledger.credits(accountId);
  const keys = await repositories.keys.list(accountId);
  return { ...account, balance, ...creditsView(granted, credits), keys: keys.map(keyView) };
}

export function setAccountStatus(
  { repositories }: CommandContext,
  accountId: string,
  status: AccountStatus,
  by: Attribution,
) {
  return repositories.accounts.setStatus(accountId, status, attribution(by));
}

export function renameAccount(
  { repositories }: CommandContext,
  accountId: string,
  name: string,
  by: Attribution,
) {
  return repositories.accounts.rename(accountId, name, attribution(by));
}

export function setRateLimit(
  { repositories }: CommandContext,
  accountId: string,
  change: Partial<RateLimitSetting>,
  by: Attribution,
) {
  return repositories.accounts.setRateLimit(accountId, change, attribution(by));
}

export async function grantCredits(
  { repositories }: CommandContext,
  accountId: string,
  credits: number,
  by: Attribution,
) {
  await repositories.accounts.require(accountId);
  const entry = await repositories.ledger.grant(accountId, credits, attribution(by));
  return { accountId, balance: entry.balance, entry };
}

/** Adds or takes away credits; never below a balance of 0 (credits held by requests in flight excluded). */
export async function adjustCredits(
  { repositories }: CommandContext,
  accountId: string,
  amount: number,
  by: Attribution,
) {
  await repositories.accounts.require(accountId);
  const adjusted = await repositories.ledger.adjust(accountId, amount, attribution(by));
  if (adjusted.outcome === 'insufficient_credits') {
    throw new CommandRefusedError(
      'insufficient_credits',
      `Account ${accountId} has ${adjusted.balance} credits; an adjustment of ${amount} would take it below 0. Nothing was changed.`,
    );
  }
  return { accountId, balance: adjusted.balance, entry: adjusted.entry };
}

/** Binds an OAuth subject of OAUTH_ISSUER to the account: its /mcp connections use the account. */
export async function linkOAuth(
  { repositories }: CommandContext,
  accountId: string,
  subject: string,
  by: Attribution,
) {
  await repositories.accounts.require(accountId);
  const already = (await repositories.oauthLinks.find(subject)) === accountId;
  await repositories.oauthLinks.link(subject, accountId);
  if (!already) await repositories.accounts.record(accountId, 'oauth.linked', { subject }, attribution(by));
  return { accountId, subject, linked: true };
}

export async function unlinkOAuth({ repositories }: CommandContext, subject: string, by: Attribution) {
  const accountId = await repositories.oauthLinks.find(subject);
  const unlinked = await repositories.oauthLinks.unlink(subject);
  if (unlinked && accountId !== undefined)
    await repositories.accounts.record(accountId, 'oauth.unlinked', { subject }, attribution(by));
  return { subject, unlinked };
}

export async function issueKey({ repositories }: CommandContext, accountId: string, options: NewKeyOptions) {
  await repositories.accounts.require(accountId);
  const { apiKey, record } = await issueAuditedKey(
    repositories,
    accountId,
    {
      scopes: options.scopes ?? null,
      expiresAt: options.expiresAt ?? null,
      label: options.label ?? null,
      dailyCreditCap: options.dailyCreditCap ?? null,
      monthlyCreditCap: options.monthlyCreditCap ?? null,
    },
    attribution(options),
  );
  return { accountId, apiKey, ...keyView(record) };
}

export async function revokeKey(
  { repositories }: CommandContext,
  accountId: string,
  keyId: string,
  by: Attribution,
) {
  await repositories.accounts.require(accountId);
  return { accountId, ...keyView(await revokeAuditedKey(repositories, accountId, keyId, attribution(by))) };
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

/** Balance and credit entries now; totals and the most recent ledger entries within `range`. */
export async function usage(
  { repositories }: CommandContext,
  accountId: string,
  options: TimeRange & { recent: number },
) {
  await repositories.accounts.require(accountId);
  const { balance, granted } = await repositories.ledger.state(accountId);
  const { since, until } = options;
  const entries = await repositories.ledger.entries(accountId, { since, until });
  const credits = await repositories.ledger.credits(accountId);
  return {
    accountId,
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    balance,
    ...creditsView(granted, credits),
    totals: totalsByOperation(entries),
    recent: entries.slice(0, options.recent),
  };
}

type HistoryEntry =
  | ({ at: string; action: `credits.${CreditEntry['kind']}` } & Omit<
      CreditEntry,
      'createdAt' | 'kind' | 'accountId'
    >)
  | ({ at: string } & Omit<AuditEntry, 'createdAt' | 'accountId'>);

/** Every recorded change of the account within `range`, newest first: credit and audit entries. */
export async function accountHistory({ repositories }: CommandContext, accountId: string, range: TimeRange) {
  const audit = await repositories.accounts.history(accountId);
  const { balance, granted } = await repositories.ledger.state(accountId);
  const credits = await repositories.ledger.credits(accountId);
  const entries: HistoryEntry[] = [
    ...credits.map(({ createdAt, kind, accountId: _, ...entry }) => ({
      at: createdAt,
      action: `credits.${kind}` as const,
      ...entry,
    })),
    ...audit.map(({ createdAt, accountId: _, ...entry }) => ({ at: createdAt, ...entry })),
  ];
  const inRange = ({ at }: HistoryEntry) =>
    (range.since === undefined || at >= range.since) && (range.until === undefined || at < range.until);
  const { unrecordedGrants } = creditsView(granted, credits);
  return {
    accountId,
    ...range,
    balance,
    granted,
    ...(unrecordedGrants === undefined ? {} : { unrecordedGrants }),
    entries: entries.filter(inRange).sort((a, b) => b.at.localeCompare(a.at)),
  };
}

/**
 * `granted` with the credit entries that make it up, newest first. Credits granted before entries
 * were recorded have none: their sum is `unrecordedGrants`.
 */
function creditsView(granted: number, credits: readonly CreditEntry[]) {
  const unrecorded = granted - credits.reduce((sum, entry) => sum + entry.amount, 0);
  return { granted, ...(unrecorded === 0 ? {} : { unrecordedGrants: unrecorded }), creditEntries: credits };
}

/** The operator's attribution as recorded: the actor and, when given, the reason. */
function attribution(by: Attribution): Attribution {
  return { actor: by.actor, ...(by.reason === undefined ? {} : { reason: by.reason }) };
}

export async function reconcile({ repositories }: CommandContext, olderThanSeconds: number) {
  const { settled } = await repositories.ledger.reconcile(olderThanSeconds * 1000);
  return { settled: settled.length, entries: settled };
}
