/**
 * Every family's run functions, for processes that serve every operation (the local server, tests).
 * A Lambda bundle imports only its own family's module, `shared/operations/<family>.ts`, or its
 * operation's, `shared/operations/<function name>.ts`, for the operations that have one
 * (`implementationModulesOf`, used by scripts/build-functions.ts): `familyModules` and
 * `operationModules` make tsc check that each exists, exporting its catalog entries (`operations`)
 * and `createImplementations`.
 */
import type { OPERATIONS_WITH_OWN_MODULE } from '../../schemas/function-conventions.js';
import type { Family, OperationDefinition } from '../../schemas/operation-definition.js';
import type { OperationImplementation, RunnerRuntime } from '../pipeline/operation.js';
import type { DataSource } from '../sources/data-source.js';
import * as account from './account.js';
import * as companies from './companies.js';
import { type DataDependencies, defaultDataDependencies } from './data-runtime.js';
import * as emailsDisposable from './emails-disposable.js';
import * as emailsFind from './emails-find.js';
import * as emailsVerify from './emails-verify.js';
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

/** An operation's own module: its catalog entry and its run function, made from the runtime alone. */
export interface OperationModule {
  operations: readonly OperationDefinition[];
  createImplementations(runtime: RunnerRuntime): OperationImplementation[];
}

export const operationModules = {
  'emails.disposable': emailsDisposable,
  'emails.verify': emailsVerify,
  'emails.find': emailsFind,
} satisfies Record<(typeof OPERATIONS_WITH_OWN_MODULE)[number], OperationModule>;

/** A family whose operations each have their own module, as one family module. */
function ownModulesOf(family: Family): FamilyModule {
  const modules = Object.values<OperationModule>(operationModules).filter((module) =>
    module.operations.every((operation) => operation.family === family),
  );
  return {
    operations: modules.flatMap((module) => module.operations),
    createImplementations: (runtime) => modules.flatMap((module) => module.createImplementations(runtime)),
  };
}

export const familyModules = {
  profiles,
  companies,
  posts,
  search,
  jobs,
  emails: ownModulesOf('emails'),
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
