/**
 * The OAuth authorization server's records (oauth/oauth-store.ts): oidc-provider's payloads, kept
 * opaque (the library checks their contents), and the connections customers approved.
 */
import * as z from 'zod';
import { families } from '../../../schemas/operation-definition.js';
import type { ConnectionRecord, OAuthStateRecord } from '../../oauth/oauth-store.js';
import { count, epochMs, nullable, recordCodec } from './stored-record.js';

export const oauthStateRecord = recordCodec<OAuthStateRecord>('OAuth state', () =>
  z.object({
    payload: z.record(z.string(), z.unknown()),
    expiresAt: epochMs(),
    consumedAt: epochMs().optional(),
  }),
);

export const connectionRecord = recordCodec<ConnectionRecord>('OAuth connection', () =>
  z.object({
    connectionId: z.string().min(1),
    accountId: z.string(),
    clientId: z.string().min(1),
    clientName: nullable(z.string()),
    scopes: z.array(z.enum(families)),
    dailyCreditCap: nullable(count().positive()),
    createdAt: z.string(),
    lastUsedAt: nullable(z.string()),
    revokedAt: nullable(z.string()),
    revokedReason: nullable(z.enum(['customer', 'token_reused', 'client', 'operator'])),
  }),
);
