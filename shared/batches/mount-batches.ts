/**
 * Wires bulk lookups into a one-process service (`npm start`): the batch resource's routes and the
 * worker pool that runs the items through the service's own pipeline. On AWS the same records are
 * driven by SQS consumers instead (docs/batches.md).
 */
import type { Service } from '../service.js';
import type { Store } from '../store/store.js';
import { mountBatchRoutes } from './batch-routes.js';
import { BatchService } from './batch-service.js';
import { BatchWorkerPool } from './batch-worker.js';

export function mountBatches(service: Service, store: Store): BatchWorkerPool {
  const { config, repositories } = service;
  const batches = new BatchService(store.batches, service.operations, service.clock);
  const pool = new BatchWorkerPool(
    {
      store: store.batches,
      pipeline: service.pipeline,
      operations: service.operations,
      authenticator: service.authenticator,
      keys: repositories.keys,
      ledger: repositories.ledger,
      clock: service.clock,
      logger: service.logger,
    },
    {
      workers: config.BATCH_WORKERS,
      perAccount: config.BATCH_ACCOUNT_CONCURRENCY,
      pollMs: config.BATCH_POLL_MS,
      hostLimits: { smtp: config.SMTP_MAX_SESSIONS_PER_MX, browser: config.WEBSITE_MAX_PAGES_PER_HOST },
    },
  );
  mountBatchRoutes(service, { batches, onCreated: () => pool.wake() });
  pool.start();
  return pool;
}
