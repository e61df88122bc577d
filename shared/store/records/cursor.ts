/**
 * A cursor record: where an activity stream stopped, bound to its operation, account and subject.
 */
import * as z from 'zod';
import type { CursorRecord } from '../../paging/cursors.js';
import { epochMs, recordCodec } from './stored-record.js';

export const cursorRecord = recordCodec<CursorRecord>('cursor', () =>
  z.object({
    id: z.string(),
    operation: z.string(),
    accountId: z.string(),
    subject: z.string(),
    position: z.string(),
    issuedAt: epochMs(),
    expiresAt: epochMs(),
  }),
);
