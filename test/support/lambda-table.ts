/**
 * The DynamoDB a bundled function is tested against: a table on an in-process dynalite (the test
 * harness's store) and one account with a key.
 */
import { randomUUID } from 'node:crypto';
import { provisionAccount } from '../../shared/accounts/provisioning.js';
import { createRepositories } from '../../shared/service.js';
import type { Store } from '../../shared/store/store.js';
import { openTestStore } from './harness.js';

export interface LambdaTable {
  store: Store;
  accountId: string;
  apiKey: string;
  /** What a function needs to reach the table. */
  env: { DYNAMODB_ENDPOINT: string; DYNAMODB_TABLE: string; AWS_REGION: string };
  close(): Promise<void>;
}

export async function openLambdaTable(name: string, credits: number): Promise<LambdaTable> {
  const table = `${name}-${randomUUID()}`;
  const opened = await openTestStore({ store: 'dynamodb', table });
  const { account, apiKey } = await provisionAccount(createRepositories(opened.store), {
    name,
    credits,
    rateLimit: { limit: 1000, windowSeconds: 60 },
  });
  return {
    store: opened.store,
    accountId: account.accountId,
    apiKey,
    env: { DYNAMODB_ENDPOINT: opened.endpoint, DYNAMODB_TABLE: table, AWS_REGION: 'us-east-1' },
    close: opened.close,
  };
}
