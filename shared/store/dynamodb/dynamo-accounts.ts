/**
 * Accounts on DynamoDB: one item per account, beside its balance item under the same partition key.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Account, AccountStatus, AccountStore, RateLimitSetting } from '../../accounts/accounts.js';
import { itemKeys, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure, scanAll } from './table.js';

export class DynamoAccountStore implements AccountStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(account: Account): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.table,
        Item: { ...itemKeys.account(account.accountId), type: itemTypes.account, ...account },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(accountId: string): Promise<Account | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({ TableName: this.table.table, Key: itemKeys.account(accountId) }),
    );
    return Item ? toAccount(Item) : undefined;
  }

  async list(): Promise<Account[]> {
    const items = await scanAll(this.table, itemTypes.account);
    return items.map(toAccount).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async setStatus(accountId: string, status: AccountStatus): Promise<Account | undefined> {
    try {
      const { Attributes } = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.table,
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
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}

export function toAccount(item: Record<string, unknown>): Account {
  return {
    accountId: item.accountId as string,
    name: item.name as string,
    status: item.status as AccountStatus,
    rateLimit: item.rateLimit as RateLimitSetting,
    createdAt: item.createdAt as string,
  };
}
