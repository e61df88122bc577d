/**
 * The DynamoDB adapter of the store port: one table (pk/sk, TTL attribute `expiresAt` in seconds),
 * key shapes from keys.ts, single-item conditional writes only.
 */
import type { Store } from '../store.js';
import { DynamoAccountStore } from './dynamo-accounts.js';
import { DynamoApiKeyStore } from './dynamo-api-keys.js';
import { DynamoBatchStore } from './dynamo-batches.js';
import { DynamoBillingStore } from './dynamo-billing.js';
import { DynamoConsoleSessionStore } from './dynamo-console-sessions.js';
import { DynamoCursorStore } from './dynamo-cursors.js';
import { DynamoDomainFactsStore } from './dynamo-domain-facts.js';
import { DynamoHostSlotStore } from './dynamo-host-slots.js';
import { DynamoConnectionStore, DynamoOAuthStateStore } from './dynamo-oauth.js';
import { DynamoOAuthLinkStore } from './dynamo-oauth-links.js';
import { DynamoPasskeyStore } from './dynamo-passkeys.js';
import { DynamoSettingStore } from './dynamo-settings.js';
import { itemKeys, itemTypes, ttlSeconds } from './keys.js';
import { type DynamoTable, isConditionFailure, scanAll } from './table.js';

/** How long a probe waits for the table (/healthz, and the CLI asking whether a recorded server answers). */
const PING_TIMEOUT_MS = 2_000;

/** Item types that expire (the others live until an operator removes them). */
const expiringTypes = [
  itemTypes.cursor,
  itemTypes.consoleSession,
  itemTypes.emailDomain,
  itemTypes.lockStepHost,
  itemTypes.hostSlot,
  itemTypes.passkeyChallenge,
  itemTypes.oauthState,
  itemTypes.oauthGrantMember,
  itemTypes.oauthUid,
  itemTypes.batchIdempotency,
];

export interface DynamoStore extends Store {
  readonly kind: 'dynamodb';
  readonly table: DynamoTable;
}

export function createDynamoStore(table: DynamoTable, onClose?: () => Promise<void>): DynamoStore {
  return {
    kind: 'dynamodb',
    table,
    accounts: new DynamoAccountStore(table),
    keys: new DynamoApiKeyStore(table),
    billing: new DynamoBillingStore(table),
    cursors: new DynamoCursorStore(table),
    consoleSessions: new DynamoConsoleSessionStore(table),
    settings: new DynamoSettingStore(table),
    domains: new DynamoDomainFactsStore(table),
    hostSlots: new DynamoHostSlotStore(table),
    oauthLinks: new DynamoOAuthLinkStore(table),
    passkeys: new DynamoPasskeyStore(table),
    oauthState: new DynamoOAuthStateStore(table),
    connections: new DynamoConnectionStore(table),
    batches: new DynamoBatchStore(table),
    async ping() {
      // What admission needs: an update of an item (admission's is conditional on the balance), which
      // proves the table is there and writable by this role with capacity to spare; a read proves none
      // of that. No condition here: two probes in the same millisecond must not fail each other.
      await table.client.update(
        {
          TableName: table.table,
          Key: itemKeys.probe,
          UpdateExpression: 'SET heartbeatAt = :now',
          ExpressionAttributeValues: { ':now': new Date().toISOString() },
        },
        { signal: AbortSignal.timeout(PING_TIMEOUT_MS) },
      );
    },
    /** DynamoDB's TTL deletes these on AWS; dynalite never does, so local processes sweep. */
    async sweepExpired(now) {
      let deleted = 0;
      for (const type of expiringTypes) {
        const filter = { expression: 'expiresAt < :now', values: { ':now': ttlSeconds(now) } };
        for (const item of await scanAll(table, type, filter)) {
          try {
            await table.client.delete({
              TableName: table.table,
              Key: { pk: item.pk, sk: item.sk },
              ConditionExpression: 'expiresAt < :now',
              ExpressionAttributeValues: { ':now': ttlSeconds(now) },
            });
            deleted += 1;
          } catch (error) {
            // Renewed in the meantime (a slot taken again): it stays.
            if (!isConditionFailure(error)) throw error;
          }
        }
      }
      return deleted;
    },
    async close() {
      table.client.destroy();
      await onClose?.();
    },
  };
}
