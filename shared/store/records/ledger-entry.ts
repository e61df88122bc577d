/**
 * Usage ledger records: a billed request in flight (admitted, not settled), and a ledger entry
 * (pending, charged or refunded; free calls are recorded charged at no cost).
 */
import { z } from 'zod';
import {
  type InflightEntry,
  type LedgerEntry,
  ledgerStatuses,
  transports,
} from '../../billing/billing-store.js';
import { count, recordCodec } from './stored-record.js';

const inflightFields = {
  requestId: z.string(),
  accountId: z.string(),
  operation: z.string(),
  cost: count(),
  // Absent on entries written before transports and callers were recorded.
  transport: z.enum(transports).optional(),
  keyId: z.string().optional(),
  createdAt: z.string(),
};

export const inflightEntryRecord = recordCodec<InflightEntry>(
  'in-flight entry',
  z.object({ ...inflightFields, capped: z.boolean().optional() }),
);

export const ledgerEntryRecord = recordCodec<LedgerEntry>(
  'ledger entry',
  z.object({
    ...inflightFields,
    status: z.enum(ledgerStatuses),
    httpStatus: count().optional(),
    refundReason: z.string().optional(),
    settledAt: z.string().optional(),
  }),
);
