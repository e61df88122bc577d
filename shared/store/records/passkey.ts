/**
 * A passkey and a pending WebAuthn challenge (auth/passkeys.ts).
 */
import * as z from 'zod';
import type { PasskeyChallenge, PasskeyRecord } from '../../auth/passkeys.js';
import { epochMs, nullable, recordCodec } from './stored-record.js';

export const passkeyRecord = recordCodec<PasskeyRecord>('passkey', () =>
  z.object({
    credentialId: z.string().min(1),
    accountId: z.string(),
    publicKey: z.string().min(1),
    counter: z.number().int().nonnegative(),
    transports: z.array(z.string()).default([]),
    label: nullable(z.string()),
    createdAt: z.string(),
    lastUsedAt: nullable(z.string()),
  }),
);

export const passkeyChallengeRecord = recordCodec<PasskeyChallenge>('passkey challenge', () =>
  z.object({
    id: z.string(),
    challenge: z.string(),
    purpose: z.enum(['register', 'sign-in']),
    accountId: z.string().optional(),
    expiresAt: epochMs(),
  }),
);
