/**
 * Dataset directories on disk (docs/dataset-format.md): a writer that streams records out as JSON
 * Lines and writes the manifest last, a reader that yields every line of a file validated against
 * its line schema (a bad line is reported with its number, never thrown), and `loadDataset`, which
 * reads a whole directory into the in-memory Dataset, the reference the dataset database is
 * checked against.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type * as z from 'zod';
import {
  DATASET_FORMAT,
  DATASET_FORMAT_VERSION,
  type DatasetFileName,
  type DatasetManifest,
  type DatasetRecord,
  datasetFiles,
  datasetManifestSchema,
  MANIFEST_FILE,
} from '../../../schemas/dataset-format.js';
import type { Dataset } from './model.js';
import { newestFirst } from './newest-first.js';

/** A directory this reader cannot read as a dataset: no or a bad manifest, another format or version. */
export class DatasetFormatError extends Error {
  override name = 'DatasetFormatError';
}

/**
 * One line of a file, numbered from 1: its validated record, or what is wrong with it; `bytes` is
 * how far into the file the line ends (for progress).
 */
export type DatasetLine<T> = ({ record: T } | { problem: string }) & { line: number; bytes: number };

/** Issues listed per bad line; a line wrong everywhere would otherwise bury the first problem. */
const LISTED_ISSUES = 3;

/** "positions.0.startDate.month: Too big: expected number to be <=12; …" on one line. */
export function describeIssues(error: z.ZodError): string {
  const described = error.issues
    .slice(0, LISTED_ISSUES)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'record'}: ${issue.message}`);
  const more = error.issues.length - LISTED_ISSUES;
  return more > 0 ? `${described.join('; ')}; and ${more} more` : described.join('; ');
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * The manifest, checked before anything else is read. Format and version are checked first and on
 * their own: a later format may change every other field, so its manifest is refused for what it is.
 */
export async function readManifest(dir: string): Promise<DatasetManifest> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) {
      throw new DatasetFormatError(
        `${path} is missing: ${dir} is not a dataset, or its writing never finished.`,
      );
    }
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DatasetFormatError(`${path} is not JSON: ${(error as Error).message}`);
  }
  const { format, version } = (value ?? {}) as { format?: unknown; version?: unknown };
  if (format !== DATASET_FORMAT) {
    throw new DatasetFormatError(
      `${path} names the format ${JSON.stringify(format)}; this reader reads "${DATASET_FORMAT}" only.`,
    );
  }
  if (version !== DATASET_FORMAT_VERSION) {
    throw new DatasetFormatError(
      `${path} is version ${JSON.stringify(version)} of the dataset format; this reader reads version ${DATASET_FORMAT_VERSION} only.`,
    );
  }
  const manifest = datasetManifestSchema.safeParse(value);
  if (!manifest.success) throw new DatasetFormatError(`${path}: ${describeIssues(manifest.error)}`);
  return manifest.data;
}

function lineSchema<F extends DatasetFileName>(file: F): z.ZodType<DatasetRecord<F>> {
  const entry = datasetFiles.find((candidate) => candidate.file === file);
  if (!entry) throw new Error(`${file} is not a file of the dataset format`);
  return entry.schema as unknown as z.ZodType<DatasetRecord<F>>;
}

function parseLine<T>(schema: z.ZodType<T>, text: string): { record: T } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { record: parsed.data } : { problem: describeIssues(parsed.error) };
}

/**
 * Every line of one file of `dir`, in file order, validated. A missing file reads as empty; blank
 * lines are skipped (but counted, so numbers match an editor's). Lines may be of any length.
 */
export async function* readDatasetLines<F extends DatasetFileName>(
  dir: string,
  file: F,
): AsyncGenerator<DatasetLine<DatasetRecord<F>>> {
  const schema = lineSchema(file);
  const input = createReadStream(join(dir, file), { encoding: 'utf8' });
  try {
    await once(input, 'open');
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    let number = 0;
    for await (const text of lines) {
      number += 1;
      // A byte order mark some editors write is not part of the first record.
      const content = number === 1 ? text.replace(/^\uFEFF/, '') : text;
      // bytesRead runs ahead by the stream's buffer: close enough for a progress bar.
      if (content.trim() !== '')
        yield { ...parseLine(schema, content), line: number, bytes: input.bytesRead };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

/** Characters a file collects before they are written out in one call. */
const WRITE_CHUNK_CHARS = 1 << 20;

/** One JSON Lines file being written: records are buffered into chunks, never the whole file. */
class LinesFile {
  lines = 0;
  private pending: string[] = [];
  private pendingChars = 0;
  private closed = false;

  constructor(private readonly handle: FileHandle) {}

  /** Buffers one record; true when the buffer should be flushed. */
  add(record: unknown): boolean {
    const line = `${JSON.stringify(record)}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    this.lines += 1;
    return this.pendingChars >= WRITE_CHUNK_CHARS;
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    // writeFile on a handle writes all of it, from the current position on.
    await this.handle.writeFile(chunk, 'utf8');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** Counts of written lines per file. */
