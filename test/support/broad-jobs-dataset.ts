/**
 * A dataset whose broad job searches are expensive, built in a few seconds: the generated sample plus
 * `extraJobs` openings cloned from one of its engineering jobs. Job search filters
 * (/api/v2/jobs/search/filters) count every match of the keywords over four fields, so with
 * BROAD_JOB_KEYWORD each such request costs SQLite time in proportion to the matches (tens of ms at
 * 10,000, as a broad full-text search costs at 100k–1M generated profiles), while building it takes
 * seconds, not the minutes a generated dataset of that cost does. Deterministic, like the sample.
 */
import { buildDatabaseFromDataset } from '../../shared/sources/dataset/database/build-database.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';

/** Every cloned job's title holds this word (so does the title of a few of the sample's own). */
export const BROAD_JOB_KEYWORD = 'engineer';

/** Builds the dataset database at `path`: the broad keyword matches at least `extraJobs` jobs. */
export function buildBroadJobsDataset(path: string, extraJobs: number): void {
  const dataset = generateDataset();
  const model = dataset.jobs.find((job) => job.title.toLowerCase().includes(BROAD_JOB_KEYWORD));
  if (!model) throw new Error(`The sample has no job whose title holds "${BROAD_JOB_KEYWORD}".`);
  for (let i = 0; i < extraJobs; i += 1) {
    const jobId = String(8_000_000_000 + i);
    dataset.jobs.push({
      ...model,
      internalId: `job-broad-${i}`,
      jobId,
      url: `https://www.linkedin.com/jobs/view/${jobId}/`,
    });
  }
  buildDatabaseFromDataset(dataset, path, `the sample with ${extraJobs} more "${model.title}" jobs`);
}
