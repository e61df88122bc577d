/**
 * Every family's run functions, for processes that serve every operation (the local server, tests).
 * A Lambda bundle imports only its own family's module (see scripts/build-functions.ts): each family
 * module exports `createRunners(runtime)`.
 */
import type { Runner, RunnerRuntime } from '../pipeline/operation.js';
import type { DataSource } from '../sources/data-source.js';
import * as companies from './companies.js';
import { defaultDataDependencies } from './data-runtime.js';
import * as emails from './emails.js';
import * as jobs from './jobs.js';
import * as posts from './posts.js';
import * as profiles from './profiles.js';
import * as search from './search.js';
import * as websites from './websites.js';

/** `source` replaces the data source the settings choose (tests compare sources through the app). */
export function createAllRunners(runtime: RunnerRuntime, source?: DataSource): Record<string, Runner<never>> {
  const data = defaultDataDependencies(runtime, source);
  return {
    ...profiles.createRunners(runtime, data),
    ...companies.createRunners(runtime, data),
    ...posts.createRunners(runtime, data),
    ...search.createRunners(runtime, data),
    ...jobs.createRunners(runtime, data),
    ...emails.createRunners(runtime),
    ...websites.createRunners(runtime),
  };
}
