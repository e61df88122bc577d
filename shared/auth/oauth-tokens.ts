/**
 * OAuth access tokens for /mcp: JWTs from OAUTH_ISSUER, verified with jose against the issuer's
 * JWKS. The audience must be the canonical /mcp URL (a token minted for another resource is never
 * accepted, and tokens without an audience are refused); expiry is required, not-before is checked.
 * The token's subject must be bound to an account (oauth-links.ts). Tokens are never passed on.
 */
import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Account, AccountRepository } from '../accounts/accounts.js';
import type { Clock } from '../clock.js';
import { ApiError, InsufficientScopeError, ServiceUnavailableError, storeFailure } from '../errors.js';
import type { Principal } from './authenticator.js';
import type { OAuthLinkStore } from './oauth-links.js';

export interface OAuthSettings {
  issuer: string;
  jwksUrl: string;
  /** The canonical URL of the protected resource (the /mcp endpoint). */
  audience: string;
}

/** How long a JWKS fetch may take before the access service counts as unavailable. */
const JWKS_TIMEOUT_MS = 5_000;
/** Allowed clock difference between the issuer and us when checking exp and nbf. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** Failures that say the key set could not be had, not that the token is bad: 503, not 401. */
const KEY_SET_FAILURES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

/** A 401 like a wrong key's; the /mcp adapter adds the OAuth discovery challenge. */
export class InvalidAccessTokenError extends ApiError {
  constructor() {
    super('invalid_api_key', {
      message: 'The access token is invalid, expired, or not issued for this endpoint.',
    });
  }
}

/** Per-process cache bound, as for API keys. */
const MAX_CACHED_SUBJECTS = 10_000;

export class OAuthAuthenticator {
  private readonly keys: JWTVerifyGetKey;
  /** Subject → its account (or none), for `cacheMs`, like API keys: a link or a suspension takes that long. */
  private readonly accountsBySubject = new Map<string, { account?: Account; fetchedAt: number }>();

  constructor(
    private readonly settings: OAuthSettings,
    private readonly links: OAuthLinkStore,
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
    private readonly cacheMs: number,
  ) {
    this.keys = createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: JWKS_TIMEOUT_MS });
  }

  async authenticate(token: string): Promise<Principal> {
    const subject = await this.verify(token);
    const account = await this.accountOf(subject);
    if (!account) {
      throw new InsufficientScopeError(
        'This OAuth identity is not linked to an account; ask the operator to link it.',
      );
    }
    return { account, oauthSubject: subject };
  }

  private async accountOf(subject: string): Promise<Account | undefined> {
    const now = this.clock.now();
    const cached = this.accountsBySubject.get(subject);
    if (cached && now - cached.fetchedAt < this.cacheMs) return cached.account;
    let account: Account | undefined;
    try {
      const accountId = await this.links.find(subject);
      account = accountId === undefined ? undefined : await this.accounts.get(accountId);
    } catch (error) {
      throw storeFailure('Authentication is temporarily unavailable.', error);
    }
    if (this.accountsBySubject.size >= MAX_CACHED_SUBJECTS) this.accountsBySubject.clear();
    this.accountsBySubject.set(subject, { account, fetchedAt: now });
    return account;
  }

  private async verify(token: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        requiredClaims: ['sub', 'aud', 'exp'],
        currentDate: new Date(this.clock.now()),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      return payload.sub as string;
    } catch (error) {
      if (!(error instanceof errors.JOSEError) || KEY_SET_FAILURES.has(error.code)) {
        throw new ServiceUnavailableError(
          "The authorization server's signing keys cannot be fetched; try again later.",
          error,
        );
      }
      throw new InvalidAccessTokenError();
    }
  }
}
