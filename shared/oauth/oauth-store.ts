/**
 * What the service's own OAuth authorization server keeps between requests, as two ports of the store
 * (shared/store/store.ts); adapters in shared/store/sqlite and shared/store/dynamodb, one contract
 * suite for both.
 *
 * - `OAuthStateStore` holds oidc-provider's records (authorization codes, refresh tokens, grants,
 *   interactions, registered clients, sessions) as opaque JSON payloads under (model, id). The
 *   protocol machinery stays the library's; the store only keeps, expires, consumes and deletes.
 * - `ConnectionStore` holds the connections a customer sees in the console: one per approved grant
 *   (the connection id is oidc-provider's grant id), with the account, client, scopes and spend cap
 *   the /mcp resource server enforces on every call.
 */
import type { Family } from '../../schemas/operation-definition.js';

/** One record of oidc-provider's, as its adapter interface hands it over. */
export interface OAuthStateRecord {
  /** oidc-provider's payload, kept verbatim. */
  payload: Record<string, unknown>;
  /** Epoch ms after which the record is gone (read as absent, swept later). */
  expiresAt: number;
  /** Epoch ms of the record's one use (a code exchanged, a refresh token rotated); absent if unused. */
  consumedAt?: number;
}

export interface OAuthStateStore {
  /**
   * Stores or replaces the record (`payload.grantId` and `payload.uid`, when present, are indexed:
   * `deleteGrant` and `findByUid` reach the record through them).
   */
  put(model: string, id: string, record: OAuthStateRecord): Promise<void>;
  /** The record, or undefined when there is none or it expired by `now`. */
  find(model: string, id: string, now: number): Promise<OAuthStateRecord | undefined>;
  /** The record of `model` whose `payload.uid` is `uid` (oidc-provider's sessions). */
  findByUid(model: string, uid: string, now: number): Promise<OAuthStateRecord | undefined>;
  /** Marks the record used at `at` (kept until it expires, so a second use can be detected). */
  consume(model: string, id: string, at: number): Promise<void>;
  delete(model: string, id: string): Promise<void>;
  /** Deletes every record bound to the grant (its codes and refresh tokens, and the grant itself). */
  deleteGrant(grantId: string): Promise<void>;
}

/** Why a connection stopped working. */
export type ConnectionRevocation =
  /** The customer revoked it in the console. */
  | 'customer'
  /** A used code or rotated refresh token was presented again: it leaked, so the whole grant goes. */
  | 'token_reused'
  /** The client revoked its own token (RFC 7009) or oidc-provider revoked the grant for another reason. */
  | 'client'
  /** The operator revoked it (`npm run admin -- oauth connections revoke`). */
  | 'operator';

export interface ConnectionRecord {
  /** oidc-provider's grant id: every token of the connection names it. */
  connectionId: string;
  accountId: string;
  clientId: string;
  /** The client's `client_name`, as it registered; null when it gave none. */
  clientName: string | null;
  /** Operation families the connection may call. */
  scopes: Family[];
  /** Credits the connection may spend per UTC day; null: no cap beyond the account's balance. */
  dailyCreditCap: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedReason: ConnectionRevocation | null;
}

export interface ConnectionStore {
  /** Adds the connection; replaces nothing (throws when the id is taken). */
  insert(record: ConnectionRecord): Promise<void>;
  get(connectionId: string): Promise<ConnectionRecord | undefined>;
  /** The account's connections, newest first, revoked ones included. */
  list(accountId: string): Promise<ConnectionRecord[]>;
  recordUse(connectionId: string, at: string): Promise<void>;
  /** Marks it revoked (once: the first reason stays); false when there is no such connection. */
  revoke(connectionId: string, at: string, reason: ConnectionRevocation): Promise<boolean>;
}

/**
 * How the ledger and spend caps name a connection's calls: its id with a prefix no API key id or
 * outside-issuer subject (`oauth:…`) has, so a ledger entry says which kind of caller made it.
 */
export const CONNECTION_CALLER_PREFIX = 'cnx_';

export function connectionCallerId(connectionId: string): string {
  return `${CONNECTION_CALLER_PREFIX}${connectionId}`;
}

export class ConnectionTakenError extends Error {
  constructor(connectionId: string) {
    super(`The connection ${connectionId} exists already.`);
    this.name = 'ConnectionTakenError';
  }
}
