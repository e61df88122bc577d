/**
 * Every family's run functions, for processes that serve every operation (the local server, tests).
 * A Lambda bundle imports only its own family's module (see scripts/build-functions.ts): each family
 * module exports `createRunners(runtime)`.
 */
import type { Runner, RunnerRuntime } from '../pipeline/operation.js';
import * as companies from './companies.js';
import * as emails from './emails.js';
import * as jobs from './jobs.js';
import * as posts from './posts.js';
import * as profiles from './profiles.js';
import * as search from './search.js';
import * as websites from './websites.js';

export function createAllRunners(runtime: RunnerRuntime): Record<string, Runner<never>> {
  return {
    ...profiles.createRunners(runtime),
    ...companies.createRunners(runtime),
    ...posts.createRunners(runtime),
    ...search.createRunners(runtime),
    ...jobs.createRunners(runtime),
    ...emails.createRunners(runtime),
    ...websites.createRunners(runtime),
  };
}
