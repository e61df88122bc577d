/**
 * Every family's run functions, for processes that serve every operation (the local server, tests).
 * A Lambda bundle imports only its own family's module (see scripts/build-functions.ts).
 */
import type { Runner } from '../pipeline/operation.js';
import * as emails from './emails.js';

export interface RunnerDependencies {
  emails?: emails.EmailDependencies;
}

/** Module of each family's run functions; the build derives Lambda entries from the same names. */
export const familyModules = { emails } as const;

export function createAllRunners(deps: RunnerDependencies = {}): Record<string, Runner<never>> {
  return { ...emails.createRunners(deps.emails) };
}
