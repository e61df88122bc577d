/**
 * The worker pool of `npm start` (issue 28): runs the items of every unfinished batch through the
 * billed pipeline, one single call each, with the batch holder's key, so an item costs, counts and
 * settles exactly as the call would.
 *
 * - Bounded: BATCH_WORKERS items at once over all batches, BATCH_ACCOUNT_CONCURRENCY per account, the
 *   accounts served in turn, so one large customer cannot take every worker.
 * - The rate limit slows a batch down instead of failing its items: a 429 (and a retryable "try
 *   again later" 503 that charged nothing) is waited out, the item's lease kept, and the account's
 *   other items held back until the wait is over.
 * - Out of credits (402): the item is handed back unrun and the batch pauses, saying why; it resumes
 *   by itself once the account (or the key's cap) has room for one more item.
 * - A revoked key or suspended account (401, 403) fails the batch: its items would all be refused.
 * - Restart safety: items are claimed under a lease and completed by attempt (batch-store.ts). This
 *   process holds the store alone (the server lock), so at start every lease it finds belongs to a
 *   process that is gone, and those items are run again at once; the debit such an item had taken is
 *   refunded by reconcile as any crash's is, so no item is charged twice.
 */

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
import type { RegisteredOperation } from '../pipeline/operation.js';
import { newRequestId } from '../pipeline/public-response.js';
import { type LookupPipeline, spendCapsOf } from '../pipeline/run-lookup.js';
import type { BatchRecord, BatchStore, ClaimedItem, PauseReason, WebhookEventType } from './batch-store.js';

export interface BatchWorkerSettings {
  /** Items run at once over every batch. */
  workers: number;
  /** Items of one account run at once. */
  perAccount: number;
  /** How often to look for work when nothing woke the pool. */
  pollMs: number;
  /** Items of this pool that may hold one mail domain, or one site, at once. */
  hostLimits: { smtp: number; browser: number };
}

export interface BatchWorkerDependencies {
  store: BatchStore;
  pipeline: LookupPipeline;
  operations: readonly RegisteredOperation[];
  authenticator: Authenticator;
  keys: ApiKeyRepository;
  ledger: CreditLedger;
  clock: Clock;
  logger: Logger;
  /** Told when a batch completes, fails or pauses (its webhook); never throws. */
  announce?: (batch: BatchRecord, event: WebhookEventType) => Promise<void>;
  /** Sends the webhook deliveries that are due (retries); run beside the ticks, never two at once. */
  deliverDue?: () => Promise<unknown>;
}

/** Time past an operation's deadline an item's lease runs, for the completion write to land. */
const LEASE_MARGIN_MS = 30_000;
/**
 * How long an item keeps retrying a retryable refusal that charged nothing (503: a mail server or
 * site at its limit, billing briefly unavailable) before that refusal is its result; the waits
 * between tries double from the first to the longest, with jitter.
 */
const TRANSIENT_PATIENCE_MS = 5 * 60_000;
const TRANSIENT_FIRST_WAIT_MS = 250;
const TRANSIENT_MAX_WAIT_MS = 10_000;

interface Running {
  accountId: string;
  batchId: string;
}

export class BatchWorkerPool {
  private readonly operations: ReadonlyMap<string, RegisteredOperation>;
  private readonly running = new Set<Running>();
  /** Per account: epoch ms before which none of its items starts (a rate-limit wait). */
  private readonly heldUntil = new Map<string, number>();
  /** Key id → key hash: a key's hash never changes, its revocation is checked at every use. */
  private readonly keyHashes = new Map<string, string>();
  private readonly hosts = new KeyedSlots();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private delivering: Promise<unknown> | undefined;
  private stopped = true;
  /** Leases older than this process's start are dead: reclaimed at the first tick that sees them. */
  private recovered = new Set<string>();

