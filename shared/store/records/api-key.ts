/**
 * The API key record, found by the key's hash on every request (the key itself is never stored).
 */
import * as z from 'zod';
import { families } from '../../../schemas/operation-definition.js';
import type { ApiKeyRecord } from '../../auth/api-keys.js';
import { count, nullable, recordCodec } from './stored-record.js';

export const apiKeyRecord = recordCodec<ApiKeyRecord>('API key', () =>
  z.object({
    keyId: z.string(),
    accountId: z.string(),
    keyHash: z.string(),
    preview: z.string(),
    label: nullable(z.string()),
    scopes: nullable(z.array(z.enum(families))),
    createdAt: z.string(),
    expiresAt: nullable(z.string()),
    revokedAt: nullable(z.string()),
    lastUsedAt: nullable(z.string()),
    // Absent on keys issued before spend caps existed: no cap.
    dailyCreditCap: nullable(count().positive()),
    monthlyCreditCap: nullable(count().positive()),
  }),
);
