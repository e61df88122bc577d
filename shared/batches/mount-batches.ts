/**
 * Wires bulk lookups into a one-process service (`npm start`): the batch resource's routes and the
 * worker pool that runs the items through the service's own pipeline. On AWS the same records are
 * driven by SQS consumers instead (docs/batches.md).
 */
import type { Service } from '../service.js';
import type { Store } from '../store/store.js';
import { createBatchParts } from './batch-parts.js';
import { mountBatchRoutes } from './batch-routes.js';
import { BatchWorkerPool } from './batch-worker.js';
import { checkWebhookUrl } from './webhooks.js';

export function mountBatches(service: Service, store: Store): BatchWorkerPool {
  const { config } = service;
  const { webhooks, batches, runner } = createBatchParts(service, store.batches);
  const pool = new BatchWorkerPool(
    {
      store: store.batches,
      runner,
      clock: service.clock,
      logger: service.logger,
      deliverDue: () => webhooks.deliverDue(),
    },
    {
      workers: config.BATCH_WORKERS,
      perAccount: config.BATCH_ACCOUNT_CONCURRENCY,
      pollMs: config.BATCH_POLL_MS,
    },
  );
  mountBatchRoutes(service, {
    batches,
    onCreated: () => pool.wake(),
    checkWebhookUrl: (url) => checkWebhookUrl(url, config.UNSAFE_WEBHOOK_ALLOW_HOSTS),
  });
  pool.start();
  return pool;
}
