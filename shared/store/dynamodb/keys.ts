/**
 * Key shapes of every item in the single table. No other module builds a `pk` or `sk`.
 */
export interface ItemKey {
  pk: string;
  sk: string;
}

const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;
const oauthGrantPk = (grantId: string) => `AUTHZGRANT#${grantId}`;
const batchPk = (batchId: string) => `BATCH#${batchId}`;
/** Wide enough for any item count a batch may have, so the items' sort keys sort by index. */
const BATCH_INDEX_DIGITS = 10;
const batchItemSk = (index: number) => `ITEM#${String(index).padStart(BATCH_INDEX_DIGITS, '0')}`;
const WEBHOOK_DELIVERY_PREFIX = 'DELIVERY#';

export const itemKeys = {
  account: (accountId: string): ItemKey => ({ pk: accountPk(accountId), sk: 'ACCOUNT' }),
  /** Balance, rate window, in-flight requests and key uses of an account: the item every request writes. */
  balance: (accountId: string): ItemKey => ({ pk: accountPk(accountId), sk: 'BALANCE' }),
  /** The key record looked up on every request, addressed by the SHA-256 of the key. */
  apiKeyByHash: (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  /** The account's listing entry of one key (holds the hash to reach the record above). */
  accountKey: (accountId: string, keyId: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `KEY#${keyId}`,
  }),
  accountKeyPrefix: 'KEY#',
  /** Ledger items sort by time, so `usage` reads the most recent first. */
  ledger: (accountId: string, createdAt: string, requestId: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `LEDGER#${createdAt}#${requestId}`,
  }),
  ledgerPrefix: 'LEDGER#',
  /** A grant or adjustment of credits (credit entries), by time like the ledger. */
  credit: (accountId: string, createdAt: string, entryId: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `CREDIT#${createdAt}#${entryId}`,
  }),
  creditPrefix: 'CREDIT#',
  /** One entry of the account's audit log (a change that is not a change of credits), by time. */
  audit: (accountId: string, createdAt: string, auditId: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `AUDIT#${createdAt}#${auditId}`,
  }),
  auditPrefix: 'AUDIT#',
  /** A rate window of the account apart from the lookups' one (kept on the balance item), by name. */
  rateWindow: (accountId: string, name: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `WINDOW#${name}`,
  }),
  cursor: (cursorId: string): ItemKey => ({ pk: `CURSOR#${cursorId}`, sk: 'CURSOR' }),
  /** A console session, by the SHA-256 of its id (console/console-sessions.ts). */
  consoleSession: (idHash: string): ItemKey => ({ pk: `CONSOLE#${idHash}`, sk: 'SESSION' }),
  /** One of the concurrency slots of a host for one kind of work (limits/host-slots.ts). */
  hostSlot: (kind: string, host: string, slot: number): ItemKey => ({
    pk: `SLOTS#${kind}#${host}`,
    sk: `SLOT#${slot}`,
  }),
  /** What the last email find learned about a domain: catch-all, and the pattern that worked. */
  emailDomain: (domain: string): ItemKey => ({ pk: `EMAILDOMAIN#${domain}`, sk: 'EMAILDOMAIN' }),
  /**
   * A mail host that answered pipelined SMTP out of step (emails/domain-memory.ts). Under the same
   * partition-key prefix as the domain facts: a function that may keep those may keep this too.
   */
  lockStepHost: (host: string): ItemKey => ({ pk: `EMAILDOMAIN#${host}`, sk: 'LOCKSTEPHOST' }),
  /** The account an OAuth subject of OAUTH_ISSUER is bound to (auth/oauth-links.ts). */
  oauthLink: (subject: string): ItemKey => ({ pk: `OAUTH#${subject}`, sk: 'OAUTH' }),
  /** A console passkey, found by its credential id at sign-in (auth/passkeys.ts). */
  passkey: (credentialId: string): ItemKey => ({ pk: `PASSKEY#${credentialId}`, sk: 'PASSKEY' }),
  /** The account's listing entry of one passkey. */
  accountPasskey: (accountId: string, credentialId: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `PASSKEY#${credentialId}`,
  }),
  accountPasskeyPrefix: 'PASSKEY#',
  /** A WebAuthn ceremony's one-time challenge, deleted by TTL once expired. */
  passkeyChallenge: (id: string): ItemKey => ({ pk: `PASSKEY#CHALLENGE#${id}`, sk: 'CHALLENGE' }),
  /**
   * One of oidc-provider's records (oauth/oauth-store.ts) by model and id, deleted by TTL once
   * expired. oidc-provider's model names hold no `#`, so no two (model, id) pairs share a key.
   */
  oauthState: (model: string, id: string): ItemKey => ({ pk: `AUTHZ#${model}#${id}`, sk: 'AUTHZ' }),
  /**
   * A grant's entry for one record bound to it (`payload.grantId`), so revoking the grant finds
   * them all with one query; expires with its record.
   */
  oauthGrantMember: (grantId: string, model: string, id: string): ItemKey => ({
    pk: oauthGrantPk(grantId),
    sk: `${model}#${id}`,
  }),
  oauthGrantPartition: (grantId: string): string => oauthGrantPk(grantId),
  /** The id of the record of a model whose `payload.uid` is `uid`; expires with its record. */
  oauthUid: (model: string, uid: string): ItemKey => ({ pk: `AUTHZUID#${model}#${uid}`, sk: 'AUTHZUID' }),
  /** An OAuth connection a customer approved, by its id (oidc-provider's grant id). */
  connection: (connectionId: string): ItemKey => ({ pk: `CONNECTION#${connectionId}`, sk: 'CONNECTION' }),
  /** The account's listing entry of one connection. */
  accountConnection: (accountId: string, connectionId: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `CONNECTION#${connectionId}`,
  }),
  accountConnectionPrefix: 'CONNECTION#',
  /** A bulk lookup's record (batches/batch-store.ts); its items share the partition. */
  batch: (batchId: string): ItemKey => ({ pk: batchPk(batchId), sk: 'BATCH' }),
  /** One item of a batch: sort keys in index order, so the items are read in order by one query. */
  batchItem: (batchId: string, index: number): ItemKey => ({ pk: batchPk(batchId), sk: batchItemSk(index) }),
  /** The sort keys of the items from `index` on: a query's range over the batch's partition. */
  batchItemRange: (batchId: string, index: number) => ({
    pk: batchPk(batchId),
    from: batchItemSk(index),
    to: batchItemSk(10 ** BATCH_INDEX_DIGITS - 1),
  }),
  /** The account's listing entry of one batch, by creation time, so a query reads the newest first. */
  accountBatch: (accountId: string, createdAt: string, batchId: string): ItemKey => ({
    pk: accountPk(accountId),
    sk: `BATCH#${createdAt}#${batchId}`,
  }),
  accountBatchPrefix: 'BATCH#',
  /**
   * A marker per batch not finished (one partition, written before the batch leaves a finished
   * state and removed after it enters one), so a worker pool starting up queries it, not the table.
   */
  unfinishedBatch: (batchId: string): ItemKey => ({ pk: 'BATCHES#UNFINISHED', sk: batchPk(batchId) }),
  unfinishedBatchPartition: 'BATCHES#UNFINISHED',
  /** A webhook delivery of a batch (batches/webhooks.ts), beside the batch's record and items. */
  webhookDelivery: (batchId: string, deliveryId: string): ItemKey => ({
    pk: batchPk(batchId),
    sk: `${WEBHOOK_DELIVERY_PREFIX}${deliveryId}`,
  }),
  webhookDeliveryPrefix: WEBHOOK_DELIVERY_PREFIX,
  /**
   * A marker per pending webhook delivery (one partition, written before the delivery and removed
   * after it is delivered or failed), so the notifier finds due deliveries without a scan.
   */
  pendingWebhookDelivery: (batchId: string, deliveryId: string): ItemKey => ({
    pk: 'WEBHOOKS#PENDING',
    sk: `${batchPk(batchId)}#${deliveryId}`,
  }),
  pendingWebhookDeliveryPartition: 'WEBHOOKS#PENDING',
  /** A batch create's `Idempotency-Key` of one account, deleted by TTL after its 24 hours. */
  batchIdempotency: (accountId: string, key: string): ItemKey => ({
    pk: `BATCHIDEM#${accountId}#${key}`,
    sk: 'BATCHIDEM',
  }),
  /** Service-wide settings kept in the table (e.g. the generated cursor secret). */
  setting: (name: string): ItemKey => ({ pk: `SETTING#${name}`, sk: 'SETTING' }),
  /** `ping`'s heartbeat: it holds no data (no `type`, so no scan or export ever sees it). */
  probe: { pk: 'PROBE', sk: 'PROBE' } as ItemKey,
} as const;

