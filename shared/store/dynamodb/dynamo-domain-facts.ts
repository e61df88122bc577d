/**
 * Email-domain facts on DynamoDB: one item per domain, replaced on every write, deleted by TTL.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DomainFactsStore, LearnedFacts } from '../../emails/domain-memory.js';
import { itemKeys, itemTypes, ttlSeconds } from './keys.js';
import type { DynamoTable } from './table.js';

export class DynamoDomainFactsStore implements DomainFactsStore {
  constructor(private readonly table: DynamoTable) {}

  async get(domain: string): Promise<LearnedFacts | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({ TableName: this.table.table, Key: itemKeys.emailDomain(domain) }),
    );
    if (!Item) return undefined;
    return {
      catchAll: Item.catchAll as boolean,
      mx: (Item.mx as string | null | undefined) ?? null,
      pattern: (Item.pattern as string | null | undefined) ?? null,
      learnedAt: Item.learnedAt as number,
      expiresAt: (Item.expiresAt as number) * 1000,
    };
  }

  async put(domain: string, facts: LearnedFacts): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.table,
        Item: {
          ...itemKeys.emailDomain(domain),
          type: itemTypes.emailDomain,
          ...facts,
          expiresAt: ttlSeconds(facts.expiresAt),
        },
      }),
    );
  }
}
