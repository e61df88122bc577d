/**
 * Email-domain facts on DynamoDB: one item per domain, and one per mail host that must be spoken to
 * in lock-step, each replaced on every write and deleted by TTL.
 */
import type { DomainFactsStore, LearnedFacts, LockStepHost } from '../../emails/domain-memory.js';
import { learnedFactsRecord, lockStepHostRecord } from '../records/domain-facts.js';
import { fromTtl, itemKeys, itemName, itemTypes, ttlSeconds } from './keys.js';
import type { DynamoTable } from './table.js';

export class DynamoDomainFactsStore implements DomainFactsStore {
  constructor(private readonly table: DynamoTable) {}

  async get(domain: string): Promise<LearnedFacts | undefined> {
    const key = itemKeys.emailDomain(domain);
    const { Item } = await this.table.client.get({ TableName: this.table.table, Key: key });
    if (!Item) return undefined;
    return learnedFactsRecord.decode(
      { ...Item, expiresAt: fromTtl(Item.expiresAt) },
      itemName(this.table.table, key),
    );
  }

  async put(domain: string, facts: LearnedFacts): Promise<void> {
    await this.table.client.put({
      TableName: this.table.table,
      Item: {
        ...itemKeys.emailDomain(domain),
        type: itemTypes.emailDomain,
        ...facts,
        expiresAt: ttlSeconds(facts.expiresAt),
      },
    });
  }

  async getLockStepHost(host: string): Promise<LockStepHost | undefined> {
    const key = itemKeys.lockStepHost(host);
    const { Item } = await this.table.client.get({ TableName: this.table.table, Key: key });
    if (!Item) return undefined;
    return lockStepHostRecord.decode(
      { ...Item, expiresAt: fromTtl(Item.expiresAt) },
      itemName(this.table.table, key),
    );
  }

  async putLockStepHost(host: string, record: LockStepHost): Promise<void> {
    await this.table.client.put({
      TableName: this.table.table,
      Item: {
        ...itemKeys.lockStepHost(host),
        type: itemTypes.lockStepHost,
        learnedAt: record.learnedAt,
        expiresAt: ttlSeconds(record.expiresAt),
      },
    });
  }
}
