/**
 * An entry of an account's audit log: a change that is not a change of its credits.
 */
import * as z from 'zod';
import { type AuditEntry, auditActions } from '../../accounts/accounts.js';
import { accountSettingFields } from './account.js';
import { recordCodec } from './stored-record.js';

export const auditEntryFields = () => {
  const settings = z.object(accountSettingFields()).partial();
  return z.object({
    auditId: z.string(),
    accountId: z.string(),
    action: z.enum(auditActions),
    actor: z.string(),
    reason: z.string().optional(),
    details: z.object({
      from: settings.optional(),
      to: settings.optional(),
      keyId: z.string().optional(),
      subject: z.string().optional(),
      connectionId: z.string().optional(),
    }),
    createdAt: z.string(),
  });
};

export const auditEntryRecord = recordCodec<AuditEntry>('audit entry', auditEntryFields);
