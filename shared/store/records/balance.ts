/**
 * An account's balance and its rate window, kept together (one row, one item) because one atomic
 * step of admission changes both. The window is the current fixed window and the count of the one
 * before it (limits/rolling-window.ts); an account never admitted has no window yet.
 */
import * as z from 'zod';
import { count, epochMs, recordCodec } from './stored-record.js';

export interface BalanceRecord {
  accountId: string;
  balance: number;
  /** Every credit ever granted, net of adjustments. */
  granted: number;
  /** Start of the current fixed window (ms since the epoch); absent before the first admission. */
  windowStart?: number;
  windowCount: number;
  previousCount: number;
}

/** The fields, for adapters that read back only some of them after a write. */
export const balanceFields = () =>
  z.object({
    accountId: z.string(),
    balance: count(),
    granted: count(),
    windowStart: epochMs().optional(),
    windowCount: count().default(0),
    previousCount: count().default(0),
  });

export const balanceRecord = recordCodec<BalanceRecord>('balance', balanceFields);
