/**
 * Bulk lookups' records (batches/batch-store.ts): a batch, one of its items (with its result once
 * run), and a create's idempotency key as stored (the claim and the batch it made, per account).
 */
import { z } from 'zod';
import {
  type BatchItem,
  type BatchRecord,
  batchStates,
  type IdempotencyClaim,
  type ItemResult,
} from '../../batches/batch-store.js';
import { count, epochMs, nullable, recordCodec } from './stored-record.js';

/** An `Idempotency-Key` as stored: whose, what body it came with, and the batch it made. */
export interface StoredIdempotencyKey extends IdempotencyClaim {
  accountId: string;
  batchId: string;
}

const outcomes = ['succeeded', 'failed', 'invalid'] as const;

const itemResult: z.ZodType<ItemResult> = z.object({
  status: count(),
  body: z.unknown(),
  requestId: z.string(),
  creditCost: count(),
  creditsRefunded: count(),
});

export const batchRecord = recordCodec<BatchRecord>(
  'batch',
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
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: nullable(z.string()),
  }),
);

export const batchItemRecord = recordCodec<BatchItem>(
  'batch item',
  z.object({
    batchId: z.string().min(1),
    index: count().nonnegative(),
    input: z.record(z.string(), z.unknown()),
    state: z.enum(['pending', 'running', 'done']),
    attempt: count().nonnegative(),
    leaseUntil: nullable(epochMs()),
    outcome: nullable(z.enum(outcomes)),
    result: nullable(itemResult),
  }),
);

export const idempotencyKeyRecord = recordCodec<StoredIdempotencyKey>(
  'batch idempotency key',
  z.object({
    accountId: z.string(),
    key: z.string().min(1),
    requestHash: z.string(),
    batchId: z.string().min(1),
    expiresAt: epochMs(),
  }),
);
