/**
 * What email checks learned: facts about a domain, and mail hosts to speak to in lock-step.
 */
import * as z from 'zod';
import type { LearnedFacts, LockStepHost } from '../../emails/domain-memory.js';
import { epochMs, nullable, recordCodec } from './stored-record.js';

export const learnedFactsRecord = recordCodec<LearnedFacts>('email-domain facts', () =>
  z.object({
    catchAll: z.boolean(),
    mx: nullable(z.string()),
    pattern: nullable(z.string()),
    // Absent from records written before probes were remembered.
    probe: nullable(z.string()),
    learnedAt: epochMs(),
    expiresAt: epochMs(),
  }),
);

export const lockStepHostRecord = recordCodec<LockStepHost>('lock-step host', () =>
  z.object({ learnedAt: epochMs(), expiresAt: epochMs() }),
);
