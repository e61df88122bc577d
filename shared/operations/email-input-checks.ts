/**
 * The email operations' own input checks, beyond their schemas (before admission: they cost nothing).
 * A module apart from their run functions: the functions that only check batch items (batches,
 * reconcile) load the name spelling and nothing of SMTP.
 */
import type { emailFind } from '../../schemas/operations/emails.js';
import { addressableName } from '../emails/candidates.js';
import type { InputChecks } from '../pipeline/operation.js';

export const emailInputChecks: InputChecks<typeof emailFind> = {
  'emails.find': (input) => void addressableName(input),
};
