/**
 * The OAuth authorization server's records on DynamoDB (oauth/oauth-store.ts).
 *
 * oidc-provider's records: one item each under (model, id), the payload kept as JSON text (verbatim,
 * as SQLite keeps it), with the table's TTL so DynamoDB deletes it once expired. Two kinds of index
 * item, written before the record and expiring with it: an entry under the grant's partition for a
 * record bound to a grant (`deleteGrant` queries that one partition), and an entry naming the
 * record's id under (model, uid) for `findByUid`. A crash or a replacement can leave an entry that
 * no longer matches its record, never a record its grant cannot reach; so reads check the record
 * itself (its uid, its grant) and never trust an entry alone. TTL deletion is lazy, so expiry is
 * decided by the record's own time, to the millisecond like SQLite: the TTL attribute counts seconds.
 *
 * Connections are laid out like passkeys: the record under its id, and a listing entry under the
 * account written first, so a crash between the two leaves a listed id without a record (skipped by
 * `list`), never a connection its customer cannot see or revoke.
 */
import * as z from 'zod';
import {
  type ConnectionRecord,
  type ConnectionRevocation,
  type ConnectionStore,
  ConnectionTakenError,
  type OAuthStateRecord,
  type OAuthStateStore,
} from '../../oauth/oauth-store.js';
import { connectionRecord, oauthStateRecord } from '../records/oauth.js';
import { parsedJsonText, recordCodec } from '../records/stored-record.js';
import { type ItemKey, itemKeys, itemName, itemTypes, ttlSeconds } from './keys.js';
import { type DynamoTable, isConditionFailure, queryAll } from './table.js';

const grantMember = recordCodec('OAuth grant entry', () => z.object({ model: z.string(), id: z.string() }));
const uidEntry = recordCodec('OAuth uid entry', () => z.object({ id: z.string() }));
const connectionListing = recordCodec('OAuth connection listing', () =>
  z.object({ connectionId: z.string() }),
);

type Item = Record<string, unknown>;

export class DynamoOAuthStateStore implements OAuthStateStore {
  constructor(private readonly table: DynamoTable) {}

  async put(model: string, id: string, record: OAuthStateRecord): Promise<void> {
    const { payload, expiresAt, consumedAt } = record;
    const grantId = stringOrUndefined(payload.grantId);
    const uid = stringOrUndefined(payload.uid);
    const ttl = ttlSeconds(expiresAt);
    await Promise.all([
      grantId &&
        this.write(itemKeys.oauthGrantMember(grantId, model, id), {
          type: itemTypes.oauthGrantMember,
          model,
          id,
          expiresAt: ttl,
        }),
      uid && this.write(itemKeys.oauthUid(model, uid), { type: itemTypes.oauthUid, id, expiresAt: ttl }),
    ]);
    await this.write(itemKeys.oauthState(model, id), {
      type: itemTypes.oauthState,
      model,
      id,
      payload: JSON.stringify(payload),
      grantId,
      uid,
      consumedAt,
      expiresAt: ttl,
      expiresAtMs: expiresAt,
    });
  }

  async find(model: string, id: string, now: number): Promise<OAuthStateRecord | undefined> {
    const key = itemKeys.oauthState(model, id);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    if (!Item) return undefined;
    const record = oauthStateRecord.decode(
      { payload: parsedJsonText(Item.payload), expiresAt: Item.expiresAtMs, consumedAt: Item.consumedAt },
      itemName(this.table.table, key),
    );
    return record.expiresAt > now ? record : undefined;
  }

  async findByUid(model: string, uid: string, now: number): Promise<OAuthStateRecord | undefined> {
    const key = itemKeys.oauthUid(model, uid);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    if (!Item) return undefined;
    const record = await this.find(model, uidEntry.decode(Item, itemName(this.table.table, key)).id, now);
    // The entry outlives a replacement that changed the uid: the record says which uid is its own.
    return record?.payload.uid === uid ? record : undefined;
  }

  async consume(model: string, id: string, at: number): Promise<void> {
    try {
      await this.table.client.update({
        TableName: this.table.table,
        Key: itemKeys.oauthState(model, id),
        UpdateExpression: 'SET consumedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(consumedAt)',
        ExpressionAttributeValues: { ':at': at },
      });
    } catch (error) {
      // Used already (the first use stays), or not there at all.
      if (!isConditionFailure(error)) throw error;
    }
  }

  async delete(model: string, id: string): Promise<void> {
    await this.remove(model, id);
  }