/** Item types, stored as `type` so scans can filter on them. */
export const itemTypes = {
  account: 'account',
  balance: 'balance',
  apiKey: 'apiKey',
  accountKey: 'accountKey',
  ledger: 'ledger',
  credit: 'credit',
  audit: 'audit',
  rateWindow: 'rateWindow',
  cursor: 'cursor',
  consoleSession: 'consoleSession',
  setting: 'setting',
  hostSlot: 'hostSlot',
  emailDomain: 'emailDomain',
  lockStepHost: 'lockStepHost',
  oauthLink: 'oauthLink',
  passkey: 'passkey',
  accountPasskey: 'accountPasskey',
  passkeyChallenge: 'passkeyChallenge',
  oauthState: 'oauthState',
  oauthGrantMember: 'oauthGrantMember',
  oauthUid: 'oauthUid',
  connection: 'connection',
  accountConnection: 'accountConnection',
  batch: 'batch',
  batchItem: 'batchItem',
  accountBatch: 'accountBatch',
  unfinishedBatch: 'unfinishedBatch',
  batchIdempotency: 'batchIdempotency',
  webhookDelivery: 'webhookDelivery',
  pendingWebhookDelivery: 'pendingWebhookDelivery',
} as const;

/** An item by its key, for the error of a record that does not decode: `item <pk> / <sk> of table <t>`. */
export function itemName(table: string, key: { pk?: unknown; sk?: unknown }): string {
  return `item ${String(key.pk)} / ${String(key.sk)} of table ${table}`;
}

/** DynamoDB's TTL attribute counts seconds; the ports count milliseconds. */
export const ttlSeconds = (ms: number) => Math.ceil(ms / 1000);

/** A TTL attribute read back in milliseconds; anything but a number is left for the codec to refuse. */
export const fromTtl = (seconds: unknown) => (typeof seconds === 'number' ? seconds * 1000 : seconds);