export type DatasetCounts = Record<DatasetFileName, number>;

/**
 * Writes a dataset directory: every file of the format is started empty, records are appended as
 * they come, and the manifest is written last, so a directory whose writing stopped half-way has
 * none and readers refuse it.
 */
export class DatasetWriter {
  private constructor(
    private readonly dir: string,
    private readonly files: ReadonlyMap<DatasetFileName, LinesFile>,
  ) {}

  static async create(dir: string): Promise<DatasetWriter> {
    await mkdir(dir, { recursive: true });
    await rm(join(dir, MANIFEST_FILE), { force: true });
    const files = new Map<DatasetFileName, LinesFile>();
    try {
      for (const { file } of datasetFiles) files.set(file, new LinesFile(await open(join(dir, file), 'w')));
    } catch (error) {
      await Promise.allSettled([...files.values()].map((lines) => lines.close()));
      throw error;
    }
    return new DatasetWriter(dir, files);
  }

  async write<F extends DatasetFileName>(file: F, records: Iterable<DatasetRecord<F>>): Promise<void> {
    const target = this.files.get(file);
    if (!target) throw new Error(`${file} is not a file of the dataset format`);
    for (const record of records) if (target.add(record)) await target.flush();
  }

  /** Flushes and closes every file, then writes the manifest; `profiles` is the people written. */
  async finish(about: Pick<DatasetManifest, 'fetchedAt' | 'seed' | 'generator'>): Promise<DatasetCounts> {
    const counts = {} as DatasetCounts;
    for (const [file, lines] of this.files) {
      await lines.flush();
      await lines.close();
      counts[file] = lines.lines;
    }
    const manifest: DatasetManifest = {
      format: DATASET_FORMAT,
      version: DATASET_FORMAT_VERSION,
      fetchedAt: about.fetchedAt,
      seed: about.seed,
      profiles: counts['people.jsonl'],
      ...(about.generator === undefined ? {} : { generator: about.generator }),
    };
    await writeFile(join(this.dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    return counts;
  }

  /** Closes the files of a dataset that will not be finished; without a manifest it reads as unfinished. */
  async abandon(): Promise<void> {
    await Promise.allSettled([...this.files.values()].map((lines) => lines.close()));
  }
}

/** Writes an in-memory dataset to `dir`, each collection in its order. */
export async function writeDatasetFiles(
  dir: string,
  dataset: Dataset,
  generator?: string,
): Promise<DatasetCounts> {
  const writer = await DatasetWriter.create(dir);
  try {
    for (const { file, collection } of datasetFiles) await writer.write(file, dataset[collection]);
  } catch (error) {
    await writer.abandon();
    throw error;
  }
  return writer.finish({ fetchedAt: dataset.fetchedAt, seed: dataset.seed, generator });
}

/** Every record of one file; the first bad line fails the load, naming its file and number. */
async function readRecords<F extends DatasetFileName>(dir: string, file: F): Promise<DatasetRecord<F>[]> {
  const records: DatasetRecord<F>[] = [];
  for await (const entry of readDatasetLines(dir, file)) {
    if ('problem' in entry) throw new DatasetFormatError(`${file} line ${entry.line}: ${entry.problem}`);
    records.push(entry.record);
  }
  return records;
}

/**
 * A dataset directory in memory, for tests and small datasets: people, companies and reference data
 * in file order, activity and jobs newest first exactly as generation orders them. Unlike the
 * importer, which skips bad lines, it refuses a directory with any.
 */
export async function loadDataset(dir: string): Promise<Dataset> {
  const manifest = await readManifest(dir);
  const people = await readRecords(dir, 'people.jsonl');
  if (people.length !== manifest.profiles) {
    throw new DatasetFormatError(
      `people.jsonl holds ${people.length} profiles; ${MANIFEST_FILE} promises ${manifest.profiles}.`,
    );
  }
  return {
    seed: manifest.seed,
    fetchedAt: manifest.fetchedAt,
    locations: await readRecords(dir, 'locations.jsonl'),
    industries: await readRecords(dir, 'industries.jsonl'),
    serviceCategories: await readRecords(dir, 'service-categories.jsonl'),
    schools: await readRecords(dir, 'schools.jsonl'),
    companies: await readRecords(dir, 'companies.jsonl'),
    people,
    posts: newestFirst(await readRecords(dir, 'posts.jsonl'), (post) => post.postedAt),
    comments: newestFirst(await readRecords(dir, 'comments.jsonl'), (comment) => comment.commentedAt),
    reactions: newestFirst(await readRecords(dir, 'reactions.jsonl'), (reaction) => reaction.reactedAt),
    jobs: newestFirst(await readRecords(dir, 'jobs.jsonl'), (job) => job.postedAt),
  };
}
