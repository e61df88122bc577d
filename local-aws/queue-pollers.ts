/**
 * Lambda's event source mappings on SQS queues, locally: for each AWS::Lambda::EventSourceMapping of
 * the templates, pollers that long-poll the queue for up to BatchSize messages (gathering for up to
 * MaximumBatchingWindowInSeconds), invoke the function on the Lambda host with the event Lambda
 * sends (`Records` of `aws:sqs`), and delete what succeeded. A function error, timeout or crash fails
 * the whole batch; with ReportBatchItemFailures the `batchItemFailures` it answers are left alone
 * (an answer naming a record not in the batch fails the whole batch, as Lambda treats it). Messages
 * left alone reappear after the queue's visibility timeout, so the redrive policy moves a poison
 * message to its dead-letter queue. At most MaximumConcurrency invocations per mapping run at once
 * (Lambda's initial five pollers when unset), never more than the function's reserved concurrency.
 * Lambda refuses a mapping whose function's role may not consume the queue, or whose queue's
 * visibility timeout is shorter than the function's timeout: so does this (logged, not polled).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../shared/logger.js';
import type { DeployedFunction, Deployment, QueueEventSource } from './deployment-model.js';
import type { FunctionHost } from './function-host.js';
import { isAllowed } from './iam.js';
import { systemAttributes } from './local-sqs.js';
import type { ReceivedMessage, SqsQueue, SqsQueues } from './sqs-queue.js';

/** Concurrent batches per mapping without ScalingConfig: Lambda starts with five pollers. */
const DEFAULT_CONCURRENCY = 5;
/** Lambda's pollers long-poll SQS for the longest wait it allows. */
const LONG_POLL_MS = 20_000;
/** A poller that failed (not the function: the host) waits this long before polling again. */
const RETRY_AFTER_FAILURE_MS = 1000;
/** What Lambda's role needs on the queue to run a mapping. */
const CONSUMER_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];

export interface QueuePollersOptions {
  deployment: Deployment;
  queues: SqsQueues;
  host: FunctionHost;
  logger: Logger;
}

/** The SQS event Lambda sends for a batch of messages. */
export function sqsEvent(messages: readonly ReceivedMessage[], queueArn: string, region: string) {
  return {
    Records: messages.map((message) => ({
      messageId: message.messageId,
      receiptHandle: message.receiptHandle,
      body: message.body,
      attributes: systemAttributes(message),
      messageAttributes: Object.fromEntries(
        Object.entries(message.messageAttributes).map(([name, attribute]) => [
          name,
          {
            dataType: attribute.DataType,
            ...(attribute.StringValue === undefined ? {} : { stringValue: attribute.StringValue }),
            ...(attribute.BinaryValue === undefined ? {} : { binaryValue: attribute.BinaryValue }),
            stringListValues: [],
            binaryListValues: [],
          },
        ]),
      ),
      md5OfBody: message.md5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: region,
    })),
  };
}

/**
 * The records of a batch that failed, by message id: all of them unless the function answered and
 * the mapping reports item failures, then those its `batchItemFailures` name.
 */
export function failedRecords(
  invocation: Awaited<ReturnType<FunctionHost['invoke']>>,
  batch: readonly ReceivedMessage[],
  reportBatchItemFailures: boolean,
): Set<string> {
  const all = new Set(batch.map((message) => message.messageId));
  if (invocation.kind !== 'result') return all;
  if (!reportBatchItemFailures) return new Set();
  const failures = (invocation.result as { batchItemFailures?: unknown } | null | undefined)
    ?.batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const named = failures.map((failure) => (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier);
  // An identifier that is empty or names no record of the batch: Lambda fails the whole batch.
  if (named.some((id) => typeof id !== 'string' || !all.has(id))) return all;
  return new Set(named as string[]);
}

/** Starts every mapping's pollers; the function returned stops them and resolves once they ended. */
export function startQueuePollers(options: QueuePollersOptions): () => Promise<void> {
  const stop = new AbortController();
  const loops = options.deployment.queueEventSources.flatMap((mapping) => {
    const fn = options.host.find(mapping.functionArn);
    const queue = options.queues.withArn(mapping.queueArn);
    if (!fn || !queue) {
      options.logger.error(
        { function: mapping.functionArn, queue: mapping.queueArn },
        'event source mapping names a function or queue the templates do not define; not polling',
      );
      return [];
    }
    const denied = CONSUMER_ACTIONS.filter((action) => !isAllowed(fn.policy, action, queue.definition.arn));
    if (denied.length > 0) {
      options.logger.error(
        { function: fn.name, queue: queue.definition.name, denied },
        "the function's role may not consume the queue (Lambda would refuse the mapping); not polling",
      );
      return [];
    }
    if (queue.definition.visibilityTimeoutSeconds < fn.timeoutSeconds) {
      options.logger.error(
        { function: fn.name, queue: queue.definition.name },
        `the queue's visibility timeout (${queue.definition.visibilityTimeoutSeconds} s) is shorter than the function's timeout (${fn.timeoutSeconds} s): Lambda would refuse the mapping; not polling`,
      );
      return [];
    }
    const concurrency = Math.min(
      mapping.maximumConcurrency ?? DEFAULT_CONCURRENCY,
      fn.reservedConcurrency ?? Number.POSITIVE_INFINITY,
    );
    return Array.from({ length: concurrency }, () => poll(options, mapping, fn, queue, stop.signal));
  });
  return async () => {
    stop.abort();
    await Promise.all(loops);
  };
}

async function poll(
  options: QueuePollersOptions,
  mapping: QueueEventSource,
  fn: DeployedFunction,
  queue: SqsQueue,
  signal: AbortSignal,
): Promise<void> {
  const { host, logger, deployment } = options;
  while (!signal.aborted) {
    try {
      const batch = await gather(queue, mapping, signal);
      if (batch.length === 0 || signal.aborted) continue;
      const invocation = await host.invoke(fn, sqsEvent(batch, queue.definition.arn, deployment.region));
      const failed = failedRecords(invocation, batch, mapping.reportBatchItemFailures);
      for (const message of batch) if (!failed.has(message.messageId)) queue.delete(message.receiptHandle);
      logger.info(
        {
          function: fn.name,
          queue: queue.definition.name,
          records: batch.length,
          failed: failed.size,
          outcome: invocation.kind,
        },
        'queue batch',
      );
    } catch (error) {
      logger.error({ err: error, function: fn.name, queue: queue.definition.name }, 'queue poller failed');
      await sleep(RETRY_AFTER_FAILURE_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}

/** Up to BatchSize messages: the first long poll, then more until the batching window closes. */
async function gather(
  queue: SqsQueue,
  mapping: QueueEventSource,
  signal: AbortSignal,
): Promise<ReceivedMessage[]> {
  const batch = await queue.receiveWaiting(Math.min(mapping.batchSize, 10), LONG_POLL_MS, signal);
  const windowEnds = Date.now() + mapping.maximumBatchingWindowSeconds * 1000;
  while (batch.length > 0 && batch.length < mapping.batchSize && !signal.aborted) {
    const waitMs = windowEnds - Date.now();
    if (waitMs <= 0) break;
    batch.push(
      ...(await queue.receiveWaiting(Math.min(mapping.batchSize - batch.length, 10), waitMs, signal)),
    );
  }
  return batch;
}
