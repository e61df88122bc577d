/**
 * What email find learned about a domain, kept for EMAIL_DOMAIN_CACHE_SECONDS: whether it is
 * catch-all (the next find answers without a session) and which address pattern was valid there
 * (the next find tries it first). Expiry is decided by timestamp, never by the item still existing.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import type { Store } from '../store/dynamo.js';
import { itemKeys, itemTypes } from '../store/keys.js';

export interface DomainFacts {
  catchAll: boolean;
  /** The mail host that answered, reported again when the facts are reused. */
  mx: string | null;
  pattern: string | null;
}

export class DomainMemory {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  async recall(domain: string): Promise<DomainFacts | undefined> {
    if (this.ttlMs === 0) return undefined;
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: itemKeys.emailDomain(domain) }),
    );
    if (!Item || (Item.learnedAt as number) + this.ttlMs <= this.clock.now()) return undefined;
    return {
      catchAll: Item.catchAll as boolean,
      mx: (Item.mx as string | null) ?? null,
      pattern: (Item.pattern as string | null) ?? null,
    };
  }

  async remember(domain: string, facts: DomainFacts): Promise<void> {
    if (this.ttlMs === 0) return;
    const learnedAt = this.clock.now();
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: {
          ...itemKeys.emailDomain(domain),
          type: itemTypes.emailDomain,
          ...facts,
          learnedAt,
          expiresAt: Math.ceil((learnedAt + this.ttlMs) / 1000),
        },
      }),
    );
  }
}
