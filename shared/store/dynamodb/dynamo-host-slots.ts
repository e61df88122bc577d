/**
 * Host slots on DynamoDB: one item per slot, taken by a conditional put (free, or its lease over)
 * and given back by a conditional delete (still ours).
 */
import type { HostSlotStore, SlotClaim } from '../../limits/host-slots.js';
import { itemKeys, itemTypes, ttlSeconds } from './keys.js';
import { type DynamoTable, isConditionFailure } from './table.js';

export class DynamoHostSlotStore implements HostSlotStore {
  constructor(private readonly table: DynamoTable) {}

  async take(claim: SlotClaim, now: number, leaseUntil: number): Promise<boolean> {
    try {
      await this.table.client.put({
        TableName: this.table.table,
        Item: {
          ...itemKeys.hostSlot(claim.kind, claim.host, claim.slot),
          type: itemTypes.hostSlot,
          holder: claim.holder,
          leaseUntil,
          expiresAt: ttlSeconds(leaseUntil) + 60,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
        ExpressionAttributeValues: { ':now': now },
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async give(claim: SlotClaim): Promise<void> {
    try {
      await this.table.client.delete({
        TableName: this.table.table,
        Key: itemKeys.hostSlot(claim.kind, claim.host, claim.slot),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': claim.holder },
      });
    } catch (error) {
      // Our lease ran out and someone else holds the slot now: nothing of ours to give back.
      if (!isConditionFailure(error)) throw error;
    }
  }
}
