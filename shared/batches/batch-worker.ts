/**
 * The worker pool of `npm start` (issue 28): hands the items of every unfinished batch to the item
 * runner (batch-runner.ts), which runs each as its single call through the billed pipeline.
 *
 * - Bounded: BATCH_WORKERS items at once over all batches, BATCH_ACCOUNT_CONCURRENCY per account, the
 *   accounts served in turn, so one large customer cannot take every worker; an account waiting out
 *   its rate limit gets no new items meanwhile.
 * - Each tick also completes batches whose items are all done, resumes paused batches whose holder
 *   can pay again, and sends the webhook deliveries that are due.
 * - Restart safety: items are claimed under a lease and completed by attempt (batch-store.ts), so an
 *   item a crashed process held is run again once its lease ends; the debit it had taken is refunded
 *   by reconcile as any crash's is, so no item is charged twice. When this process holds the store
 *   alone (`exclusiveStore`: the DATA_DIR's server lock), every lease it finds at start belongs to a
 *   process that is gone, and those items are run again at once rather than after their lease.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { type BatchItemRunner, LEASE_MARGIN_MS } from './batch-runner.js';
import type { BatchRecord, BatchStore, ClaimedItem } from './batch-store.js';

export interface BatchWorkerSettings {
  /** Items run at once over every batch. */
  workers: number;
  /** Items of one account run at once. */
  perAccount: number;
  /** How often to look for work when nothing woke the pool. */
  pollMs: number;
  /** No other process runs this store's batches (a store of DATA_DIR, not a shared DYNAMODB_ENDPOINT). */
  exclusiveStore: boolean;
}

export interface BatchWorkerDependencies {
  store: BatchStore;
  runner: BatchItemRunner;
  clock: Clock;
  logger: Logger;
  /** Sends the webhook deliveries that are due (retries); run beside the ticks, never two at once. */
  deliverDue?: () => Promise<unknown>;
}

interface Running {
  accountId: string;
  batchId: string;
}

export class BatchWorkerPool {
  private readonly running = new Set<Running>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private delivering: Promise<unknown> | undefined;
  private stopped = true;
  /** Batches this process has claimed from: the leases it finds on them now are its own. */
  private readonly recovered = new Set<string>();

  constructor(
    private readonly deps: BatchWorkerDependencies,
    private readonly settings: BatchWorkerSettings,
  ) {}

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
    const { runner } = this.deps;
    for (const batch of batches) {
      if (batch.state === 'paused') await runner.resumeIfFunded(batch);
      else if (!(await runner.finishIfDone(batch))) claimable.push(batch);
    }
    await this.claimInTurn(claimable);
  }

  /**
   * Accounts in turn, one item at a time, until the workers or every account's share are taken;
   * within an account, its oldest batch first.
   */
  private async claimInTurn(batches: readonly BatchRecord[]): Promise<void> {
    const byAccount = new Map<string, BatchRecord[]>();
    for (const batch of batches) {
      if (this.deps.runner.isHeld(batch.accountId)) continue;
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
    const operation = this.deps.runner.operationOf(batch);
    if (!operation) {
      this.deps.logger.error(
        { batchId: batch.batchId, operation: batch.operation },
        'batch of an unknown operation',
      );
      await this.deps.runner.move(batch, ['queued', 'running', 'paused'], 'failed', 'batch.failed');
      return [];
    }
    const { store, clock } = this.deps;
    const leaseUntil = clock.now() + operation.definition.runtime.timeoutMs + LEASE_MARGIN_MS;
    // Holding the store alone, a lease this process did not take was taken by one that is gone.
    const firstLook = this.settings.exclusiveStore && !this.recovered.has(batch.batchId);
    const deadBefore = firstLook ? Number.MAX_SAFE_INTEGER : clock.now();
    this.recovered.add(batch.batchId);
    const again = await store.reclaimExpired(batch.batchId, deadBefore, limit, leaseUntil);
    const fresh =
      again.length < limit ? await store.claimNext(batch.batchId, limit - again.length, leaseUntil) : [];
    const claimed = [...again, ...fresh];
    if (claimed.length > 0 && batch.state === 'queued')
      await store.transition(batch.batchId, ['queued'], 'running', new Date(clock.now()).toISOString());
    return claimed;
  }

  private launch(batch: BatchRecord, item: ClaimedItem): void {
    const slot: Running = { accountId: batch.accountId, batchId: batch.batchId };
    this.running.add(slot);
    this.deps.runner
      .run(batch, item)
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

  private activeFor(accountId: string): number {
    let count = 0;
    for (const slot of this.running) if (slot.accountId === accountId) count += 1;
    return count;
  }
}
