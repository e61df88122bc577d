/**
 * Passkeys on DynamoDB, laid out like API keys: the record under its credential id (read at every
 * passkey sign-in) and a listing entry under the account, written first so that a crash between
 * the two leaves a listed passkey that cannot sign in, never one the console cannot show or remove
 * (removal goes the other way round). A challenge is an item with a TTL, taken by a delete that
 * returns it, so two requests cannot both use it.
 */
import * as z from 'zod';
import {
  type PasskeyChallenge,
  type PasskeyRecord,
  type PasskeyStore,
  PasskeyTakenError,
} from '../../auth/passkeys.js';
import { passkeyChallengeRecord, passkeyRecord } from '../records/passkey.js';
import { recordCodec } from '../records/stored-record.js';
import { fromTtl, itemKeys, itemName, itemTypes, ttlSeconds } from './keys.js';
import { type DynamoTable, isConditionFailure } from './table.js';

const passkeyListing = recordCodec('passkey listing', () => z.object({ credentialId: z.string() }));

export class DynamoPasskeyStore implements PasskeyStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(record: PasskeyRecord): Promise<void> {
    try {
      await this.table.client.put({
        TableName: this.table.table,
        Item: {
          ...itemKeys.accountPasskey(record.accountId, record.credentialId),
          type: itemTypes.accountPasskey,
          credentialId: record.credentialId,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      await this.table.client.put({
        TableName: this.table.table,
        Item: { ...itemKeys.passkey(record.credentialId), type: itemTypes.passkey, ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      if (isConditionFailure(error)) throw new PasskeyTakenError(record.credentialId);
      throw error;
    }
  }

  async find(credentialId: string): Promise<PasskeyRecord | undefined> {
    const key = itemKeys.passkey(credentialId);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    return Item && passkeyRecord.decode(Item, itemName(this.table.table, key));
  }

  async list(accountId: string): Promise<PasskeyRecord[]> {
    const { Items = [] } = await this.table.client.query({
      TableName: this.table.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': itemKeys.account(accountId).pk,
        ':prefix': itemKeys.accountPasskeyPrefix,
      },
    });
    const records = await Promise.all(
      Items.map((item) =>
        this.find(passkeyListing.decode(item, itemName(this.table.table, item)).credentialId),
      ),
    );
    return records
      .filter((record): record is PasskeyRecord => record?.accountId === accountId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.credentialId.localeCompare(b.credentialId));
  }

  async recordUse(credentialId: string, counter: number, at: string): Promise<boolean> {
    try {
      await this.table.client.update({
        TableName: this.table.table,
        Key: itemKeys.passkey(credentialId),
        UpdateExpression: 'SET #counter = :counter, lastUsedAt = :at',
        // A counter of 0 is an authenticator that keeps none; any other must only grow.
        ConditionExpression:
          'attribute_exists(pk) AND (#counter < :counter OR (#counter = :zero AND :counter = :zero))',
        ExpressionAttributeNames: { '#counter': 'counter' },
        ExpressionAttributeValues: { ':counter': counter, ':at': at, ':zero': 0 },
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async remove(accountId: string, credentialId: string): Promise<boolean> {
    try {
      await this.table.client.delete({
        TableName: this.table.table,
        Key: itemKeys.passkey(credentialId),
        ConditionExpression: 'accountId = :accountId',
        ExpressionAttributeValues: { ':accountId': accountId },
      });
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await this.table.client.delete({
      TableName: this.table.table,
      Key: itemKeys.accountPasskey(accountId, credentialId),
    });
    return true;
  }

  async saveChallenge(challenge: PasskeyChallenge): Promise<void> {
    const { id, expiresAt, ...rest } = challenge;
    await this.table.client.put({
      TableName: this.table.table,
      Item: {
        ...itemKeys.passkeyChallenge(id),
        type: itemTypes.passkeyChallenge,
        ...rest,
        expiresAt: ttlSeconds(expiresAt),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async takeChallenge(id: string, now: number): Promise<PasskeyChallenge | undefined> {
    const key = itemKeys.passkeyChallenge(id);
    const { Attributes } = await this.table.client.delete({
      TableName: this.table.table,
      Key: key,
      ReturnValues: 'ALL_OLD',
    });
    if (!Attributes) return undefined;
    const challenge = passkeyChallengeRecord.decode(
      { ...Attributes, id, expiresAt: fromTtl(Attributes.expiresAt) },
      itemName(this.table.table, key),
    );
    return challenge.expiresAt > now ? challenge : undefined;
  }
}
