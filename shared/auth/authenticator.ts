/**
 * Authenticates a request's API key and authorizes it for an operation. Key records and their
 * accounts are cached per process for `KEY_CACHE_SECONDS`: that is how long a revoked key, a
 * suspended account or a changed rate limit can still be seen as it was by a warm process.
 */
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import type { Account, AccountRepository } from '../accounts/accounts.js';
import type { Clock } from '../clock.js';
import {
  InsufficientScopeError,
  InvalidApiKeyError,
  type KeyScheme,
  misplacedKeyMessages,
  storeFailure,
} from '../errors.js';
import type { ConnectionRecord } from '../oauth/oauth-store.js';
import {
  type ApiKeyRecord,
  type ApiKeyRepository,
  hashApiKey,
  isWellFormedApiKey,
  sameHash,
} from './api-keys.js';

/** What a call through an OAuth connection is held to (oauth/oauth-store.ts has the whole record). */
export type ConnectionGrant = Pick<
  ConnectionRecord,
  'connectionId' | 'clientId' | 'clientName' | 'scopes' | 'dailyCreditCap'
>;

/**
 * Who is calling: an account, reached through an API key or (on /mcp) an OAuth token: one of the
 * service's own connections, or an outside issuer's subject bound to the account.
 * Plain JSON, so a transport that authenticated a request can hand it to another function.
 */
export interface Principal {
  account: Account;
  /** Absent for OAuth callers, who hold no key. */
  key?: ApiKeyRecord;
  /** The connection a token of the built-in authorization server belongs to: its scopes and cap apply. */
  connection?: ConnectionGrant;
  oauthSubject?: string;
  /** A use of the key to record with this request's admission (at most one per key and resolution). */
  keyUse?: { keyId: string; at: string };
}

/** How stale `lastUsedAt` may get before a request records use again (keeps the item small to write). */
const LAST_USED_RESOLUTION_MS = 5 * 60_000;
const MAX_CACHED_KEYS = 10_000;

interface CacheEntry {
  principal: Principal | undefined;
  fetchedAt: number;
}

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  /** Lookups under way, so a burst of requests with one key reads the store once. */
  private readonly inFlight = new Map<string, Promise<Principal | undefined>>();

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
    private readonly cacheMs: number,
  ) {}

  /** Reads the key from `Authorization: Bearer <key>`. */
  authenticateBearer(authorization: string | undefined): Promise<Principal> {
    const value = authorization?.trim() ?? '';
    if (value === '') return this.authenticateKey(undefined);
    const bearer = /^Bearer(?:\s+(.*))?$/i.exec(value);
    if (bearer) return this.authenticateKey(bearer[1]);
    // Only a word that reads as a scheme name is echoed: a bare key must never be.
    const scheme = /^([A-Za-z][A-Za-z0-9-]{0,19})\s+\S/.exec(value)?.[1];
    return Promise.reject(
      new InvalidApiKeyError(false, 'bearer', [], misplacedKeyMessages.withoutBearer(scheme)),
    );
  }

  /** Checks a key however it was sent; `scheme` only shapes the answer to a refused one. */
  async authenticateKey(apiKey: string | undefined, scheme: KeyScheme = 'bearer'): Promise<Principal> {
    if (!apiKey) throw new InvalidApiKeyError(false, scheme);
    if (!isWellFormedApiKey(apiKey)) throw new InvalidApiKeyError(true, scheme);
    const principal = await this.authenticateKeyHash(hashApiKey(apiKey), scheme);
    const keyUse = this.useToRecord(principal.key as ApiKeyRecord, this.clock.now());
    return keyUse ? { ...principal, keyUse } : principal;
  }

  /**
   * Checks a key by its hash, as a console session signed in with the key re-checks it on every
   * request (through the same cache); records no use, since no call of the API is made.
   */
  async authenticateKeyHash(keyHash: string, scheme: KeyScheme = 'bearer'): Promise<Principal> {
    const principal = await this.lookup(keyHash);
    const key = principal?.key;
    if (!principal || !key || !sameHash(key.keyHash, keyHash)) throw new InvalidApiKeyError(true, scheme);
    if (key.revokedAt || (key.expiresAt && Date.parse(key.expiresAt) <= this.clock.now()))
      throw new InvalidApiKeyError(true, scheme);
    return principal;
  }

  /**
   * Throws 403 when the account is suspended or the key may not call the operation's family. Any
   * key may read its own account (`metering: 'account'`), whatever its scopes: knowing what it may
   * still spend is part of holding a key.
   */
  authorize(principal: Principal, operation: OperationDefinition): void {
    if (principal.account.status !== 'active') {
      throw new InsufficientScopeError('The account is suspended; resolve the account first.');
    }
    const scopes = principal.key?.scopes ?? principal.connection?.scopes;
    if (scopes && operation.metering !== 'account' && !scopes.includes(operation.family)) {
      const holder = principal.key ? 'This API key' : 'This connection';
      throw new InsufficientScopeError(
        `${holder} may call ${scopes.join(', ') || 'no'} operations; ${operation.id} belongs to ${operation.family}.`,
      );
    }
  }

  private async lookup(keyHash: string): Promise<Principal | undefined> {
    const now = this.clock.now();
    const cached = this.cache.get(keyHash);
    if (cached && now - cached.fetchedAt < this.cacheMs) return cached.principal;
    let lookup = this.inFlight.get(keyHash);
    if (!lookup) {
      lookup = this.fetch(keyHash, now).finally(() => this.inFlight.delete(keyHash));
      this.inFlight.set(keyHash, lookup);
    }
    return lookup;
  }

  private async fetch(keyHash: string, now: number): Promise<Principal | undefined> {
    let principal: Principal | undefined;
    try {
      const key = await this.keys.findByHash(keyHash);
      const account = key ? await this.accounts.get(key.accountId) : undefined;
      principal = key && account ? { key, account } : undefined;
    } catch (error) {
      throw storeFailure('Authentication is temporarily unavailable.', error);
    }
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(keyHash, { principal, fetchedAt: now });
    return principal;
  }

  /** The key's use to record now, or undefined when the last one recorded is recent enough. */
  private useToRecord(key: ApiKeyRecord, now: number): Principal['keyUse'] {
    if (key.lastUsedAt && now - Date.parse(key.lastUsedAt) < LAST_USED_RESOLUTION_MS) return undefined;
    const at = new Date(now).toISOString();
    // The cached record remembers it, so the requests after this one do not record it again.
    key.lastUsedAt = at;
    return { keyId: key.keyId, at };
  }
}
