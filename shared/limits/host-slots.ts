/**
 * Per-host concurrency shared by every process (SMTP sessions per MX host, page loads per website
 * host): on Lambda each instance serves one request, so an in-memory semaphore would limit nothing.
 * A host has N slots, each one DynamoDB item taken by a conditional put (free, or its lease expired)
 * and given back by a conditional delete (still ours). A crashed holder's slot frees itself when its
 * lease passes. No slot free → the caller answers 503 and refunds, rather than hammering a server.
 */
import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import { isConditionFailure, type Store } from '../store/dynamo.js';
import { itemKeys, itemTypes } from '../store/keys.js';

export interface HostLease {
  host: string;
  release(): Promise<void>;
}

export class HostSlots {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** What the slots limit, e.g. `smtp` or `web`: one set of slots per kind and host. */
    private readonly kind: string,
    private readonly slotsPerHost: number,
    private readonly leaseMs: number,
  ) {}

  /** A slot of this host, or undefined when every slot is held. */
  async acquire(host: string): Promise<HostLease | undefined> {
    const holder = randomBytes(12).toString('base64url');
    const first = Math.floor(Math.random() * this.slotsPerHost);
    for (let offset = 0; offset < this.slotsPerHost; offset += 1) {
      const slot = (first + offset) % this.slotsPerHost;
      if (await this.take(host, slot, holder)) {
        return { host, release: () => this.give(host, slot, holder) };
      }
    }
    return undefined;
  }

  private async take(host: string, slot: number, holder: string): Promise<boolean> {
    const now = this.clock.now();
    try {
      await this.store.doc.send(
        new PutCommand({
          TableName: this.store.table,
          Item: {
            ...itemKeys.hostSlot(this.kind, host, slot),
            type: itemTypes.hostSlot,
            holder,
            leaseUntil: now + this.leaseMs,
            expiresAt: Math.ceil((now + this.leaseMs) / 1000) + 60,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async give(host: string, slot: number, holder: string): Promise<void> {
    try {
      await this.store.doc.send(
        new DeleteCommand({
          TableName: this.store.table,
          Key: itemKeys.hostSlot(this.kind, host, slot),
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeValues: { ':holder': holder },
        }),
      );
    } catch (error) {
      // Our lease ran out and someone else holds the slot now: nothing of ours to give back.
      if (!isConditionFailure(error)) throw error;
    }
  }
}
