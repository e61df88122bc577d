/**
 * The sweep of batches driven by queues (AWS; issue 28), run by the scheduled reconcile: what the
 * consumers cannot do for themselves because no message is left to wake them.
 *
 * - A batch whose items are all done is completed (a consumer crashed between an item's completion
 *   and the batch's).
 * - A paused batch whose holder can pay again is resumed, and its items still to run are sent again
 *   (the messages of its paused items were acknowledged).
 * - A queued or running batch with no progress for STALLED_AFTER_MS has its items still to run sent
 *   again: a create that crashed while enqueueing, a consumer that died holding a lease whose message
 *   was already acknowledged. Duplicates are harmless (`claimItem` is conditional).
 * - The webhook deliveries that are due are tried.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { BatchQueues } from './batch-queue.js';
import { runnableIndexes } from './batch-queue.js';
import type { BatchItemRunner } from './batch-runner.js';
import type { BatchRecord, BatchStore } from './batch-store.js';
import type { WebhookNotifier } from './webhooks.js';

/**
 * No completion for this long: the batch's items still to run are sent again. Longer than any item
 * waits in a busy queue behind its own batch's other items would be better still; a duplicate costs a
 * message and a conditional read, never a second run.
 */
export const STALLED_AFTER_MS = 10 * 60_000;

export interface BatchSweepDependencies {
  store: BatchStore;
  runner: BatchItemRunner;
  queues: BatchQueues;
  webhooks: WebhookNotifier;
  clock: Clock;
  logger: Logger;
}

export interface BatchSweepSummary {
  completed: number;
  resumed: number;
  /** Item messages sent again. */
  resent: number;
  webhookAttempts: number;
}

export async function sweepBatches(deps: BatchSweepDependencies): Promise<BatchSweepSummary> {
  const { store, runner, clock } = deps;
  const summary: BatchSweepSummary = { completed: 0, resumed: 0, resent: 0, webhookAttempts: 0 };
  for (const batch of await store.unfinished()) {
    if (batch.state === 'paused') {
      await runner.resumeIfFunded(batch);
      const after = await store.get(batch.batchId);
      if (after?.state !== 'running') continue;
      summary.resumed += 1;
      summary.resent += await resend(deps, after);
    } else if (await runner.finishIfDone(batch)) summary.completed += 1;
    else if (clock.now() - Date.parse(batch.updatedAt) >= STALLED_AFTER_MS)
      summary.resent += await resend(deps, batch);
  }
  summary.webhookAttempts = await deps.webhooks.deliverDue();
  return summary;
}

/** Sends the batch's items still to run again; how many were sent. Never throws. */
async function resend(deps: BatchSweepDependencies, batch: BatchRecord): Promise<number> {
  try {
    const indexes = await runnableIndexes(deps.store, batch, deps.clock.now());
    await deps.queues.enqueue(batch, indexes);
    return indexes.length;
  } catch (error) {
    deps.logger.error({ err: error, batchId: batch.batchId }, 'batch items not sent again');
    return 0;
  }
}
