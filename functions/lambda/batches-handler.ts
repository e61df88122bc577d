/**
 * The batch resource on AWS (issue 28): /v1/batches and its sub-paths through API Gateway, served by
 * the same routes and BatchService as `npm start` (shared/batches/batch-routes.ts). A created batch's
 * items are sent to its group's SQS queue before the answer (a function is frozen once it answered);
 * the group's consumer runs them. If SQS refuses some, the batch still exists and the scheduled sweep
 * (reconcile-handler.ts) sends its items again once it looks stalled.
 *
 * This function runs no operation: it checks every item with the operation's own input rules (the
 * schema and the family's own check, as a single call would) and never reads the dataset.
 */
import { createBatchParts } from '../../shared/batches/batch-parts.js';
import { BatchQueues, createdIndexes, sqsClient } from '../../shared/batches/batch-queue.js';
import { mountBatchRoutes } from '../../shared/batches/batch-routes.js';
import { batchQueueUrls } from '../../shared/config.js';
import { batchGroups, batchOperations, checksOnly } from './batch-operations.js';
import { createLambdaService } from './lambda-service.js';
import { toRestHandler } from './rest-adapter.js';

const service = await createLambdaService({
  operations: batchOperations,
  implementations: checksOnly,
  runs: false,
});
const { config, logger } = service;
const { batches, urls } = createBatchParts(service, service.store.batches);
const queues = new BatchQueues(sqsClient(config), batchQueueUrls(batchGroups.keys()), batchOperations);

mountBatchRoutes(service, {
  batches,
  onCreated: async (batch) => {
    try {
      await queues.enqueue(batch, await createdIndexes(service.store.batches, batch));
    } catch (error) {
      logger.error(
        { err: error, batchId: batch.batchId },
        'batch items not all enqueued; the sweep sends them',
      );
    }
  },
  ...urls,
});

export const handler = toRestHandler(service.app);
