/**
 * Wires bulk lookups into a one-process service (`npm start`): the batch resource's routes and the
 * worker pool that runs the items through the service's own pipeline, and returns what the MCP
 * `batches` toolset runs on (mount-mcp.ts). On AWS the same records are driven by SQS consumers
 * instead (docs/batches.md).
 */

import type { BatchToolsBackend } from '../mcp/batch-tools.js';
import type { Service } from '../service.js';
import type { Store } from '../store/store.js';
import { admitAccountCall, type BatchRoutesOptions, mountBatchRoutes } from './batch-routes.js';
import { BatchItemRunner } from './batch-runner.js';
import { BatchService } from './batch-service.js';
import type { BatchRecord, WebhookEventType } from './batch-store.js';
import { fetchItems } from './batch-upload.js';
import { BatchWorkerPool } from './batch-worker.js';
import { checkWebhookUrl, notifierSettings, WebhookNotifier } from './webhooks.js';

export function mountBatches(
  service: Service,
  store: Store,
): { pool: BatchWorkerPool; tools: BatchToolsBackend } {
  const { config, repositories } = service;
  const webhooks = new WebhookNotifier({
    ...notifierSettings(config),
    store: store.batches,
    clock: service.clock,
    logger: service.logger,
  });
  // An event's payload is the batch as GET /v1/batches/{id} shows it at that moment.
  const announce = (batch: BatchRecord, event: WebhookEventType): Promise<void> =>
    webhooks.announce(batch, event, batches.view(batch));
  const batches = new BatchService(store.batches, service.operations, service.clock, announce);
  const runner = new BatchItemRunner({
    store: store.batches,
    pipeline: service.pipeline,
    operations: service.operations,
    authenticator: service.authenticator,
    keys: repositories.keys,
    connections: repositories.connections,
    accounts: repositories.accounts,
    holderCacheMs: config.KEY_CACHE_SECONDS * 1000,
    ledger: repositories.ledger,
    clock: service.clock,
    logger: service.logger,
    hostLimits: { smtp: config.SMTP_MAX_SESSIONS_PER_MX, browser: config.WEBSITE_MAX_PAGES_PER_HOST },
    announce,
  });
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
    checkWebhookUrl: (url) => checkWebhookUrl(url, config.UNSAFE_BATCH_URL_ALLOW_HOSTS),
    fetchItems: (url, limits) =>
      fetchItems(url, limits, { allowHosts: config.UNSAFE_BATCH_URL_ALLOW_HOSTS, httpForAllowedHosts: true }),
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
