/**
 * Stands in for shared/sources/dataset/sample-database.ts in every Lambda bundle (an esbuild
 * plugin in scripts/build-functions.ts swaps it): /var/task is read-only and a cold start must not
 * generate anything, so a function names its database in DATASET. Keeping the generator, its name
 * tables and the database builder out of the bundles also takes ~250 KiB off each data function.
 */
import { ConfigError } from '../../shared/config.js';

export const DATASET_REQUIRED_ON_LAMBDA =
  'Invalid configuration: DATASET: is required on AWS Lambda when DATA_SOURCE=dataset ' +
  '(the bundled sample is /var/task/dataset.sqlite; an imported database is copied to /tmp or EFS)';

export function ensureSampleDatabase(): string {
  throw new ConfigError(DATASET_REQUIRED_ON_LAMBDA);
}
