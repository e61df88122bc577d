/**
 * `npm run data -- import DIR --out FILE`: reads a dataset directory (docs/dataset-format.md) file by
 * file, validates every line, and streams the good records into a new dataset database that replaces
 * FILE only once complete (build-database.ts). A bad line — JSON that does not parse, a record that
 * fails its schema, an identifier already taken — is reported with its file and line number and
 * skipped; every other line is kept. The caller hears of progress and problems through `events`.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DatasetFileName, datasetFiles } from '../../../../schemas/dataset-format.js';
import { readDatasetLines, readManifest } from '../dataset-files.js';
import { DatasetDatabaseBuilder, DuplicateRecordError, type RecordKind } from './build-database.js';

export interface BadLine {
  file: DatasetFileName;
  line: number;
  problem: string;
}

export interface FileSummary {
  file: DatasetFileName;
  imported: number;
  skipped: number;
}

export interface ImportSummary {
  out: string;
  files: FileSummary[];
  imported: number;
  skipped: number;
  seconds: number;
}

export interface ImportEvents {
  /** A file is about to be read; `bytes` is its size (0 when absent). */
  fileStarted(file: DatasetFileName, bytes: number): void;
  /** Lines read so far in the current file and the bytes they span. */
  progress(file: DatasetFileName, lines: number, bytes: number): void;
  badLine(bad: BadLine): void;
  fileDone(summary: FileSummary): void;
}

/** How often (lines) progress is reported. */
const PROGRESS_EVERY = 5_000;

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

export async function importDataset(dir: string, out: string, events: ImportEvents): Promise<ImportSummary> {
  const started = performance.now();
  const manifest = await readManifest(dir);
  const builder = new DatasetDatabaseBuilder(out, {
    fetchedAt: manifest.fetchedAt,
    seed: manifest.seed,
    origin: dir,
  });
  const files: FileSummary[] = [];
  try {
    for (const { file, collection } of datasetFiles) {
      events.fileStarted(file, await sizeOf(join(dir, file)));
      const summary: FileSummary = { file, imported: 0, skipped: 0 };
      let lines = 0;
      for await (const entry of readDatasetLines(dir, file)) {
        lines += 1;
        if (lines % PROGRESS_EVERY === 0) events.progress(file, lines, entry.bytes);
        const problem = 'problem' in entry ? entry.problem : add(builder, collection, entry.record);
        if (problem === null) summary.imported += 1;
        else {
          summary.skipped += 1;
          events.badLine({ file, line: entry.line, problem });
        }
      }
      files.push(summary);
      events.fileDone(summary);
    }
    builder.finish();
  } catch (error) {
    builder.abandon();
    throw error;
  }
  return {
    out,
    files,
    imported: files.reduce((sum, file) => sum + file.imported, 0),
    skipped: files.reduce((sum, file) => sum + file.skipped, 0),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

/** Adds one record; answers why it was refused, or null. */
function add(builder: DatasetDatabaseBuilder, kind: RecordKind, record: unknown): string | null {
  try {
    builder.add(kind, record as never);
    return null;
  } catch (error) {
    if (error instanceof DuplicateRecordError) return error.message;
    throw error;
  }
}
