/**
 * The batch queues on AWS (issue 28): one SQS message per item, `{"batchId": "bat_…", "index": N}`, on
 * the queue of the operation's group (schemas/functions.ts `batchGroupMembers`), consumed by that
 * group's consumer function (functions/lambda/batch-consumer-handler.ts).
 *
 * A message only names an item: the item itself, its lease and its attempt live in the store, and
 * the consumer takes the item with `claimItem`, which is conditional. So a message sent twice (SQS
 * delivers at least once; the sweeper re-enqueues what looks stalled) runs its item at most once, and
 * a message may be sent again whenever in doubt.
 */
import * as z from 'zod';
import { batchGroupMembersOf } from '../../schemas/function-conventions.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import type { Config } from '../config.js';
import type { BatchRecord, BatchStore } from './batch-store.js';
import { SqsClient } from './sqs-client.js';

/** What a queue message names: one item of one batch. */
export interface ItemMessage {
  batchId: string;
  index: number;
}

const itemMessage = z.strictObject({
  batchId: z.string().regex(/^bat_[A-Za-z0-9]{20}$/),
  index: z.number().int().min(0),
});

/** The item a message body names; undefined for a body that is not one (a poisoned message). */
export function parseItemMessage(body: string): ItemMessage | undefined {
  try {
    const parsed = itemMessage.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** SendMessageBatch's own limit of entries per call. */
const ENTRIES_PER_CALL = 10;
/** Calls in flight at once: a 10,000-item batch in a few seconds without a burst of thousands. */
const CALLS_AT_ONCE = 4;
/** Tries per call: entries SQS reports failed (throttling, a blip) are sent again, with backoff. */
const TRIES = 4;
/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;

/** Messages some of which SQS would not take after every try. */
export class EnqueueError extends Error {
  constructor(
    readonly batchId: string,
    readonly unsent: readonly number[],
    options?: ErrorOptions,
  ) {
    super(`${unsent.length} item messages of batch ${batchId} were not sent`, options);
  }
}

/** The SQS client of the functions: SQS_ENDPOINT when set (start:synth's emulation), else AWS_REGION's. */
export function sqsClient(config: Pick<Config, 'AWS_REGION' | 'SQS_ENDPOINT'>): SqsClient {
  return new SqsClient({
    region: config.AWS_REGION,
    ...(config.SQS_ENDPOINT ? { endpoint: config.SQS_ENDPOINT } : {}),
  });
}

export class BatchQueues {
  /** Operation id → its group's queue URL. */
  private readonly queueOf = new Map<string, string>();

  /** `urls`: each group's queue URL (config.ts `batchQueueUrls`). */
  constructor(
    private readonly client: SqsClient,
    urls: ReadonlyMap<string, string>,
    operations: readonly OperationDefinition[],
  ) {
    for (const [group, members] of batchGroupMembersOf(operations)) {
      const url = urls.get(group);
      if (url) for (const member of members) this.queueOf.set(member.id, url);
    }
  }

  /**
   * Sends one message per index (after `delaySeconds`, at most 900); throws EnqueueError naming the
   * items SQS did not take, after sending all the others.
   */
  async enqueue(
    batch: Pick<BatchRecord, 'batchId' | 'operation'>,
    indexes: readonly number[],
    delaySeconds = 0,
  ): Promise<void> {
    const queueUrl = this.queueOf.get(batch.operation);
    if (!queueUrl)
      throw new EnqueueError(batch.batchId, indexes, { cause: `no queue for ${batch.operation}` });
    const chunks: number[][] = [];
    for (let start = 0; start < indexes.length; start += ENTRIES_PER_CALL)
      chunks.push(indexes.slice(start, start + ENTRIES_PER_CALL));
    const unsent: number[] = [];
    let lastError: unknown;
    const sender = async () => {
      for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
        try {
          unsent.push(...(await this.sendChunk(queueUrl, batch.batchId, chunk, delaySeconds)));
        } catch (error) {
          lastError = error;
          unsent.push(...chunk);
        }
      }
    };
    await Promise.all(Array.from({ length: CALLS_AT_ONCE }, sender));
    if (unsent.length > 0) throw new EnqueueError(batch.batchId, unsent, { cause: lastError });
  }

  /** One SendMessageBatch, its failed entries tried again; the indexes still not sent. */
  private async sendChunk(
    queueUrl: string,
    batchId: string,
    indexes: readonly number[],
    delaySeconds: number,
  ): Promise<number[]> {
    let left = [...indexes];
    for (let attempt = 0; attempt < TRIES && left.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      const { Failed = [] } = await this.client.sendMessageBatch({
        QueueUrl: queueUrl,
        Entries: left.map((index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ batchId, index } satisfies ItemMessage),
          ...(delaySeconds > 0 ? { DelaySeconds: Math.min(Math.ceil(delaySeconds), MAX_DELAY_SECONDS) } : {}),
        })),
      });
      const failed = new Set(Failed.map((entry) => entry.Id));
      left = left.filter((index) => failed.has(String(index)));
    }
    return left;
  }
}

/** Items read per page when looking for the ones to enqueue. */
const SCAN_PAGE = 1_000;

/**
 * The items of `batch` a worker could take now (pending, or running with their lease ended by
 * `now`): what the sweeper sends again. A batch without invalid items that nothing ran yet has every
 * index runnable, without reading its items.
 */
export async function runnableIndexes(store: BatchStore, batch: BatchRecord, now: number): Promise<number[]> {
  const indexes: number[] = [];
  for (let from = 0; from < batch.itemCount; from += SCAN_PAGE) {
    for (const item of await store.items(batch.batchId, from, SCAN_PAGE))
      if (item.state === 'pending' || (item.state === 'running' && (item.leaseUntil ?? 0) <= now))
        indexes.push(item.index);
  }
  return indexes;
}

/** Every index of a batch just created, but its invalid ones (done from the start). */
export async function createdIndexes(store: BatchStore, batch: BatchRecord): Promise<number[]> {
  if (batch.counts.invalid === 0) return Array.from({ length: batch.itemCount }, (_, index) => index);
  return runnableIndexes(store, batch, 0);
}
