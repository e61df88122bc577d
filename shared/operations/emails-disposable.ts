/**
 * Run function of the free disposable check: membership in the packaged disposable-domain list. A
 * module of its own (schemas/function-conventions.ts, OPERATIONS_WITH_OWN_MODULE), so the check's
 * functions load nothing of SMTP.
 */
import { disposableCheck } from '../../schemas/operations/emails.js';
import { type DisposableDomains, packagedDisposableDomains } from '../emails/disposable-domains.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';

/** The catalog entries this module runs: a function of this operation serves only these. */
export const operations = [disposableCheck] as const;

export function createImplementations(
  _runtime: RunnerRuntime,
  disposableDomains: DisposableDomains = packagedDisposableDomains,
): OperationImplementation[] {
  return implement(operations, {
    'emails.disposable': async ({ email }) => ({
      data: { domain: email.domain, isDisposable: disposableDomains.has(email.domain) },
    }),
  });
}
