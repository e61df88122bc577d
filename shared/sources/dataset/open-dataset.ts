/**
 * Which dataset database the server reads: `DATASET` when set (built by `npm run data -- import`),
 * otherwise the generated sample (sample-database.ts). One reader per file per process.
 */
import { resolve } from 'node:path';
import { DatabaseDatasetReader } from './database/database-reader.js';
import { DatasetSource } from './dataset-source.js';
import { ensureSampleDatabase } from './sample-database.js';

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
