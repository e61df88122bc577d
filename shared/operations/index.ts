/**
 * Every family's run functions, for processes that serve every operation (the local server, tests).
 * A Lambda bundle imports only its own family's module, `shared/operations/<family>.ts` (see
 * scripts/build-functions.ts): `familyModules` makes tsc check that every family of the catalog has
 * one, exporting its catalog entries (`operations`) and `createImplementations`.
 */
import type { Family, OperationDefinition } from '../../schemas/operation-definition.js';
import type { OperationImplementation, RunnerRuntime } from '../pipeline/operation.js';
import type { DataSource } from '../sources/data-source.js';
import * as account from './account.js';
import * as companies from './companies.js';
import { type DataDependencies, defaultDataDependencies } from './data-runtime.js';
import * as emails from './emails.js';
import * as jobs from './jobs.js';
import * as posts from './posts.js';
import * as profiles from './profiles.js';
import * as search from './search.js';
import * as websites from './websites.js';

/** What each family's module exports; data families share one data source and cursor store. */
export interface FamilyModule {
  /** The family's catalog entries (what its function serves). */
  operations: readonly OperationDefinition[];
  createImplementations(runtime: RunnerRuntime, data: DataDependencies): OperationImplementation[];
}

export const familyModules = {
  profiles,
  companies,
  posts,
  search,
  jobs,
  emails: {
    operations: emails.operations,
    createImplementations: (runtime) => emails.createImplementations(runtime),
  },
  websites: {
    operations: websites.operations,
    createImplementations: (runtime) => websites.createImplementations(runtime),
  },
  account: {
    operations: account.operations,
    createImplementations: (runtime) => account.createImplementations(runtime),
  },
} satisfies Record<Family, FamilyModule>;

/** `source` replaces the data source the settings choose (tests compare sources through the app). */
export function createAllImplementations(
  runtime: RunnerRuntime,
  source?: DataSource,
): OperationImplementation[] {
  const data = defaultDataDependencies(runtime, source);
  return Object.values(familyModules).flatMap((module: FamilyModule) =>
    module.createImplementations(runtime, data),
  );
}
