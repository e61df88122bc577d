/**
 * The read-only connection to a dataset database (schema.ts): it opens the file and refuses one that
 * is not a dataset database of this version, bounds SQLite's memory, caches prepared statements, and
 * registers the name-scoring SQL function the text tier of keyword search calls (search-tiers.ts).
 *
 * A re-import renames a new file over the old one; the connection notices (at most once a second, by
 * the file's identity) and opens the new file, so a running server moves to the new data without a
 * restart and never reads a half-built one.
 */
import { statSync } from 'node:fs';
import { ResourceNotFoundError } from '../../../errors.js';
import { DatabaseSync, type StatementSync } from '../../../store/sqlite/node-sqlite.js';
import { nameRelevance, type PreparedQuery, prepareQuery, type SearchDoc } from '../search.js';
import { DATASET_DATABASE_VERSION, schemaFingerprint } from './schema.js';

/** SQLite's page cache per open database (KiB): what bounds the reader's memory. */
const PAGE_CACHE_KIB = 32 * 1024;
/** How often (ms) the connection looks whether the file was replaced. */
const RELOAD_CHECK_MS = 1000;

/** The file cannot be opened, is not a dataset database, or was built by another version. */
export class DatasetFileError extends Error {}

export type Parameters = Record<string, string | number | null>;
export type Row = Record<string, unknown>;

/** One open file: its statements and the query the name-scoring function last prepared. */
class OpenFile {
  readonly fetchedAt: string;
  /** What was read whole from this file and kept (DatasetConnection.memo). */
  readonly memos = new Map<string, unknown>();
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(readonly path: string) {
    try {
      this.db = new DatabaseSync(path, { readOnly: true });
    } catch (error) {
      throw new DatasetFileError(
        `The dataset database ${path} cannot be opened: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    const meta = this.readMeta();
    this.db.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}; PRAGMA mmap_size = 0;`);
    // The file never changes in place (a re-import renames a new file over it, which the connection
    // then opens), so the connection keeps its shared lock instead of taking and dropping it around
    // every statement, each time also reading the file's header to see whether another process
    // changed it: seven system calls a read, most of a point read's time (18 µs, now 7 µs).
    this.db.exec('PRAGMA locking_mode = EXCLUSIVE');
    // Which name tier a record's names reach for a normalized query (0: none); asked only of the few
    // rows a text-tier page reads.
    let last: { query: unknown; prepared: PreparedQuery } | undefined;
    this.db.function('name_relevance', { deterministic: true }, (query, doc) => {
      if (last?.query !== query) last = { query, prepared: prepareQuery(String(query)) };
      return nameRelevance(last.prepared, (JSON.parse(String(doc)) as Pick<SearchDoc, 'names'>).names);
    });
    this.fetchedAt = meta.fetchedAt;
  }

  private readMeta(): { fetchedAt: string } {
    let rows: Row[];
    try {
      rows = this.db.prepare('SELECT key, value FROM meta').all() as Row[];
    } catch (error) {
      this.db.close();
      throw new DatasetFileError(
        `${this.path} is not a dataset database (build one with: npm run data -- import DIR --out FILE).`,
        { cause: error },
      );
    }
    const meta = new Map(rows.map((row) => [String(row.key), String(row.value)]));
    if (
      meta.get('version') !== String(DATASET_DATABASE_VERSION) ||
      meta.get('schema') !== schemaFingerprint
    ) {
      this.db.close();
      throw new DatasetFileError(
        `${this.path} was built by another version of this service (dataset database ${meta.get('version')}/${meta.get('schema')}; this one reads ${DATASET_DATABASE_VERSION}/${schemaFingerprint}). Import the dataset again.`,
      );
    }
    return { fetchedAt: meta.get('fetchedAt') ?? '' };
  }

  statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    this.db.close();
  }
}

const fileIdentity = (path: string) => {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
};

export class DatasetConnection {
  private file: OpenFile;
  private identity: string | null;
  private checkedAt = Date.now();

  constructor(readonly path: string) {
    this.identity = fileIdentity(path);
    this.file = new OpenFile(path);
  }

  /** The open file, replaced by the new one when a re-import renamed it into place. */
  private current(): OpenFile {
    const now = Date.now();
    if (now - this.checkedAt < RELOAD_CHECK_MS) return this.file;
    this.checkedAt = now;
    const identity = fileIdentity(this.path);
    if (identity !== null && identity !== this.identity) {
      const next = new OpenFile(this.path);
      this.file.close();
      this.file = next;
      this.identity = identity;
    }
    return this.file;
  }

  close(): void {
    this.file.close();
  }

  /** The one fetch time every record of the file reports. */
  get fetchedAt(): string {
    return this.current().fetchedAt;
  }

  rows(sql: string, parameters: Parameters = {}): Row[] {
    return this.current().statement(sql).all(parameters) as Row[];
  }

  /**
   * What `read` makes of the open file, made once per file and kept: the file a re-import renames
   * into place is read again.
   */
  memo<T>(key: string, read: () => T): T {
    const { memos } = this.current();
    if (!memos.has(key)) memos.set(key, read());
    return memos.get(key) as T;
  }

  /** The stored records (the `body` column) the query answers. */
  bodies<T>(sql: string, parameters: Parameters = {}): T[] {
    return this.rows(sql, parameters).map((row) => JSON.parse(String(row.body)) as T);
  }

  /** The `n` column of the query's first row. */
  count(sql: string, parameters: Parameters): number {
    return Number(this.rows(sql, parameters)[0]?.n ?? 0);
  }

  /** The one record the query answers, or ResourceNotFoundError with `message`. */
  found<T>(sql: string, parameters: Parameters, message: string): T {
    const [record] = this.bodies<T>(sql, parameters);
    if (record === undefined) throw new ResourceNotFoundError(message);
    return record;
  }
}
