/**
 * Run functions of the email family.
 */
import type { disposableCheck } from '../../schemas/operations/emails.js';
import { type DisposableDomains, packagedDisposableDomains } from '../emails/disposable-domains.js';
import type { RunnerMap, RunnerRuntime } from '../pipeline/operation.js';

export interface EmailDependencies {
  disposableDomains: DisposableDomains;
}

export function createRunners(
  _runtime: RunnerRuntime,
  deps: EmailDependencies = { disposableDomains: packagedDisposableDomains },
): RunnerMap<typeof disposableCheck> {
  return {
    'emails.disposable': async ({ email }) => ({
      data: { domain: email.domain, isDisposable: deps.disposableDomains.has(email.domain) },
    }),
  };
}
