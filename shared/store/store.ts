/**
 * The store port: every repository the service keeps state in, as one object an adapter provides.
 * The ports themselves sit beside their users (accounts/, auth/, billing/, paging/, emails/,
 * limits/); this file gathers them and adds the few a whole store answers for. Each adapter has one
 * file per port, and the records they keep are decoded by the codecs of records/. Adapters:
 * `sqlite/` (one machine, the default of `npm start`) and `dynamodb/` (AWS, and dynalite locally).
 * Nothing outside an adapter builds a DynamoDB command or an SQL statement.
 */
import type { AccountStore } from '../accounts/accounts.js';
import type { ApiKeyStore } from '../auth/api-keys.js';
import type { OAuthLinkStore } from '../auth/oauth-links.js';
import type { PasskeyStore } from '../auth/passkeys.js';
import type { BatchStore } from '../batches/batch-store.js';
import type { BillingStore } from '../billing/billing-store.js';
import type { ConsoleSessionStore } from '../console/console-sessions.js';
import type { DomainFactsStore } from '../emails/domain-memory.js';
import type { HostSlotStore } from '../limits/host-slots.js';
import type { ConnectionStore, OAuthStateStore } from '../oauth/oauth-store.js';
import type { CursorStore, SettingStore } from '../paging/cursors.js';

/**
 * The store could not take a write in time because another process held it (SQLite's write lock):
 * nothing of the write happened, and it may be retried. Billing answers it 503 `service_unavailable`.
 */
export class StoreBusyError extends Error {
  constructor(waitedMs: number, cause: unknown) {
    super(`the store stayed locked by another process for ${waitedMs} ms; nothing was written`, { cause });
    this.name = 'StoreBusyError';
  }
}

export interface Store {
  readonly kind: 'sqlite' | 'dynamodb';
  readonly accounts: AccountStore;
  readonly keys: ApiKeyStore;
  readonly billing: BillingStore;
  readonly cursors: CursorStore;
  /** Signed-in browsers of /console. */
  readonly consoleSessions: ConsoleSessionStore;
  readonly settings: SettingStore;
  readonly domains: DomainFactsStore;
  readonly hostSlots: HostSlotStore;
  readonly oauthLinks: OAuthLinkStore;
  readonly passkeys: PasskeyStore;
  /** The OAuth authorization server's protocol records (oidc-provider's). */
  readonly oauthState: OAuthStateStore;
  /** OAuth connections: the clients customers approved for their accounts. */
  readonly connections: ConnectionStore;
  /** Bulk lookups: batch records and their items (batches/batch-store.ts). */
  readonly batches: BatchStore;
  /**
   * Resolves when the store can take the writes billing needs now, proved by writing (a heartbeat
   * that must find room and the write lock on SQLite, a conditional write on DynamoDB); throws
   * otherwise. It waits only briefly for a lock, so /healthz answers at once either way.
   */
  ping(): Promise<void>;
  /**
   * Deletes records whose `expiresAt` passed (cursors, console sessions, passkey challenges, domain
   * facts, host slots, OAuth records, batches' idempotency keys); how many.
   */
  sweepExpired(now: number): Promise<number>;
  /** Releases connections or the database file; the store is unusable afterwards. */
  close(): Promise<void>;
}
