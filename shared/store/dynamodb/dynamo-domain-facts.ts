/**
 * Email-domain facts on DynamoDB: one item per domain, and one per mail host that must be spoken to
 * in lock-step, each replaced on every write and deleted by TTL.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DomainFactsStore, LearnedFacts, LockStepHost } from '../../emails/domain-memory.js';
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
      // Absent from items written before probes were remembered.
      probe: (Item.probe as string | null | undefined) ?? null,
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

  async getLockStepHost(host: string): Promise<LockStepHost | undefined> {
    const { Item } = await this.table.doc.send(
      new GetCommand({ TableName: this.table.table, Key: itemKeys.lockStepHost(host) }),
    );
    if (!Item) return undefined;
    return { learnedAt: Item.learnedAt as number, expiresAt: (Item.expiresAt as number) * 1000 };
  }

  async putLockStepHost(host: string, record: LockStepHost): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.table,
        Item: {
          ...itemKeys.lockStepHost(host),
          type: itemTypes.lockStepHost,
          learnedAt: record.learnedAt,
          expiresAt: ttlSeconds(record.expiresAt),
        },
      }),
    );
  }
}
