/**
 * The parts of bulk lookups every process wires the same way (issue 28): the webhook notifier, the
 * batch service (create, read, cancel) announcing through it, and the item runner. `npm start`
 * (mount-batches.ts) adds its worker pool; on AWS the batches function, the queue consumers and the
 * sweeping reconcile (functions/lambda/) each use the parts they need.
 */
import type { Service } from '../service.js';
import type { BatchRoutesOptions } from './batch-routes.js';
import { BatchItemRunner } from './batch-runner.js';
import { BatchService } from './batch-service.js';
import type { BatchRecord, BatchStore, WebhookEventType } from './batch-store.js';
import { fetchItems } from './batch-upload.js';
import { checkWebhookUrl, notifierSettings, WebhookNotifier } from './webhooks.js';

export interface BatchParts {
  webhooks: WebhookNotifier;
  batches: BatchService;
  runner: BatchItemRunner;
  /** What the routes (and the MCP tools) check outside URLs with: the egress guard's settings. */
  urls: Pick<BatchRoutesOptions, 'checkWebhookUrl' | 'fetchItems'>;
}

export function createBatchParts(service: Service, store: BatchStore): BatchParts {
  const { config, repositories } = service;
  const webhooks = new WebhookNotifier({
    ...notifierSettings(config),
    store,
    clock: service.clock,
    logger: service.logger,
  });
  // An event's payload is the batch as GET /v1/batches/{id} shows it at that moment.
  const announce = (batch: BatchRecord, event: WebhookEventType): Promise<void> =>
    webhooks.announce(batch, event, batches.view(batch));
  const batches = new BatchService(store, service.operations, service.clock, announce);
  const runner = new BatchItemRunner({
    store,
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
  const allowHosts = config.UNSAFE_BATCH_URL_ALLOW_HOSTS;
  const urls: BatchParts['urls'] = {
    checkWebhookUrl: (url) => checkWebhookUrl(url, allowHosts),
    fetchItems: (url, limits) => fetchItems(url, limits, { allowHosts, httpForAllowedHosts: true }),
  };
  return { webhooks, batches, runner, urls };
}
