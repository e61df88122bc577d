/**
 * A batch group's queue consumer (functions/lambda/batch-consumer-handler.ts) handling SQS-shaped
 * events in-process, on the DynamoDB store (dynalite) with the sample dataset: a message runs its item
 * through the billed pipeline once, a malformed message is reported alone in batchItemFailures, and a
 * duplicated message (SQS delivers at least once) runs nothing a second time.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchConsumerHandler } from '../../functions/lambda/batch-consumer-handler.js';
import { batchQueueUrlVariable } from '../../schemas/functions.js';
import type { BatchRecord } from '../../shared/batches/batch-store.js';
import * as profiles from '../../shared/operations/profiles.js';
import { createRepositories } from '../../shared/service.js';
import { ensureSampleDatabase } from '../../shared/sources/dataset/sample-database.js';
import { batchRecord } from '../support/batch-records.js';
import { type LambdaTable, openLambdaTable } from '../support/lambda-table.js';
import { identifierValues } from '../support/sample-inputs.js';

let table: LambdaTable;
let handler: BatchConsumerHandler;
const context = { getRemainingTimeInMillis: () => 60_000 };
let sequence = 0;

const record = (body: string): SQSRecord =>
  ({ messageId: `msg-${++sequence}`, body, receiptHandle: 'r', eventSource: 'aws:sqs' }) as SQSRecord;
const event = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const message = (batchId: string, index: number) => JSON.stringify({ batchId, index });

beforeAll(async () => {
  table = await openLambdaTable('batch-consumer', 100);
  Object.assign(process.env, table.env, {
    STORE: 'dynamodb',
    // A function signs with its role's credentials; dynalite takes any.
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    DATASET: ensureSampleDatabase(),
    // Sent to only when an item is deferred, which none of these is.
    [batchQueueUrlVariable('profiles')]: 'http://127.0.0.1:9/queue/batch-profiles',
  });
  const { createBatchConsumerHandler } = await import('../../functions/lambda/batch-consumer-handler.js');
  handler = await createBatchConsumerHandler('profiles', [profiles]);
});
afterAll(() => table?.close());

/** A queued batch of `count` profile lookups held by the account's key. */
async function batchOf(count: number): Promise<BatchRecord> {
  const [key] = await createRepositories(table.store).keys.list(table.accountId);
  const at = new Date().toISOString();
  const batch = batchRecord(at, {
    accountId: table.accountId,
    holderId: key?.keyId as string,
    operation: 'profiles.details',
    itemCount: count,
  });
  const items = Array.from({ length: count }, () => ({
    input: { username: identifierValues.profiles?.username as string },
  }));
  const outcome = await table.store.batches.create(batch, items);
  if (outcome.kind !== 'created') throw new Error(outcome.kind);
  return outcome.batch;
}

const balance = async () => (await createRepositories(table.store).ledger.state(table.accountId)).balance;

describe('the batch consumer', () => {
  it('runs the item a message names and bills it, then completes the batch', async () => {
    const batch = await batchOf(1);
    const before = await balance();
    const answer = await handler(event(record(message(batch.batchId, 0))), context);
    expect(answer).toEqual({ batchItemFailures: [] });
    const [item] = await table.store.batches.items(batch.batchId, 0, 1);
    expect(item).toMatchObject({ state: 'done', outcome: 'succeeded', attempt: 1 });
    expect(item?.result?.status).toBe(200);
    expect(before - (await balance())).toBe(item?.result?.creditCost);
    expect(item?.result?.creditCost).toBeGreaterThan(0);
    expect((await table.store.batches.get(batch.batchId))?.state).toBe('completed');
  });

  it('reports a malformed message alone, and runs the others of the same event', async () => {
    const batch = await batchOf(1);
    const bad = [
      record('not json'),
      record('{"batchId":"bat_x","index":0}'),
      record(message(batch.batchId, -1)),
    ];
    const good = record(message(batch.batchId, 0));
    const answer = await handler(
      event(bad[0] as SQSRecord, good, bad[1] as SQSRecord, bad[2] as SQSRecord),
      context,
    );
    expect(answer.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
      bad.map((each) => each.messageId).sort(),
    );
    expect((await table.store.batches.items(batch.batchId, 0, 1))[0]?.outcome).toBe('succeeded');
  });

  it('runs an item once however often its message arrives', async () => {
    const batch = await batchOf(2);
    const before = await balance();
    const body = message(batch.batchId, 1);
    const first = await handler(event(record(body), record(body), record(body)), context);
    const again = await handler(event(record(body)), context);
    expect(first).toEqual({ batchItemFailures: [] });
    expect(again).toEqual({ batchItemFailures: [] });
    const [untouched, item] = await table.store.batches.items(batch.batchId, 0, 2);
    expect(untouched).toMatchObject({ state: 'pending', attempt: 0 });
    expect(item).toMatchObject({ state: 'done', attempt: 1 });
    expect(before - (await balance())).toBe(item?.result?.creditCost);
    const record_ = await table.store.batches.get(batch.batchId);
    expect(record_?.counts.succeeded).toBe(1);
  });
});
