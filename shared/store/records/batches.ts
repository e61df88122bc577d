/**
 * Bulk lookups' records (batches/batch-store.ts): a batch, one of its items (with its result once
 * run), a create's idempotency key as stored (the claim and the batch it made, per account), and a
 * webhook delivery with its attempts.
 */
import * as z from 'zod';
import {
  type BatchItem,
  type BatchRecord,
  batchStates,
  type DeliveryAttempt,
  deliveryStates,
  type IdempotencyClaim,
  type ItemResult,
  type WebhookDelivery,
  webhookEventTypes,
} from '../../batches/batch-store.js';
import { count, epochMs, nullable, recordCodec } from './stored-record.js';

/** An `Idempotency-Key` as stored: whose, what body it came with, and the batch it made. */
export interface StoredIdempotencyKey extends IdempotencyClaim {
  accountId: string;
  batchId: string;
}

const outcomes = ['succeeded', 'failed', 'invalid'] as const;

const itemResult = (): z.ZodType<ItemResult> =>
  z.object({
    status: count(),
    body: z.unknown(),
    requestId: z.string(),
    creditCost: count(),
    creditsRefunded: count(),
  });

export const batchRecord = recordCodec<BatchRecord>('batch', () =>
  z.object({
    batchId: z.string().min(1),
    accountId: z.string(),
    holderId: z.string(),
    operation: z.string(),
    state: z.enum(batchStates),
    pauseReason: nullable(z.enum(['insufficient_credits', 'spend_cap'])),
    itemCount: count().nonnegative(),
    nextIndex: count().nonnegative(),
    counts: z.object({
      succeeded: count().nonnegative(),
      failed: count().nonnegative(),
      invalid: count().nonnegative(),
    }),
    creditsCharged: count(),
    creditsRefunded: count(),
    webhookUrl: nullable(z.string()),
    webhookSecret: nullable(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: nullable(z.string()),
  }),
);

export const batchItemRecord = recordCodec<BatchItem>('batch item', () =>
  z.object({
    batchId: z.string().min(1),
    index: count().nonnegative(),
    input: z.record(z.string(), z.unknown()),
    state: z.enum(['pending', 'running', 'done']),
    attempt: count().nonnegative(),
    leaseUntil: nullable(epochMs()),
    outcome: nullable(z.enum(outcomes)),
    result: nullable(itemResult()),
  }),
);

export const idempotencyKeyRecord = recordCodec<StoredIdempotencyKey>('batch idempotency key', () =>
  z.object({
    accountId: z.string(),
    key: z.string().min(1),
    requestHash: z.string(),
    batchId: z.string().min(1),
    expiresAt: epochMs(),
  }),
);

const deliveryAttempt = (): z.ZodType<DeliveryAttempt> =>
  z.object({
    at: z.string(),
    status: nullable(count()),
    error: nullable(z.string()),
    durationMs: z.number().nonnegative(),
  });

export const webhookDeliveryRecord = recordCodec<WebhookDelivery>('webhook delivery', () =>
  z.object({
    deliveryId: z.string().min(1),
    batchId: z.string().min(1),
    accountId: z.string(),
    type: z.enum(webhookEventTypes),
    payload: z.string(),
    state: z.enum(deliveryStates),
    attempts: z.array(deliveryAttempt()),
    nextAttemptAt: nullable(epochMs()),
    createdAt: z.string(),
  }),
);
