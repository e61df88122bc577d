/**
 * Run function of mailbox verification over SMTP. A module of its own (schemas/function-conventions.ts,
 * OPERATIONS_WITH_OWN_MODULE): its functions load none of email find's name spelling.
 */
import { emailVerify } from '../../schemas/operations/emails.js';
import { type EmailCheckDependencies, verifyEmail } from '../emails/verify-email.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';
import { counted, defaultEmailDependencies } from './smtp-runtime.js';

/** The catalog entries this module runs: a function of this operation serves only these. */
export const operations = [emailVerify] as const;

export function createImplementations(
  runtime: RunnerRuntime,
  checks: EmailCheckDependencies = defaultEmailDependencies(runtime),
): OperationImplementation[] {
  return implement(operations, {
    'emails.verify': async ({ email }, { signal }) => ({
      data: counted(runtime, 'emails.verify', await verifyEmail(checks, email, signal)),
    }),
  });
}
