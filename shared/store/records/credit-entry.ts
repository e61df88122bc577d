/**
 * A credit entry: credits an operator granted or adjusted, the other side of the ledger.
 */
import * as z from 'zod';
import { type CreditEntry, creditKinds } from '../../billing/billing-store.js';
import { count, recordCodec } from './stored-record.js';

export const creditEntryFields = () =>
  z.object({
    entryId: z.string(),
    accountId: z.string(),
    kind: z.enum(creditKinds),
    amount: count(),
    // Absent when a crash left only DynamoDB's note of the entry.
    balance: count().optional(),
    actor: z.string(),
    reason: z.string().optional(),
    createdAt: z.string(),
  });

export const creditEntryRecord = recordCodec<CreditEntry>('credit entry', creditEntryFields);
