/**
 * Usage ledger records: a billed request in flight (admitted, not settled), and a ledger entry
 * (pending, charged or refunded; free calls are recorded charged at no cost). Either may name the
 * batch item it ran for.
 */
import * as z from 'zod';
import {
  type InflightEntry,
  type LedgerEntry,
  ledgerStatuses,
  transports,
} from '../../billing/billing-store.js';
import { count, recordCodec } from './stored-record.js';

const inflightFields = () => ({
  requestId: z.string(),
  accountId: z.string(),
  operation: z.string(),
  cost: count(),
  // Absent on entries written before transports and callers were recorded.
  transport: z.enum(transports).optional(),
  keyId: z.string().optional(),
  // Only on calls run for an item of a batch.
  batchItem: z.object({ batchId: z.string(), index: count() }).optional(),
  createdAt: z.string(),
});

/**
 * The `batchItem` field of an entry whose store keeps the batch id and the item index as two
 * values: absent when neither is stored (a single call); one without the other fails the decode.
 */
export function batchItemFields(batchId: unknown, index: unknown) {
  return batchId == null && index == null ? undefined : { batchId, index };
}

export const inflightEntryRecord = recordCodec<InflightEntry>('in-flight entry', () =>
  z.object({ ...inflightFields(), capped: z.boolean().optional() }),
);

export const ledgerEntryRecord = recordCodec<LedgerEntry>('ledger entry', () =>
  z.object({
    ...inflightFields(),
    status: z.enum(ledgerStatuses),
    httpStatus: count().optional(),
    refundReason: z.string().optional(),
    settledAt: z.string().optional(),
  }),
);
