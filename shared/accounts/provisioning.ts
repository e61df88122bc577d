/**
 * Creating an account is three writes (account, balance, first key), each recorded with who made
 * it: the account's `account.created` audit entry, its opening grant, and `key.issued`. This is the
 * one place that does them, and that issues and revokes keys with their audit entries, for the CLI,
 * the demo account and the tests.
 */
import type { Family } from '../../schemas/operation-definition.js';
import type { ApiKeyRecord, IssuedKey } from '../auth/api-keys.js';
import type { Repositories } from '../service.js';
import type { Account, Attribution, RateLimitSetting } from './accounts.js';

export interface NewAccount {
  name: string;
  credits: number;
  rateLimit: RateLimitSetting;
  scopes?: Family[] | null;
  keyLabel?: string;
  /** Who creates it; `system:provisioning` unless said (the CLI names its operator). */
  by?: Attribution;
}

export interface ProvisionedAccount {
  account: Account;
  apiKey: string;
  keyId: string;
  balance: number;
}

const SYSTEM: Attribution = { actor: 'system:provisioning' };

export async function provisionAccount(
  repositories: Repositories,
  input: NewAccount,
): Promise<ProvisionedAccount> {
  const by = input.by ?? SYSTEM;
  const account = await repositories.accounts.create({ name: input.name, rateLimit: input.rateLimit }, by);
  await repositories.ledger.open(account.accountId, input.credits, by);
  const { apiKey, record } = await issueKey(
    repositories,
    account.accountId,
    { scopes: input.scopes ?? null, label: input.keyLabel },
    by,
  );
  return { account, apiKey, keyId: record.keyId, balance: input.credits };
}

/**
 * Issues a key and records `key.issued`. The key store is not the account's, so the entry is a
 * second write: a crash between them leaves a key whose record still tells when it was created.
 */
export async function issueKey(
  repositories: Repositories,
  accountId: string,
  options: Parameters<Repositories['keys']['issue']>[1],
  by: Attribution,
): Promise<IssuedKey> {
  const issued = await repositories.keys.issue(accountId, options);
  await repositories.accounts.record(accountId, 'key.issued', { keyId: issued.record.keyId }, by);
  return issued;
}

/** Revokes a key and records `key.revoked`; revoking a revoked key changes and records nothing. */
export async function revokeKey(
  repositories: Repositories,
  accountId: string,
  keyId: string,
  by: Attribution,
): Promise<ApiKeyRecord> {
  const listed = (await repositories.keys.list(accountId)).find((key) => key.keyId === keyId);
  const revoked = await repositories.keys.revoke(accountId, keyId);
  if (listed && !listed.revokedAt)
    await repositories.accounts.record(accountId, 'key.revoked', { keyId }, by);
  return revoked;
}

/** Makes a key expire at `expiresAt` (a rotation's overlap) and records `key.expiry_set`. */
export async function expireKey(
  repositories: Repositories,
  accountId: string,
  keyId: string,
  expiresAt: string,
  by: Attribution,
): Promise<ApiKeyRecord> {
  const expiring = await repositories.keys.expire(accountId, keyId, expiresAt);
  await repositories.accounts.record(accountId, 'key.expiry_set', { keyId }, by);
  return expiring;
}
