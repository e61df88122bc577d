/**
 * The email operations' own input checks, beyond their schemas (before admission: they cost nothing).
 * A module apart from their run functions: the functions that only check batch items (batches,
 * reconcile) load the name spelling and nothing of SMTP. The spelling's transliteration tables
 * (190 KB, 35–60 ms to load) load at the first find checked, not at a function's start.
 */
import type { emailFind } from '../../schemas/operations/emails.js';
import type { InputChecks } from '../pipeline/operation.js';

export const emailInputChecks: InputChecks<typeof emailFind> = {
  'emails.find': async (input) => {
    const { addressableName } = await import('../emails/candidates.js');
    addressableName(input);
  },
};
