/**
 * Creating an account is three writes (account, balance, first key); this is the one place that
 * does them, for the CLI, the demo account and the tests.
 */
import type { Family } from '../../schemas/catalog.js';
import type { Repositories } from '../service.js';
import type { Account, RateLimitSetting } from './accounts.js';

export interface NewAccount {
  name: string;
  credits: number;
  rateLimit: RateLimitSetting;
  scopes?: Family[] | null;
  keyLabel?: string;
}

export interface ProvisionedAccount {
  account: Account;
  apiKey: string;
  keyId: string;
  balance: number;
}

export async function provisionAccount(
  repositories: Repositories,
  input: NewAccount,
): Promise<ProvisionedAccount> {
  const account = await repositories.accounts.create({ name: input.name, rateLimit: input.rateLimit });
  await repositories.ledger.open(account.accountId, input.credits);
  const { apiKey, record } = await repositories.keys.issue(account.accountId, {
    scopes: input.scopes ?? null,
    label: input.keyLabel,
  });
  return { account, apiKey, keyId: record.keyId, balance: input.credits };
}
