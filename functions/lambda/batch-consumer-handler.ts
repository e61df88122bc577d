/**
 * The consumer of one batch group's SQS queue (issue 28): each record names an item
 * (`{"batchId", "index"}`, shared/batches/batch-queue.ts), taken with the store's conditional
 * `claimItem` and run by the same item runner as `npm start`'s pool (billed pipeline, pause on 402,
 * per-host limits). Built from the group's catalog entries and family modules, like the operation
 * functions (scripts/build-functions.ts generates each entry).
 *
 * Partial batch responses (`ReportBatchItemFailures`): a record whose body is not an item message, or
 * whose run throws, is reported failed alone, and SQS redrives it to the dead-letter queue after
 * maxReceiveCount receives. A record whose item is done, leased by another consumer, or whose batch is
 * paused or finished is acknowledged: duplicates are harmless, and the sweeper re-sends what a
 * resumed or stalled batch still needs.
 *
 * Waits never outlast the invocation: a rate-limit or retry wait that would pass the invocation's end
 * (and an account already at BATCH_ACCOUNT_CONCURRENCY items across every consumer) hands the item back
 * and sends its message again with a delay, acknowledging this one, so waiting does not count towards
 * the dead-letter queue's receive limit. Only if that send fails is the record reported failed.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { batchGroupMembersOf } from '../../schemas/function-conventions.js';
import { createBatchParts } from '../../shared/batches/batch-parts.js';
import {
  BatchQueues,
  MAX_DELAY_SECONDS,
  parseItemMessage,
  sqsClient,
} from '../../shared/batches/batch-queue.js';
import { LEASE_MARGIN_MS } from '../../shared/batches/batch-runner.js';
import { batchQueueUrls } from '../../shared/config.js';
import { HostSlots } from '../../shared/limits/host-slots.js';
import { createLambdaService, implementationsOf, type LambdaFamily } from './lambda-service.js';

export type BatchConsumerHandler = (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
) => Promise<SQSBatchResponse>;

/** Room kept before the invocation's end to record, hand back and answer. */
const FINISH_MARGIN_MS = 3_000;
/** When an account has no free slot: try again after about this long (with jitter). */
const ACCOUNT_BUSY_DELAY_MS = 5_000;

/** `families`: the modules of every family the group's operations belong to. */
export async function createBatchConsumerHandler(
  group: string,
  families: readonly LambdaFamily[],
): Promise<BatchConsumerHandler> {
  const members = batchGroupMembersOf(families.flatMap((family) => family.operations)).get(group);
  if (!members) throw new Error(`No batch group ${group} among its families' operations.`);
  const service = await createLambdaService({
    operations: members,
    implementations: implementationsOf(families),
  });
  const { config, clock, logger } = service;
  const { runner } = createBatchParts(service, service.store.batches);
  const queues = new BatchQueues(sqsClient(config), batchQueueUrls([group]), members);
  const longestDeadlineMs = Math.max(...members.map((member) => member.runtime.timeoutMs));
  // Items of one account at once over every consumer of every group: slots in the table, leased
  // past the longest run so a crashed consumer's slot frees itself.
  const accountSlots = new HostSlots(
    service.store,
    clock,
    'batch-account',
    config.BATCH_ACCOUNT_CONCURRENCY,
    longestDeadlineMs + LEASE_MARGIN_MS,
  );

  /** Sends the item's message again after `delayMs`; false when SQS did not take it. */
  const later = async (batch: { batchId: string; operation: string }, index: number, delayMs: number) => {
    try {
      await queues.enqueue(
        batch,
        [index],
        Math.min(Math.max(1, Math.ceil(delayMs / 1000)), MAX_DELAY_SECONDS),
      );
      return true;
    } catch (error) {
      logger.warn({ err: error, batchId: batch.batchId, index }, 'batch item not sent again; SQS retries it');
      return false;
    }
  };

  /** True when the record is done with (acknowledged), false to report it failed. */
  const consume = async (record: SQSRecord, finishBy: number): Promise<boolean> => {
    const message = parseItemMessage(record.body);
    if (!message) {
      logger.error({ messageId: record.messageId }, 'batch queue message is not an item message');
      return false;
    }
    const batch = await service.store.batches.get(message.batchId);
    if (!batch || !runner.operationOf(batch)) return true;
    const { batchId, index } = message;
    if (runner.isHeld(batch.accountId)) return later(batch, index, ACCOUNT_BUSY_DELAY_MS);
    const slot = await accountSlots.acquire(batch.accountId);
    if (!slot) return later(batch, index, ACCOUNT_BUSY_DELAY_MS * (1 + Math.random()));
    try {
      const now = clock.now();
      const operation = runner.operationOf(batch);
      const leaseUntil =
        now + (operation?.definition.runtime.timeoutMs ?? longestDeadlineMs) + LEASE_MARGIN_MS;
      const item = await service.store.batches.claimItem(batchId, index, now, leaseUntil);
      if (!item) return true;
      if (batch.state === 'queued')
        await service.store.batches.transition(batchId, ['queued'], 'running', new Date(now).toISOString());
      const end = await runner.run(batch, item, { finishBy });
      if (end.kind === 'deferred') return later(batch, index, end.retryAfterMs);
      const after = await service.store.batches.get(batchId);
      if (after) await runner.finishIfDone(after);
      return true;
    } finally {
      await slot.release();
    }
  };

  return async (event, context) => {
    const finishBy = clock.now() + context.getRemainingTimeInMillis() - FINISH_MARGIN_MS;
    const outcomes = await Promise.all(
      event.Records.map((record) =>
        consume(record, finishBy).catch((error: unknown) => {
          logger.error({ err: error, messageId: record.messageId }, 'batch item run failed; SQS retries it');
          return false;
        }),
      ),
    );
    return {
      batchItemFailures: event.Records.flatMap((record, at) =>
        outcomes[at] ? [] : [{ itemIdentifier: record.messageId }],
      ),
    };
  };
}
