/**
 * Accounts: status, request ceiling and name. The credit balance is its own item (billing/), so the
 * hot debit path never rewrites the account record.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import { isConditionFailure, type Store } from '../store/dynamo.js';
import { itemKeys, itemTypes } from '../store/keys.js';

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

export class AccountNotFoundError extends Error {
  constructor(accountId: string) {
    super(`No account ${accountId}.`);
  }
}

export class AccountRepository {
  constructor(
    private readonly store: Store,
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
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: { ...itemKeys.account(account.accountId), type: itemTypes.account, ...account },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return account;
  }

  async get(accountId: string): Promise<Account | undefined> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: itemKeys.account(accountId) }),
    );
    return Item ? toAccount(Item) : undefined;
  }

  async require(accountId: string): Promise<Account> {
    const account = await this.get(accountId);
    if (!account) throw new AccountNotFoundError(accountId);
    return account;
  }

  async list(): Promise<Account[]> {
    const accounts: Account[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.store.doc.send(
        new ScanCommand({
          TableName: this.store.table,
          FilterExpression: '#type = :type',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':type': itemTypes.account },
          ExclusiveStartKey: startKey,
        }),
      );
      accounts.push(...(page.Items ?? []).map(toAccount));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return accounts.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async setStatus(accountId: string, status: AccountStatus): Promise<Account> {
    try {
      const { Attributes } = await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: itemKeys.account(accountId),
          UpdateExpression: 'SET #status = :status',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toAccount(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new AccountNotFoundError(accountId);
      throw error;
    }
  }
}

function toAccount(item: Record<string, unknown>): Account {
  return {
    accountId: item.accountId as string,
    name: item.name as string,
    status: item.status as AccountStatus,
    rateLimit: item.rateLimit as RateLimitSetting,
    createdAt: item.createdAt as string,
  };
}