  constructor(
    private readonly deps: BatchWorkerDependencies,
    private readonly settings: BatchWorkerSettings,
  ) {
    this.operations = new Map(deps.operations.map((operation) => [operation.definition.id, operation]));
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops handing out items and waits for the running ones to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.delivering;
    while (this.running.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Looks for work now (a batch was created, an item ended). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.ticking = this.tick()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'batch worker tick failed'))
      .finally(() => {
        this.ticking = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          setImmediate(() => this.wake());
        } else {
          this.timer = setTimeout(() => this.wake(), this.settings.pollMs);
          this.timer.unref();
        }
      });
  }

  private async tick(): Promise<void> {
    const { deliverDue } = this.deps;
    if (deliverDue && !this.delivering)
      this.delivering = deliverDue().finally(() => {
        this.delivering = undefined;
      });
    const batches = await this.deps.store.unfinished();
    const claimable: BatchRecord[] = [];
    for (const batch of batches) {
      if (batch.state === 'paused') await this.resumeIfFunded(batch);
      else if (await this.finishIfDone(batch)) continue;
      else claimable.push(batch);
    }
    await this.claimInTurn(claimable);
  }

  /** Completes a batch whose every item is done. */
  private async finishIfDone(batch: BatchRecord): Promise<boolean> {
    const { succeeded, failed, invalid } = batch.counts;
    if (succeeded + failed + invalid < batch.itemCount) return false;
    await this.move(batch, ['queued', 'running'], 'completed', 'batch.completed');
    return true;
  }

  /**
   * Accounts in turn, one item at a time, until the workers or every account's share are taken;
   * within an account, its oldest batch first.
   */
  private async claimInTurn(batches: readonly BatchRecord[]): Promise<void> {
    const now = this.deps.clock.now();
    const byAccount = new Map<string, BatchRecord[]>();
    for (const batch of batches) {
      if ((this.heldUntil.get(batch.accountId) ?? 0) > now) continue;
      byAccount.set(batch.accountId, [...(byAccount.get(batch.accountId) ?? []), batch]);
    }
    for (const [accountId, queue] of byAccount) {
      let free = Math.min(
        this.settings.perAccount - this.activeFor(accountId),
        this.settings.workers - this.running.size,
      );
      for (const batch of queue) {
        if (free <= 0) break;
        const claimed = await this.claim(batch, free);
        free -= claimed.length;
        for (const item of claimed) this.launch(batch, item);
      }
      if (this.running.size >= this.settings.workers) return;
    }
  }

  private async claim(batch: BatchRecord, limit: number): Promise<ClaimedItem[]> {
    const operation = this.operations.get(batch.operation);
    if (!operation) {
      this.deps.logger.error(
        { batchId: batch.batchId, operation: batch.operation },
        'batch of an unknown operation',
      );
      await this.move(batch, ['queued', 'running', 'paused'], 'failed', 'batch.failed');
      return [];
    }
    const { store, clock } = this.deps;
    const leaseUntil = clock.now() + operation.definition.runtime.timeoutMs + LEASE_MARGIN_MS;
    // A lease seen for the first time by this process was taken by one that is gone.
    const deadBefore = this.recovered.has(batch.batchId) ? clock.now() : Number.MAX_SAFE_INTEGER;
    this.recovered.add(batch.batchId);
    const again = await store.reclaimExpired(batch.batchId, deadBefore, limit, leaseUntil);
    const fresh =
      again.length < limit ? await store.claimNext(batch.batchId, limit - again.length, leaseUntil) : [];
    const claimed = [...again, ...fresh];
    if (claimed.length > 0 && batch.state === 'queued')
      await store.transition(batch.batchId, ['queued'], 'running', this.nowIso());
    return claimed;
  }

  private launch(batch: BatchRecord, item: ClaimedItem): void {
    const slot: Running = { accountId: batch.accountId, batchId: batch.batchId };
    this.running.add(slot);
    this.runItem(batch, item)
      .catch((error: unknown) =>
        // The item's lease runs out and it is run again; nothing was recorded for this attempt.
        this.deps.logger.error(
          { err: error, batchId: batch.batchId, index: item.index },
          'batch item failed',
        ),
      )
      .finally(() => {
        this.running.delete(slot);
        this.wake();
      });
  }

  private async runItem(batch: BatchRecord, item: ClaimedItem): Promise<void> {
    const { store } = this.deps;
    const operation = this.operations.get(batch.operation) as RegisteredOperation;
    const principal = await this.holder(batch);
    if (!principal) {
      await store.release(batch.batchId, item.index, item.attempt);
      await this.move(batch, ['queued', 'running', 'paused'], 'failed', 'batch.failed');
      return;
    }
    const host = this.hostOf(operation, item.input);
    const release = host ? await this.hosts.acquire(host.key, host.limit) : () => {};
    try {
      await this.runHeld(batch, item, operation, principal);
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
  ): Promise<void> {
    const { store, pipeline, clock } = this.deps;
    const givesUpAt = clock.now() + TRANSIENT_PATIENCE_MS;
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
        return;
      }
      if (error instanceof InvalidApiKeyError || error instanceof InsufficientScopeError) {
        await store.release(batch.batchId, item.index, item.attempt);
        await this.move(batch, ['queued', 'running', 'paused'], 'failed', 'batch.failed');
        return;
      }
      if (error instanceof RateLimitExceededError) {
        // The account's window is full: none of its items starts before it has room again.
        const waitMs = Math.min(Math.max(Number(headers['Retry-After']) || 1, 1), 60) * 1000;
        this.heldUntil.set(
          batch.accountId,
          Math.max(this.heldUntil.get(batch.accountId) ?? 0, clock.now() + waitMs),
        );
        if (!(await this.waitOut(batch, item, operation, waitMs))) return;
        continue;
      }
      // A busy mail server or site, or a store that is back in a moment: this item waits alone.
      if (isTransient(outcome) && clock.now() < givesUpAt) {
        const waitMs = Math.min(TRANSIENT_FIRST_WAIT_MS * 2 ** transient++, TRANSIENT_MAX_WAIT_MS);
        if (!(await this.waitOut(batch, item, operation, waitMs * (0.5 + Math.random() / 2)))) return;
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
      return;
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
      return domain
        ? { key: `smtp:${domain.toLowerCase()}`, limit: this.settings.hostLimits.smtp }
        : undefined;
    }
    if (needs.includes('browser')) {
      const url = text('url');
      const host = url && URL.canParse(url) ? new URL(url).hostname : undefined;
      return host ? { key: `web:${host}`, limit: this.settings.hostLimits.browser } : undefined;
    }
    return undefined;
  }

  /** Resumes a paused batch once its holder can pay for one more item. */
  private async resumeIfFunded(batch: BatchRecord): Promise<void> {
    const operation = this.operations.get(batch.operation);
    const principal = await this.holder(batch);
    if (!operation || !principal) return;
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
    let keyHash = this.keyHashes.get(batch.holderId);
    if (!keyHash) {
      keyHash = (await keys.list(batch.accountId)).find((key) => key.keyId === batch.holderId)?.keyHash;
      if (!keyHash) return undefined;
      this.keyHashes.set(batch.holderId, keyHash);
    }
    try {
      const principal = await authenticator.authenticateKeyHash(keyHash);
      return principal.account.status === 'active' ? principal : undefined;
    } catch {
      return undefined;
    }
  }

  private async move(
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

  private activeFor(accountId: string): number {
    let count = 0;
    for (const slot of this.running) if (slot.accountId === accountId) count += 1;
    return count;
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
