/**
 * The generated sample as a dataset database: built into dist/dataset/ on first use (or by
 * `npm run build`) and reused while the generator gives the same sample. The file name carries a
 * fingerprint of the records and of the database's tables, so a changed generator or schema builds
 * a fresh file instead of serving a stale one. Lambda bundles replace this module with
 * functions/lambda/no-sample-database.ts (scripts/build-functions.ts): a function names its database
 * in DATASET and never carries the generator.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildDatabaseFromDataset } from './database/build-database.js';
import { schemaFingerprint } from './database/schema.js';
import { generateDataset } from './generate.js';

/** Where the generated sample's database is kept. */
export const SAMPLE_DIRECTORY = join('dist', 'dataset');

/** Builds the sample's database unless a current one exists; answers its path. */
export function ensureSampleDatabase(directory = SAMPLE_DIRECTORY): string {
  const dataset = generateDataset();
  const fingerprint = createHash('sha256')
    .update(`${schemaFingerprint}\n${JSON.stringify(dataset)}`)
    .digest('hex')
    .slice(0, 16);
  const path = resolve(directory, `sample-${fingerprint}.sqlite`);
  if (!existsSync(path)) {
    mkdirSync(directory, { recursive: true });
    buildDatabaseFromDataset(dataset, path, 'generated sample');
  }
  return path;
}
