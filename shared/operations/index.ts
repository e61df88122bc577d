/**
 * Every family's run functions, for processes that serve every operation (the local server, tests).
 * A Lambda bundle imports only its own family's module, `shared/operations/<family>.ts`, or its
 * group's, `shared/operations/<group>.ts`, for the groups that have one (`implementationModulesOf`,
 * used by scripts/build-functions.ts): `familyModules` and `groupModules` make tsc check that each
 * exists, exporting its catalog entries (`operations`) and `createImplementations`.
 */
import type { GROUPS_WITH_OWN_MODULE } from '../../schemas/function-conventions.js';
import type { Family, OperationDefinition } from '../../schemas/operation-definition.js';
import type { OperationImplementation, RunnerRuntime } from '../pipeline/operation.js';
import type { DataSource } from '../sources/data-source.js';
import * as account from './account.js';
import * as companies from './companies.js';
import { type DataDependencies, defaultDataDependencies } from './data-runtime.js';
import * as emailsDisposable from './emails-disposable.js';
import * as emailsSmtp from './emails-smtp.js';
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

export const groupModules = {
  'emails-disposable': {
    operations: emailsDisposable.operations,
    createImplementations: (runtime) => emailsDisposable.createImplementations(runtime),
  },
  'emails-smtp': {
    operations: emailsSmtp.operations,
    createImplementations: (runtime) => emailsSmtp.createImplementations(runtime),
  },
} satisfies Record<(typeof GROUPS_WITH_OWN_MODULE)[number], FamilyModule>;

export const familyModules = {
  profiles,
  companies,
  posts,
  search,
  jobs,
  emails: {
    operations: [...emailsDisposable.operations, ...emailsSmtp.operations],
    createImplementations: (runtime) => [
      ...emailsDisposable.createImplementations(runtime),
      ...emailsSmtp.createImplementations(runtime),
    ],
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
