/**
 * One batch item run as the single call it stands for (issue 28): through the billed pipeline, with
 * the batch holder's key checked at every run, so an item costs, counts and settles exactly as the
 * call would. Shared by every way items are driven: the worker pool of `npm start`
 * (batch-worker.ts) and the queue consumers on AWS.
 *
 * - The rate limit slows a batch down instead of failing its items: a 429 is waited out with the
 *   item's lease kept, and the account held (`isHeld`) so its other items do not start meanwhile. A
 *   retryable 503 that charged nothing (a busy mail server or site) is retried with backoff alone.
 * - Items of one mail domain or site run at most as many at once as the per-host limits allow, so a
 *   batch queues its own items instead of having them refused one after another.
 * - Out of credits (402): the item is handed back unrun and the batch pauses, saying why;
 *   `resumeIfFunded` resumes it once the account (or the key's cap) has room for one more item.
 * - A revoked key or connection, or a suspended account (401, 403), fails the batch: its items would
 *   all be refused.
 */
import { BATCH_LEASE_MARGIN_SECONDS } from '../../schemas/function-conventions.js';
import type { AccountRepository } from '../accounts/accounts.js';
import type { ApiKeyRepository } from '../auth/api-keys.js';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import type { CreditLedger } from '../billing/credit-ledger.js';
import { spendable } from '../billing/spend-caps.js';
import type { Clock } from '../clock.js';
import {
  InsufficientCreditsError,
  InsufficientScopeError,
  InvalidApiKeyError,
  RateLimitExceededError,
  SpendCapReachedError,
} from '../errors.js';
import type { Logger } from '../logger.js';
import { variantFor } from '../mcp/tool-catalog.js';
import { CONNECTION_CALLER_PREFIX, type ConnectionStore } from '../oauth/oauth-store.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { newRequestId } from '../pipeline/public-response.js';
import { type LookupPipeline, spendCapsOf } from '../pipeline/run-lookup.js';
import type { BatchRecord, BatchStore, ClaimedItem, PauseReason, WebhookEventType } from './batch-store.js';

export interface BatchRunnerDependencies {
  store: BatchStore;
  pipeline: LookupPipeline;
  operations: readonly RegisteredOperation[];
  authenticator: Authenticator;
  keys: ApiKeyRepository;
  /** For batches an OAuth connection holds (created over /mcp): its record and its account. */
  connections: ConnectionStore;
  accounts: AccountRepository;
  /** How long a connection holder is trusted as read (KEY_CACHE_SECONDS, as keys are). */
  holderCacheMs: number;
  ledger: CreditLedger;
  clock: Clock;
  logger: Logger;
  /** Items that may hold one mail domain, or one site, at once (SMTP_MAX_SESSIONS_PER_MX, WEBSITE_MAX_PAGES_PER_HOST). */
  hostLimits: { smtp: number; browser: number };
  /** Told when a batch completes, fails or pauses (its webhook); never throws. */
  announce?: (batch: BatchRecord, event: WebhookEventType) => Promise<void>;
}

/**
 * How an item's run ended: `settled` (its result recorded, the batch paused or failed, or the item
 * no longer this worker's), or `deferred`: handed back unrun (released) because a wait would have
 * passed the run's `finishBy`, to be run again in `retryAfterMs`.
 */
export type ItemRunEnd = { kind: 'settled' } | { kind: 'deferred'; retryAfterMs: number };

export interface ItemRunOptions {
  /**
   * Epoch ms by which the run must be over (a Lambda invocation's end, less a margin): a rate-limit
   * or retry wait that, with the operation's deadline, would pass it hands the item back instead.
   */
  finishBy?: number;
}

const SETTLED: ItemRunEnd = { kind: 'settled' };

/** Time past an operation's deadline an item's lease runs, for the completion write to land. */
export const LEASE_MARGIN_MS = BATCH_LEASE_MARGIN_SECONDS * 1000;
/**
 * How long an item keeps retrying a retryable refusal that charged nothing (503: a mail server or
 * site at its limit, billing briefly unavailable) before that refusal is its result; the waits
 * between tries double from the first to the longest, with jitter.
 */
