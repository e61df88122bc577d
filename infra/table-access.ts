/**
 * What each function may do on the single table: DynamoDB actions per partition-key prefix, read off
 * the DynamoDB adapter (shared/store/dynamodb/*, key shapes in keys.ts). Each grant becomes one IAM
 * statement on the table with a `dynamodb:LeadingKeys` condition, so a data lookup cannot touch
 * another kind of item even through a bug. Only the reconcile function scans.
 */

import type { FunctionKind } from '../schemas/functions.js';
import type { OperationDefinition } from '../schemas/operation-definition.js';

export type TableAction =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchWriteItem';

export interface TableGrant {
  /** Why the function needs it (kept next to the statement as its Sid-like label in tests and docs). */
  purpose: string;
  actions: readonly TableAction[];
  /** Partition-key patterns (`ACCOUNT#*`, `PROBE`); absent: the whole table (Scan only). */
  leadingKeys?: readonly string[];
}

/** Authentication: the key record by hash, then its account (dynamo-api-keys, dynamo-accounts). */
const authenticate: TableGrant = {
  purpose: 'authenticate',
  actions: ['GetItem'],
  leadingKeys: ['APIKEY#*', 'ACCOUNT#*'],
};
/** Admission, refund and ledger: the balance item (UpdateItem) and ledger items (Put/Get) of the account. */
const bill: TableGrant = {
  purpose: 'bill',
  actions: ['GetItem', 'PutItem', 'UpdateItem'],
  leadingKeys: ['ACCOUNT#*'],
};
/** Cursor records and the generated cursor secret (settings `getOrCreate` is a conditional put). */
const page: TableGrant = {
  purpose: 'page',
  actions: ['GetItem', 'PutItem'],
  leadingKeys: ['CURSOR#*', 'SETTING#*'],
};
/** Per-host concurrency slots across processes (limits/host-slots.ts): take = put, give = delete. */
const hostSlots: TableGrant = {
  purpose: 'host-slots',
  actions: ['PutItem', 'DeleteItem'],
  leadingKeys: ['SLOTS#*'],
};
/** What email find remembers of a domain (catch-all, pattern). */
const domainFacts: TableGrant = {
  purpose: 'domain-facts',
  actions: ['GetItem', 'PutItem'],
  leadingKeys: ['EMAILDOMAIN#*'],
};
/** The store's ping (`/healthz`, and the CLI finding a running server) updates one heartbeat item. */
const ping: TableGrant = { purpose: 'ping', actions: ['UpdateItem'], leadingKeys: ['PROBE'] };
/** /mcp resolves an OAuth subject to its account (the operator links them with `npm run admin`). */
const oauthLinks: TableGrant = { purpose: 'oauth-links', actions: ['GetItem'], leadingKeys: ['OAUTH#*'] };
/** Account reads (`metering: 'account'`): the account's ledger items, queried for usage and ledger pages. */
const readLedger: TableGrant = { purpose: 'read-ledger', actions: ['Query'], leadingKeys: ['ACCOUNT#*'] };
/** Reconcile reads every balance item (a filtered scan) and settles stale in-flight entries. */
const reconcileScan: TableGrant = { purpose: 'reconcile-scan', actions: ['Scan'] };
/**
 * The sweep of expired records TTL has not removed yet (cursors, domain facts, host slots, console
 * sessions, passkey challenges, the OAuth authorization server's records and their index entries).
 */
const sweep: TableGrant = {
  purpose: 'sweep',
  actions: ['DeleteItem'],
  leadingKeys: [
    'CURSOR#*',
    'EMAILDOMAIN#*',
    'SLOTS#*',
    'CONSOLE#*',
    'PASSKEY#*',
    'AUTHZ#*',
    'AUTHZGRANT#*',
    'AUTHZUID#*',
  ],
};
/**
 * The console: the account's keys (issue, revoke, expire for rotation: key items and the account's
 * listing and audit entries), its ledger and balance (read), its browser sessions, and its
 * passkeys (credential items, listing entries under the account, one-time challenges).
 */
const manageAccount: TableGrant = {
  purpose: 'console',
  actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
  leadingKeys: ['ACCOUNT#*', 'APIKEY#*', 'CONSOLE#*', 'PASSKEY#*'],
};

/**
 * The built-in authorization server's own records (oidc-provider's clients, interactions, codes,
 * grants and refresh tokens, with their grant and uid index entries; TTL expires them): read,
 * written, consumed, and deleted with their grant (a Query on the grant's partition).
 */
const authorizationRecords: TableGrant = {
  purpose: 'authorization-records',
  actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
  leadingKeys: ['AUTHZ#*', 'AUTHZGRANT#*', 'AUTHZUID#*'],
};
/**
 * A connection read and updated: /mcp checks the one a token names and records its last use; the
 * authorization server revokes it when its grant is destroyed (a client's revocation, a reused code
 * or refresh token); the console revokes it on the customer's word.
 */
const connections: TableGrant = {
  purpose: 'connections',
  actions: ['GetItem', 'UpdateItem'],
  leadingKeys: ['CONNECTION#*'],
};
/** The consent page creates the connection it approves (its listing entry under the account is manageAccount's). */
const connect: TableGrant = { purpose: 'connect', actions: ['PutItem'], leadingKeys: ['CONNECTION#*'] };

/**
 * Batch records (shared/store/dynamodb/dynamo-batches.ts): the record, items and webhook deliveries
 * under the batch, the unfinished and pending-delivery markers, the idempotency keys; items are
 * written 25 at a time (BatchWriteItem). The listing entry under the account is `bill`'s ACCOUNT#*.
 */
const batchRecords: TableGrant = {
  purpose: 'batches',
  actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem'],
  leadingKeys: ['BATCH#*', 'BATCHES#UNFINISHED', 'BATCHIDEM#*', 'WEBHOOKS#PENDING'],
};

/** The grants of a function running `operations` as a function of `kind`. */
export function tableGrants(kind: FunctionKind, operations: readonly OperationDefinition[]): TableGrant[] {
  switch (kind) {
    case 'mcp':
      return [authenticate, oauthLinks, connections, ping];
    case 'pages':
      return [ping];
    case 'console':
      return [authenticate, manageAccount, page, ping, authorizationRecords, connections, connect];
    case 'oauth':
      return [authorizationRecords, connections];
    case 'reconcile':
      // The batch sweep also checks holders (authenticate, their keys: readLedger's Query).
      return [reconcileScan, bill, sweep, authenticate, readLedger, batchRecords];
    case 'batches':
      // Listing the account's batches and finding its keys is a Query on the account's partition.
      return [authenticate, bill, readLedger, batchRecords, ping];
    case 'operation':
    case 'tool-group':
    case 'batch-consumer': {
      const needs = new Set(operations.flatMap((operation) => operation.runtime.needs));
      return [
        authenticate,
        bill,
        ping,
        ...(operations.some((operation) => operation.paging === 'cursor') ? [page] : []),
        ...(operations.some((operation) => operation.metering === 'account') ? [readLedger] : []),
        ...(needs.has('smtp') || needs.has('browser') || kind === 'batch-consumer' ? [hostSlots] : []),
        ...(needs.has('smtp') ? [domainFacts] : []),
        // The item's batch, and its holder's keys (readLedger's Query) to check them at every run.
        ...(kind === 'batch-consumer' ? [batchRecords, readLedger] : []),
      ];
    }
  }
}
