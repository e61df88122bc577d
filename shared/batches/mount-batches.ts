/**
 * Wires bulk lookups into a one-process service (`npm start`): the batch resource's routes and the
 * worker pool that runs the items through the service's own pipeline, and returns what the MCP
 * `batches` toolset runs on (mount-mcp.ts). On AWS the same records are driven by SQS consumers
 * instead (docs/batches.md).
 */

import type { BatchToolsBackend } from '../mcp/batch-tools.js';
import type { Service } from '../service.js';
import type { Store } from '../store/store.js';
import { createBatchParts } from './batch-parts.js';
import { admitAccountCall, type BatchRoutesOptions, mountBatchRoutes } from './batch-routes.js';
import { BatchWorkerPool } from './batch-worker.js';

export function mountBatches(
  service: Service,
  store: Store,
): { pool: BatchWorkerPool; tools: BatchToolsBackend } {
  const { config } = service;
  const { webhooks, batches, runner, urls } = createBatchParts(service, store.batches);
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
      // Without an endpoint the store lives in DATA_DIR, which one server holds at a time.
      exclusiveStore: config.DYNAMODB_ENDPOINT === undefined,
    },
  );
  const routes: BatchRoutesOptions = {
    batches,
    onCreated: () => pool.wake(),
    ...urls,
  };
  mountBatchRoutes(service, routes);
  pool.start();
  return {
    pool,
    tools: {
      ...routes,
      authenticator: service.authenticator,
      admit: (principal) => admitAccountCall(service, config, principal),
    },
  };
}