const TRANSIENT_PATIENCE_MS = 5 * 60_000;
const TRANSIENT_FIRST_WAIT_MS = 250;
const TRANSIENT_MAX_WAIT_MS = 10_000;

export class BatchItemRunner {
  private readonly operations: ReadonlyMap<string, RegisteredOperation>;
  /** Per account: epoch ms before which none of its items starts (a rate-limit wait). */
  private readonly heldUntil = new Map<string, number>();
  /** Key id → key hash: a key's hash never changes, its revocation is checked at every use. */
  private readonly keyHashes = new Map<string, string>();
  /** Connection id → the connection's principal (or none) as last read, and when. */
  private readonly connectionHolders = new Map<string, { principal?: Principal; readAt: number }>();
  private readonly hosts = new KeyedSlots();

  constructor(private readonly deps: BatchRunnerDependencies) {
    this.operations = new Map(deps.operations.map((operation) => [operation.definition.id, operation]));
  }

  /** The operation a batch runs; undefined when this process does not serve it. */
  operationOf(batch: BatchRecord): RegisteredOperation | undefined {
    return this.operations.get(batch.operation);
  }

  /** True while the account waits out its rate limit: start none of its items. */
  isHeld(accountId: string): boolean {
    return (this.heldUntil.get(accountId) ?? 0) > this.deps.clock.now();
  }

  async run(batch: BatchRecord, item: ClaimedItem, options: ItemRunOptions = {}): Promise<ItemRunEnd> {
    const { store } = this.deps;
    const operation = this.operations.get(batch.operation) as RegisteredOperation;
    const principal = await this.holder(batch);
    if (!principal) {
      await store.release(batch.batchId, item.index, item.attempt);
      await this.move(batch, ['queued', 'running', 'paused'], 'failed', 'batch.failed');
      return SETTLED;
    }
    const host = this.hostOf(operation, item.input);
    const release = host ? await this.hosts.acquire(host.key, host.limit) : () => {};
    try {
      return await this.runHeld(batch, item, operation, principal, options);
    } finally {
      release();
    }
  }

  /** Runs the item until it has an answer to record, waiting out the refusals that charged nothing. */
  private async runHeld(
    batch: BatchRecord,
    item: ClaimedItem,
    operation: RegisteredOperation,
    principal: Principal,
    { finishBy = Number.POSITIVE_INFINITY }: ItemRunOptions,
  ): Promise<ItemRunEnd> {
    const { store, pipeline, clock } = this.deps;
    const givesUpAt = clock.now() + TRANSIENT_PATIENCE_MS;
    // A wait the run cannot afford: the item goes back unrun, to be taken again after the wait.
    const deferred = async (waitMs: number): Promise<ItemRunEnd | undefined> => {
      if (clock.now() + waitMs + operation.definition.runtime.timeoutMs <= finishBy) return undefined;
      await store.release(batch.batchId, item.index, item.attempt);
      return { kind: 'deferred', retryAfterMs: waitMs };
    };
    for (let transient = 0; ; ) {
      const requestId = newRequestId();
      const outcome = await pipeline.run({
        operation,
        variant: variantFor(operation, item.input),
        credential: { scheme: 'principal', principal },
        input: { kind: 'arguments', values: item.input },
        requestId,
        transport: 'batch',
        batchItem: { batchId: batch.batchId, index: item.index },
      });
      const { status, headers, body } = outcome.response;
      const { error } = outcome;
      if (error instanceof InsufficientCreditsError || error instanceof SpendCapReachedError) {
        await store.release(batch.batchId, item.index, item.attempt);
        const reason: PauseReason =
          error instanceof SpendCapReachedError ? 'spend_cap' : 'insufficient_credits';
        await this.move(batch, ['queued', 'running'], 'paused', 'batch.paused', reason);
        return SETTLED;
      }
      if (error instanceof InvalidApiKeyError || error instanceof InsufficientScopeError) {
        await store.release(batch.batchId, item.index, item.attempt);
        await this.move(batch, ['queued', 'running', 'paused'], 'failed', 'batch.failed');
        return SETTLED;
      }
      if (error instanceof RateLimitExceededError) {
        // The account's window is full: none of its items starts before it has room again.
        const waitMs = Math.min(Math.max(Number(headers['Retry-After']) || 1, 1), 60) * 1000;
        this.heldUntil.set(
          batch.accountId,
          Math.max(this.heldUntil.get(batch.accountId) ?? 0, clock.now() + waitMs),
        );
        const handedBack = await deferred(waitMs);
        if (handedBack) return handedBack;
        if (!(await this.waitOut(batch, item, operation, waitMs))) return SETTLED;
        continue;
      }
      // A busy mail server or site, or a store that is back in a moment: this item waits alone.
      if (isTransient(outcome) && clock.now() < givesUpAt) {
        const waitMs =
          Math.min(TRANSIENT_FIRST_WAIT_MS * 2 ** transient++, TRANSIENT_MAX_WAIT_MS) *
          (0.5 + Math.random() / 2);
        const handedBack = await deferred(waitMs);
        if (handedBack) return handedBack;
        if (!(await this.waitOut(batch, item, operation, waitMs))) return SETTLED;
        continue;
      }
      await store.complete(
        batch.batchId,
        item.index,
        item.attempt,
        error ? 'failed' : 'succeeded',
        {
          status,
          body,
          requestId: headers['X-Request-Id'] ?? requestId,
          creditCost: outcome.creditCost,
          creditsRefunded: outcome.creditsRefunded,
        },
        this.nowIso(),
      );
      return SETTLED;
    }
  }

