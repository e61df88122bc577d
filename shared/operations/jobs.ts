/**
 * Run functions of the job family.
 */
import { jobOperations } from '../../schemas/operations/jobs.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';
import { type DataDependencies, defaultDataDependencies } from './data-runtime.js';

/** The catalog entries this module runs: a function of this family serves only these. */
export { jobOperations as operations };

export function createImplementations(
  runtime: RunnerRuntime,
  { source }: Pick<DataDependencies, 'source'> = defaultDataDependencies(runtime),
): OperationImplementation[] {
  return implement(jobOperations, {
    'jobs.search': async ({ keywords }, { signal }) => ({
      data: { jobs: await source.searchJobs(keywords, signal) },
    }),
    'jobs.details': async ({ url }, { signal }) => ({ data: await source.job(url, signal) }),
    'jobs.search-filters': async ({ keywords }, { signal }) => ({
      data: await source.jobSearchFacets(keywords, signal),
    }),
  });
}