  async deleteGrant(grantId: string): Promise<void> {
    const members = await queryAll(this.table, itemKeys.oauthGrantPartition(grantId));
    await Promise.all([
      this.remove('Grant', grantId),
      ...members.map(async (item) => {
        const { model, id } = grantMember.decode(item, itemName(this.table.table, item));
        // An entry left by a record since bound to another grant (or gone) only needs removing itself.
        if (!(await this.remove(model, id, grantId)))
          await this.deleteItem(itemKeys.oauthGrantMember(grantId, model, id));
      }),
    ]);
  }

  /**
   * Deletes the record (only while bound to `boundTo`, when given), then its index entries; whether
   * there was one to delete.
   */
  private async remove(model: string, id: string, boundTo?: string): Promise<boolean> {
    let removed: Item | undefined;
    try {
      ({ Attributes: removed } = await this.table.client.delete({
        TableName: this.table.table,
        Key: itemKeys.oauthState(model, id),
        ReturnValues: 'ALL_OLD',
        ...(boundTo === undefined
          ? {}
          : {
              ConditionExpression: 'grantId = :grantId',
              ExpressionAttributeValues: { ':grantId': boundTo },
            }),
      }));
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    if (!removed) return false;
    const grantId = stringOrUndefined(removed.grantId);
    const uid = stringOrUndefined(removed.uid);
    await Promise.all([
      grantId && this.deleteItem(itemKeys.oauthGrantMember(grantId, model, id)),
      // Only while it still names this record: another of the model may hold the uid by now.
      uid && this.deleteItem(itemKeys.oauthUid(model, uid), id),
    ]);
    return true;
  }

  private async write(key: ItemKey, attributes: Item): Promise<void> {
    await this.table.client.put({ TableName: this.table.table, Item: { ...key, ...attributes } });
  }

  /** Deletes the item (only while its `id` is `id`, when given). */
  private async deleteItem(key: ItemKey, id?: string): Promise<void> {
    try {
      await this.table.client.delete({
        TableName: this.table.table,
        Key: key,
        ...(id === undefined
          ? {}
          : { ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': id } }),
      });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

export class DynamoConnectionStore implements ConnectionStore {
  constructor(private readonly table: DynamoTable) {}

  async insert(record: ConnectionRecord): Promise<void> {
    const listing = itemKeys.accountConnection(record.accountId, record.connectionId);
    try {
      await this.table.client.put({
        TableName: this.table.table,
        Item: { ...listing, type: itemTypes.accountConnection, connectionId: record.connectionId },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      if (isConditionFailure(error)) throw new ConnectionTakenError(record.connectionId);
      throw error;
    }
    try {
      await this.table.client.put({
        TableName: this.table.table,
        // Nulls are left out: `revoke` tells an unrevoked connection by its missing `revokedAt`,
        // and the codec reads a missing field as null.
        Item: {
          ...itemKeys.connection(record.connectionId),
          type: itemTypes.connection,
          ...withoutNulls(record),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another account's connection has the id: the listing entry just written is this insert's own.
      await this.table.client.delete({ TableName: this.table.table, Key: listing });
      throw new ConnectionTakenError(record.connectionId);
    }
  }

  async get(connectionId: string): Promise<ConnectionRecord | undefined> {
    const key = itemKeys.connection(connectionId);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    return Item && connectionRecord.decode(Item, itemName(this.table.table, key));
  }

  async list(accountId: string): Promise<ConnectionRecord[]> {
    const listing = await queryAll(
      this.table,
      itemKeys.account(accountId).pk,
      itemKeys.accountConnectionPrefix,
    );
    const records = await Promise.all(
      listing.map((item) =>
        this.get(connectionListing.decode(item, itemName(this.table.table, item)).connectionId),
      ),
    );
    return records
      .filter((record): record is ConnectionRecord => record?.accountId === accountId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.connectionId.localeCompare(a.connectionId));
  }

  async recordUse(connectionId: string, at: string): Promise<void> {
    try {
      await this.table.client.update({
        TableName: this.table.table,
        Key: itemKeys.connection(connectionId),
        UpdateExpression: 'SET lastUsedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      });
    } catch (error) {
      // No such connection: an update would create a stray item.
      if (!isConditionFailure(error)) throw error;
    }
  }

  async revoke(connectionId: string, at: string, reason: ConnectionRevocation): Promise<boolean> {
    const key = itemKeys.connection(connectionId);
    try {
      await this.table.client.update({
        TableName: this.table.table,
        Key: key,
        UpdateExpression: 'SET revokedAt = :at, revokedReason = :reason',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
        ExpressionAttributeValues: { ':at': at, ':reason': reason },
      });
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    // Revoked already (the first reason stays), or no such connection.
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
      ProjectionExpression: 'pk',
    });
    return Item !== undefined;
  }
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function withoutNulls(record: ConnectionRecord): Item {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null));
}
