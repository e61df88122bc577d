/**
 * The scheduled reconcile (EventBridge, every few minutes): the same settlement as `npm run admin --
 * reconcile`, refunding in-flight debits older than the longest deadline that a timed-out or crashed
 * function left behind (RECONCILE_AFTER_SECONDS shortens that), then the sweep of batches
 * (shared/batches/batch-sweep.ts: complete, resume, re-send stalled items, deliver due webhooks).
 * Answers a JSON summary, which lands in the function's log.
 */
import { createBatchParts } from '../../shared/batches/batch-parts.js';
import { BatchQueues, sqsClient } from '../../shared/batches/batch-queue.js';
import { type BatchSweepSummary, sweepBatches } from '../../shared/batches/batch-sweep.js';
import { batchQueueUrls } from '../../shared/config.js';
import { DEFAULT_RECONCILE_AGE_SECONDS, reconcile } from '../cli/commands.js';
import { batchGroups, batchOperations, checksOnly } from './batch-operations.js';
import { emfMetrics } from './emf-metrics.js';
import { createLambdaService } from './lambda-service.js';

// The batch operations are registered to price a paused batch's next item; this function runs none.
const service = await createLambdaService({
  operations: batchOperations,
  implementations: checksOnly,
  runs: false,
});
const { config, repositories } = service;
const { runner, webhooks } = createBatchParts(service, service.store.batches);
const queues = new BatchQueues(sqsClient(config), batchQueueUrls(batchGroups.keys()), batchOperations);
const metrics = emfMetrics();

export interface ReconcileSummary {
  olderThanSeconds: number;
  settled: number;
  requestIds: string[];
  batches: BatchSweepSummary;
}

const olderThanSeconds = config.RECONCILE_AFTER_SECONDS ?? DEFAULT_RECONCILE_AGE_SECONDS;

export async function handler(): Promise<ReconcileSummary> {
  const { settled, entries } = await reconcile({ repositories, config }, olderThanSeconds);
  // Every run, zero included, so the metric also shows that the schedule runs.
  metrics.count('ReconcileSettled', settled);
  const batches = await sweepBatches({
    store: service.store.batches,
    runner,
    queues,
    webhooks,
    clock: service.clock,
    logger: service.logger,
  });
  return {
    olderThanSeconds,
    settled,
    requestIds: entries.map((entry) => entry.requestId),
    batches,
  };
}
