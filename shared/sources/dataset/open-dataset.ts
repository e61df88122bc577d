/**
 * Which dataset database the server reads: `DATASET` when set (built by `npm run data -- import`),
 * otherwise the generated sample (sample-database.ts). One source per file per process: in-thread by
 * default (Lambda, one request per environment, and the tests' in-process apps), or on reader threads
 * once the process asks for them (`npm start`, reader-pool.ts), so a broad search never holds up
 * unrelated requests; reads of one record by its key stay in-thread even then (point-reads.ts).
 */
import { resolve } from 'node:path';
import type { DataSource } from '../data-source.js';
import { DatabaseDatasetReader } from './database/database-reader.js';
import { DatasetSource } from './dataset-source.js';
import { withPointReadsInThread } from './point-reads.js';
import { defaultReaderThreads, pooledDataSource, ReaderPool } from './reader-pool.js';
import { ensureSampleDatabase } from './sample-database.js';

const sources = new Map<string, DataSource>();
/** Reader threads per dataset for sources opened from now on; 0: read in-thread. */
let readerThreads = 0;

/** Datasets this process opens from now on are read on `threads` reader threads. */
export function readDatasetsOnThreads(threads = defaultReaderThreads()): void {
  readerThreads = threads;
}

/** The dataset source over `file`, or over the sample when no file is named. */
export function datasetSource(file: string | undefined): DataSource {
  const key = file ? resolve(file) : '';
  let source = sources.get(key);
  if (!source) {
    source = openSource(file ? key : ensureSampleDatabase());
    sources.set(key, source);
  }
  return source;
}

function openSource(path: string): DataSource {
  // Opened here either way, so a file that is not a dataset database fails at start-up
  // (DatasetFileError), not at the first lookup.
  const inThread = new DatasetSource(new DatabaseDatasetReader(path));
  if (readerThreads === 0) return inThread;
  return withPointReadsInThread(inThread, pooledDataSource(new ReaderPool(path, { threads: readerThreads })));
}
