/**
 * Run function of email find over SMTP: candidates from the name, checked at the domain's mail host.
 * A module of its own (schemas/function-conventions.ts, OPERATIONS_WITH_OWN_MODULE), as verify's is.
 * Find's own code and the transliteration tables it spells names with load at the first find: the
 * SMTP tool group's function, which also verifies, need not load them to verify.
 */
import { emailFind } from '../../schemas/operations/emails.js';
import type { EmailCheckDependencies } from '../emails/verify-email.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';
import { emailInputChecks } from './email-input-checks.js';
import { counted, defaultEmailDependencies } from './smtp-runtime.js';

/** The catalog entries this module runs: a function of this operation serves only these. */
export const operations = [emailFind] as const;

export function createImplementations(
  runtime: RunnerRuntime,
  checks: EmailCheckDependencies = defaultEmailDependencies(runtime),
): OperationImplementation[] {
  return implement(
    operations,
    {
      'emails.find': async (input, { signal }) => {
        const { findEmail } = await import('../emails/find-email.js');
        return { data: counted(runtime, 'emails.find', await findEmail(checks, input, signal)) };
      },
    },
    emailInputChecks,
  );
}
