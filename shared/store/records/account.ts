/**
 * The account record: its name, status and rate limit (the balance is billing's: balance.ts).
 */
import * as z from 'zod';
import { type Account, accountStatuses } from '../../accounts/accounts.js';
import { count, recordCodec } from './stored-record.js';

/** The settings an operator may change, also recorded (partly) in audit entries' details. */
export const accountSettingFields = () => ({
  name: z.string(),
  status: z.enum(accountStatuses),
  rateLimit: z.object({ limit: count(), windowSeconds: count() }),
});

export const accountRecord = recordCodec<Account>('account', () =>
  z.object({ accountId: z.string(), ...accountSettingFields(), createdAt: z.string() }),
);
