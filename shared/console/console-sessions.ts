/**
 * Console sessions: what a browser holds after signing in to /console. The browser keeps a random
 * session id in a cookie; the store keeps only its SHA-256, so a leaked table or database file signs
 * nobody in. A session remembers how it was signed in (`method`) and the credential that method
 * re-checks on every request (for an API key, the key's hash: revoking the key or suspending the
 * account ends the session's access within KEY_CACHE_SECONDS). `ConsoleSessionStore` is the port an
 * adapter under shared/store/ implements; sessions expire by `expiresAt` whether or not the record
 * is still there (TTL deletion is lazy).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';

/** How a session was signed in; each method has a resolver (console-app.ts `SessionResolvers`). */
export const signInMethods = ['api_key', 'passkey'] as const;
export type SignInMethod = (typeof signInMethods)[number];

export interface ConsoleSessionRecord {
  /** SHA-256 (hex) of the session id the cookie carries. */
  idHash: string;
  accountId: string;
  method: SignInMethod;
  /** What `method` re-checks on every request: the API key's SHA-256, or the passkey's credential id. */
  credential: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Past this (ms since the epoch) the session is over, and the record may be deleted. */
  expiresAt: number;
}

/** The port: where console sessions are kept. */
export interface ConsoleSessionStore {
  /** Adds a session; fails if its id hash is taken. */
  insert(record: ConsoleSessionRecord): Promise<void>;
  get(idHash: string): Promise<ConsoleSessionRecord | undefined>;
  /** Removes the session (sign-out); nothing happens when there is none. */
  delete(idHash: string): Promise<void>;
}

/** A session id as the cookie carries it: 256 random bits, base64url. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/** A started session: the id for the cookie (never stored) and its record. */
export interface StartedSession {
  sessionId: string;
  record: ConsoleSessionRecord;
}

export class ConsoleSessions {
  constructor(
    private readonly store: ConsoleSessionStore,
    private readonly clock: Clock,
    private readonly lifetimeMs: number,
  ) {}

  async start(accountId: string, method: SignInMethod, credential: string): Promise<StartedSession> {
    const sessionId = randomBytes(32).toString('base64url');
    const createdAt = this.clock.now();
    const record: ConsoleSessionRecord = {
      idHash: hashSessionId(sessionId),
      accountId,
      method,
      credential,
      createdAt,
      expiresAt: createdAt + this.lifetimeMs,
    };
    await this.store.insert(record);
    return { sessionId, record };
  }

  /** The live session a cookie's id stands for; undefined for a malformed, unknown or expired one. */
  async find(sessionId: string | undefined): Promise<ConsoleSessionRecord | undefined> {
    if (!sessionId || !SESSION_ID_PATTERN.test(sessionId)) return undefined;
    const record = await this.store.get(hashSessionId(sessionId));
    if (!record || record.expiresAt <= this.clock.now()) return undefined;
    return record;
  }

  async end(sessionId: string | undefined): Promise<void> {
    if (!sessionId || !SESSION_ID_PATTERN.test(sessionId)) return;
    await this.store.delete(hashSessionId(sessionId));
  }
}
