/**
 * A console session: the hash of the browser's session id, its account, how it was signed in and until when.
 */
import * as z from 'zod';
import { type ConsoleSessionRecord, signInMethods } from '../../console/console-sessions.js';
import { epochMs, recordCodec } from './stored-record.js';

export const consoleSessionRecord = recordCodec<ConsoleSessionRecord>('console session', () =>
  z.object({
    idHash: z.string(),
    accountId: z.string(),
    method: z.enum(signInMethods),
    credential: z.string(),
    createdAt: epochMs(),
    expiresAt: epochMs(),
  }),
);
