/**
 * /mcp as the resource server of the built-in authorization server: an access token is an ES256 JWT
 * signed with one of our keys (oauth/signing-keys.ts), issued by us, for the /mcp URL, naming the
 * account (`sub`) and the connection (`connection_id`). The connection is read from the store (and
 * cached for KEY_CACHE_SECONDS, as API keys are): a revoked connection's tokens stop working
 * although they have not expired, and its scopes and spend cap apply to every call.
 */
import { createLocalJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { AccountRepository } from '../accounts/accounts.js';
import type { Principal } from '../auth/authenticator.js';
import { InvalidAccessTokenError } from '../auth/oauth-tokens.js';
import type { Clock } from '../clock.js';
import { storeFailure } from '../errors.js';
import type { ConnectionRecord, ConnectionStore } from './oauth-store.js';
import { deriveSigningKey } from './signing-keys.js';

/** How stale a connection's `lastUsedAt` may get before a call records use again. */
const LAST_USED_RESOLUTION_MS = 5 * 60_000;
const MAX_CACHED_CONNECTIONS = 10_000;
/** Allowed clock difference between processes when checking exp. */
const CLOCK_TOLERANCE_SECONDS = 30;

export interface ConnectionTokenSettings {
  issuer: string;
  /** The canonical /mcp URL. */
  audience: string;
  secrets: readonly string[];
}

export class ConnectionTokenAuthenticator {
  private readonly connections = new Map<string, { record?: ConnectionRecord; fetchedAt: number }>();

  private constructor(
    private readonly settings: ConnectionTokenSettings,
    private readonly keys: JWTVerifyGetKey,
    private readonly store: ConnectionStore,
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
    private readonly cacheMs: number,
  ) {}

  static async create(
    settings: ConnectionTokenSettings,
    store: ConnectionStore,
    accounts: AccountRepository,
    clock: Clock,
    cacheMs: number,
  ): Promise<ConnectionTokenAuthenticator> {
    const keys = await Promise.all(settings.secrets.map(deriveSigningKey));
    const keySet = createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
    return new ConnectionTokenAuthenticator(settings, keySet, store, accounts, clock, cacheMs);
  }

  async authenticate(token: string): Promise<Principal> {
    const { accountId, connectionId } = await this.verify(token);
    const connection = await this.connection(connectionId);
    if (!connection || connection.revokedAt !== null || connection.accountId !== accountId)
      throw new InvalidAccessTokenError();
    let account: Principal['account'] | undefined;
    try {
      account = await this.accounts.get(accountId);
    } catch (error) {
      throw storeFailure('Authentication is temporarily unavailable.', error);
    }
    if (!account) throw new InvalidAccessTokenError();
    await this.recordUse(connection);
    const { clientId, clientName, scopes, dailyCreditCap } = connection;
    return { account, connection: { connectionId, clientId, clientName, scopes, dailyCreditCap } };
  }

  private async verify(token: string): Promise<{ accountId: string; connectionId: string }> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        requiredClaims: ['sub', 'aud', 'exp', 'connection_id'],
        currentDate: new Date(this.clock.now()),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      if (typeof payload.sub !== 'string' || typeof payload.connection_id !== 'string')
        throw new InvalidAccessTokenError();
      return { accountId: payload.sub, connectionId: payload.connection_id };
    } catch (error) {
      if (error instanceof InvalidAccessTokenError || error instanceof errors.JOSEError)
        throw new InvalidAccessTokenError();
      throw error;
    }
  }

  private async connection(connectionId: string): Promise<ConnectionRecord | undefined> {
    const now = this.clock.now();
    const cached = this.connections.get(connectionId);
    if (cached && now - cached.fetchedAt < this.cacheMs) return cached.record;
    let record: ConnectionRecord | undefined;
    try {
      record = await this.store.get(connectionId);
    } catch (error) {
      throw storeFailure('Authentication is temporarily unavailable.', error);
    }
    if (this.connections.size >= MAX_CACHED_CONNECTIONS) this.connections.clear();
    this.connections.set(connectionId, { record, fetchedAt: now });
    return record;
  }

  /** Keeps "last used" of the console's list current to within minutes, without a write per call. */
  private async recordUse(connection: ConnectionRecord): Promise<void> {
    const now = this.clock.now();
    if (connection.lastUsedAt && now - Date.parse(connection.lastUsedAt) < LAST_USED_RESOLUTION_MS) return;
    const at = new Date(now).toISOString();
    // The cached record remembers it, so the calls after this one do not write again.
    connection.lastUsedAt = at;
    try {
      await this.store.recordUse(connection.connectionId, at);
    } catch (error) {
      throw storeFailure('Authentication is temporarily unavailable.', error);
    }
  }
}