  /**
   * Waits, keeping this item's lease; false when the item is no longer this worker's, or the batch
   * stopped meanwhile (the item is handed back).
   */
  private async waitOut(
    batch: BatchRecord,
    item: ClaimedItem,
    operation: RegisteredOperation,
    waitMs: number,
  ): Promise<boolean> {
    const { store, clock } = this.deps;
    const leaseUntil = clock.now() + waitMs + operation.definition.runtime.timeoutMs + LEASE_MARGIN_MS;
    if (!(await store.extendLease(batch.batchId, item.index, item.attempt, leaseUntil))) return false;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    const current = await store.get(batch.batchId);
    if (current?.state === 'running' || current?.state === 'queued') return true;
    await store.release(batch.batchId, item.index, item.attempt);
    return false;
  }

  /**
   * The host an item's run holds a slot of (a mail domain, a site), and how many of this pool's
   * items may hold it at once: the per-host limits the operations obey across processes
   * (SMTP_MAX_SESSIONS_PER_MX, WEBSITE_MAX_PAGES_PER_HOST), kept here too so a batch queues its own
   * items instead of having them refused with 503 one after another.
   */
  private hostOf(
    operation: RegisteredOperation,
    input: Record<string, unknown>,
  ): { key: string; limit: number } | undefined {
    const needs: readonly string[] = operation.definition.runtime.needs;
    const text = (name: string) =>
      Object.hasOwn(input, name) && typeof input[name] === 'string' ? (input[name] as string) : undefined;
    if (needs.includes('smtp')) {
      const domain = text('domain') ?? text('email')?.split('@').at(-1);
      return domain ? { key: `smtp:${domain.toLowerCase()}`, limit: this.deps.hostLimits.smtp } : undefined;
    }
    if (needs.includes('browser')) {
      const url = text('url');
      const host = url && URL.canParse(url) ? new URL(url).hostname : undefined;
      return host ? { key: `web:${host}`, limit: this.deps.hostLimits.browser } : undefined;
    }
    return undefined;
  }

  /** Resumes a paused batch once its holder can pay for one more item. */
  async resumeIfFunded(batch: BatchRecord): Promise<void> {
    const operation = this.operations.get(batch.operation);
    if (!operation) return;
    const principal = await this.holder(batch);
    // A holder revoked while the batch waited for credits: it could never run another item.
    if (!principal) return this.move(batch, ['paused'], 'failed', 'batch.failed');
    const { ledger } = this.deps;
    const { balance } = await ledger.state(batch.accountId);
    const caps = spendCapsOf(principal);
    const spend = caps ? await ledger.keySpend(batch.accountId, caps.keyId) : undefined;
    if (spendable(balance, caps, spend) < operation.price) return;
    if (await this.deps.store.transition(batch.batchId, ['paused'], 'running', this.nowIso()))
      this.deps.logger.info({ batchId: batch.batchId }, 'batch resumed: credits available');
  }

