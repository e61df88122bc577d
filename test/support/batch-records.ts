/**
 * Batch records as a caller builds them before `BatchStore.create` (nothing counted yet), for the
 * store tests: a fresh id each time, and the fields a test cares about as overrides.
 */
import { randomUUID } from 'node:crypto';
import type { BatchRecord } from '../../shared/batches/batch-store.js';

export const newBatchId = () => `bat_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/** `at`: the creation time of the record (and its last update). */
export function batchRecord(at: string, overrides: Partial<BatchRecord> = {}): BatchRecord {
  return {
    batchId: newBatchId(),
    accountId: 'acct_1',
    holderId: 'key_1',
    operation: 'profiles.lookup',
    state: 'queued',
    pauseReason: null,
    itemCount: 0,
    nextIndex: 0,
    counts: { succeeded: 0, failed: 0, invalid: 0 },
    creditsCharged: 0,
    creditsRefunded: 0,
    webhookUrl: null,
    webhookSecret: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    ...overrides,
  };
}
