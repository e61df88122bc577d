/**
 * An OAuth link: the account an OAuth subject acts for.
 */
import * as z from 'zod';
import { recordCodec } from './stored-record.js';

export interface OAuthLinkRecord {
  subject: string;
  accountId: string;
}

export const oauthLinkRecord = recordCodec<OAuthLinkRecord>('OAuth link', () =>
  z.object({ subject: z.string(), accountId: z.string() }),
);