  /** The batch holder as a caller, checked now (revoked, expired, suspended: undefined). */
  private async holder(batch: BatchRecord): Promise<Principal | undefined> {
    const { keys, authenticator } = this.deps;
    if (batch.holderId.startsWith(CONNECTION_CALLER_PREFIX)) return this.connectionHolder(batch);
    let keyHash = this.keyHashes.get(batch.holderId);
    if (!keyHash) {
      keyHash = (await keys.list(batch.accountId)).find((key) => key.keyId === batch.holderId)?.keyHash;
      if (!keyHash) return undefined;
      this.keyHashes.set(batch.holderId, keyHash);
    }
    try {
      const principal = await authenticator.authenticateKeyHash(keyHash);
      return principal.account.status === 'active' ? principal : undefined;
    } catch (error) {
      // Revoked or expired; a store that cannot answer is an outage, not a verdict on the batch.
      if (error instanceof InvalidApiKeyError) return undefined;
      throw error;
    }
  }

  /**
   * A connection holder as the /mcp adapter would see its token: the connection's scopes and daily
   * cap, refused once revoked, moved to another account, or its account suspended.
   */
  private async connectionHolder(batch: BatchRecord): Promise<Principal | undefined> {
    const { connections, accounts, clock, holderCacheMs } = this.deps;
    const cached = this.connectionHolders.get(batch.holderId);
    if (cached && clock.now() - cached.readAt < holderCacheMs) return cached.principal;
    const connection = await connections.get(batch.holderId.slice(CONNECTION_CALLER_PREFIX.length));
    const account =
      connection && connection.revokedAt === null && connection.accountId === batch.accountId
        ? await accounts.get(batch.accountId)
        : undefined;
    const principal =
      account?.status === 'active' && connection
        ? {
            account,
            connection: {
              connectionId: connection.connectionId,
              clientId: connection.clientId,
              clientName: connection.clientName,
              scopes: connection.scopes,
              dailyCreditCap: connection.dailyCreditCap,
            },
          }
        : undefined;
    this.connectionHolders.set(batch.holderId, { principal, readAt: clock.now() });
    return principal;
  }

  async move(
    batch: BatchRecord,
    from: readonly BatchRecord['state'][],
    to: 'completed' | 'failed' | 'paused',
    event: WebhookEventType,
    reason?: PauseReason,
  ): Promise<void> {
    const { store, logger, announce } = this.deps;
    if (!(await store.transition(batch.batchId, from, to, this.nowIso(), reason))) return;
    logger.info({ batchId: batch.batchId, state: to, pauseReason: reason }, 'batch state changed');
    const moved = await store.get(batch.batchId);
    if (moved && announce) await announce(moved, event);
  }

  /** Completes a batch whose every item is done. */
  async finishIfDone(batch: BatchRecord): Promise<boolean> {
    const { succeeded, failed, invalid } = batch.counts;
    if (succeeded + failed + invalid < batch.itemCount) return false;
    await this.move(batch, ['queued', 'running'], 'completed', 'batch.completed');
    return true;
  }

  private nowIso(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

/** A 503 that says "retry" and charged nothing. */
function isTransient(outcome: {
  error?: { status: number; retryable: boolean };
  creditCost: number;
}): boolean {
  return outcome.error?.status === 503 && outcome.error.retryable && outcome.creditCost === 0;
}

/** Counting semaphores by key, each with its own limit; a key's waiters are served in order. */
class KeyedSlots {
  private readonly held = new Map<string, { count: number; waiting: (() => void)[] }>();

  async acquire(key: string, limit: number): Promise<() => void> {
    let slot = this.held.get(key);
    if (!slot) {
      slot = { count: 0, waiting: [] };
      this.held.set(key, slot);
    }
    const entry = slot;
    if (entry.count >= limit) await new Promise<void>((resolve) => entry.waiting.push(resolve));
    else entry.count += 1;
    return () => {
      const next = entry.waiting.shift();
      // The slot passes straight to the next waiter; the key is forgotten when nobody holds it.
      if (next) next();
      else if (--entry.count === 0) this.held.delete(key);
    };
  }
}
