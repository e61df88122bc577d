/**
 * Which dataset database the server reads: `DATASET` when set (built by `npm run data -- import`),
 * otherwise the generated sample, built into dist/dataset/ on first use (or by `npm run build`) and
 * reused while the generator gives the same sample. The sample's file name carries a fingerprint of
 * its records and of the database's tables, so a changed generator or schema builds a fresh file
 * instead of serving a stale one. One reader per file per process.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildDatabaseFromDataset } from './database/build-database.js';
import { DatabaseDatasetReader } from './database/database-reader.js';
import { schemaFingerprint } from './database/schema.js';
import { DatasetSource } from './dataset-source.js';
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

const sources = new Map<string, DatasetSource>();

/** The dataset source over `file`, or over the sample when no file is named. */
export function datasetSource(file: string | undefined): DatasetSource {
  const key = file ? resolve(file) : '';
  let source = sources.get(key);
  if (!source) {
    source = new DatasetSource(new DatabaseDatasetReader(file ? key : ensureSampleDatabase()));
    sources.set(key, source);
  }
  return source;
}
