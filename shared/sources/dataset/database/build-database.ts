/**
 * Builds a dataset database from records, one at a time, so a dataset of any size streams through
 * bounded memory. The database is written beside its target (`<target>.building-<pid>`) and renamed
 * over it only once complete, indexed and analyzed: a server reading the target sees the old file or
 * the new one, never a half-built one (a rename replaces a file atomically on one file system).
 *
 * A record that breaks a uniqueness rule (a second person with the same username, say) is refused
 * with DuplicateRecordError and nothing of it is kept; the importer reports it as a bad line.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from '../../../store/sqlite/node-sqlite.js';
import type { Dataset, IndustryRecord, LocationRecord } from '../model.js';
import { personDetailsOf } from '../person-details.js';
import { identifierKey, postKey } from '../reader-rules.js';
import { normalizeText, type SearchDoc, textWords } from '../search.js';
import { searchDocs } from '../search-docs.js';
import { indexedWords } from './full-text.js';
import {
  createIndexes,
  createJobFacetTable,
  createNameIndex,
  createSearchTables,
  createSimilarityTables,
  createTables,
  DATASET_DATABASE_VERSION,
  type FullTextKind,
  fillTermTable,
  fullTextKinds,
  reversed,
  schemaFingerprint,
} from './schema.js';

/** The record lists a dataset database holds, named as in Dataset. */
export type RecordKind = Exclude<keyof Dataset, 'seed' | 'fetchedAt'>;
export type DatasetRecord<K extends RecordKind> = Dataset[K][number];

export interface DatasetDescription {
  fetchedAt: string;
  seed: number | null;
  /** Where the records came from, for the operator (a directory, "generated sample"). */
  origin: string;
}

export class DuplicateRecordError extends Error {
  constructor(cause: unknown) {
    super(`an identifier of this record is already taken (${(cause as Error).message})`, { cause });
  }
}

/** Rows per transaction while loading. */
const BATCH = 20_000;

function isUniquenessFailure(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed/.test(error.message);
}

export class DatasetDatabaseBuilder {
  private readonly db: DatabaseSync;
  private readonly building: string;
  private readonly statements = new Map<string, StatementSync>();
  private pending = 0;
  private closed = false;

  constructor(
    private readonly target: string,
    description: DatasetDescription,
  ) {
    this.building = `${target}.building-${process.pid}`;
    rmSync(this.building, { force: true });
    this.db = new DatabaseSync(this.building);
    // A half-built file is thrown away, never read: no journal, no syncs until the end.
    this.db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144;');
    this.db.exec(createTables);
    const meta = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    meta.run('version', String(DATASET_DATABASE_VERSION));
    meta.run('schema', schemaFingerprint);
    meta.run('fetchedAt', description.fetchedAt);
    meta.run('seed', JSON.stringify(description.seed));
    meta.run('origin', description.origin);
    this.db.exec('BEGIN');
  }

  private run(sql: string, ...values: (string | number | null)[]) {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement.run(...values);
  }

  /** Inserts the main row; a uniqueness failure refuses the whole record. */
  private insertRow(sql: string, ...values: (string | number | null)[]): number {
    try {
      return Number(this.run(sql, ...values).lastInsertRowid);
    } catch (error) {
      if (isUniquenessFailure(error)) throw new DuplicateRecordError(error);
      throw error;
    }
  }

  /** Stages the record's search document; the search tables are built from these at the end. */
  private searchable(kind: FullTextKind, seq: number, doc: SearchDoc) {
    this.run(
      `INSERT INTO ${kind}_search (seq, weight, key, doc) VALUES (?, ?, ?, ?)`,
      seq,
      doc.weight,
      doc.key,
      JSON.stringify({ names: doc.names, texts: doc.texts }),
    );
  }

  /** A location or an industry: found by id, searched by name. */
  private addPlace(kind: 'locations' | 'industries', place: LocationRecord | IndustryRecord) {
    const seq = this.insertRow(
      `INSERT INTO ${kind} (id, body) VALUES (?, ?)`,
      place.id,
      JSON.stringify(place),
    );
    this.searchable(kind, seq, searchDocs.place(place));
  }

  add<K extends RecordKind>(kind: K, record: DatasetRecord<K>): void {
    this.adders[kind](record as never);
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  private readonly adders: { [K in RecordKind]: (record: DatasetRecord<K>) => void } = {
    locations: (location) => this.addPlace('locations', location),
    industries: (industry) => this.addPlace('industries', industry),
    serviceCategories: (category) => {
      this.insertRow('INSERT INTO service_categories (body) VALUES (?)', JSON.stringify(category));
    },
    schools: (school) => {
      const seq = this.insertRow('INSERT INTO schools (body) VALUES (?)', JSON.stringify(school));
      this.searchable('schools', seq, searchDocs.school(school));
    },
    companies: (company) => {
      const seq = this.insertRow(
        `INSERT INTO companies (public_id, slug_key, industry_id, size_code, has_jobs, reversed_domain,
           name_order, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        company.publicId,
        identifierKey(company.slug),
        company.industryId,
        company.sizeCode,
        company.hasJobs ? 1 : 0,
        // Reversed, a domain's subdomains share its prefix: one index range finds them all.
        company.domain ? reversed(company.domain) : null,
        `${normalizeText(company.name)}|${company.internalId}`,
        JSON.stringify(company),
      );
      for (const locationId of new Set(company.locationIds))
        this.run('INSERT INTO company_locations (location_id, company) VALUES (?, ?)', locationId, seq);
      this.searchable('companies', seq, searchDocs.company(company));
    },
    people: (person) => {
      const seq = this.insertRow(
        'INSERT INTO people (public_id, username_key, location, body, details) VALUES (?, ?, ?, ?, ?)',
        person.publicId,
        identifierKey(person.username),
        person.location,
        JSON.stringify(person),
        JSON.stringify(personDetailsOf(person)),
      );
      const currentAt = new Map<string, number>();
      const employers = new Set<string>();
      for (const position of person.positions) {
        if (position.isCurrent && position.companySlug !== null)
          currentAt.set(position.companySlug, (currentAt.get(position.companySlug) ?? 0) + 1);
        if (position.companyPublicId !== null)
          employers.add(JSON.stringify([position.companyPublicId, position.isCurrent ? 1 : 0]));
      }
      for (const [slug, positions] of currentAt)
        this.run(
          'INSERT INTO current_employment (company_slug, person, positions) VALUES (?, ?, ?)',
          slug,
          seq,
          positions,
        );
      for (const employer of employers) {
        const [publicId, current] = JSON.parse(employer) as [string, number];
        this.run(
          'INSERT INTO employment (company_public_id, current, person) VALUES (?, ?, ?)',
          publicId,
          current,
          seq,
        );
      }
      for (const skill of new Set(person.skills.map((entry) => entry.name)))
        this.run('INSERT INTO person_skills (skill, person) VALUES (?, ?)', skill, seq);
      this.searchable('people', seq, searchDocs.person(person));
    },
    posts: (post) => {
      const at = Date.parse(post.postedAt);
      const seq = this.insertRow(
        `INSERT INTO posts (internal_id, slug_key, author_username, author_company_slug, at, body)
           VALUES (?, ?, ?, ?, ?, ?)`,
        post.internalId,
        postKey(post.slug),
        post.authorUsername,
        post.authorCompanySlug,
        at,
        JSON.stringify(post),
      );
      for (const tag of new Set(post.hashtags))
        this.run(
          'INSERT INTO post_hashtags (tag, at, internal_id, post) VALUES (?, ?, ?, ?)',
          tag,
          at,
          post.internalId,
          seq,
        );
      this.searchable('posts', seq, searchDocs.post(post));
    },
    comments: (comment) => {
      this.insertRow(
        'INSERT INTO comments (internal_id, post_slug, author_username, at, body) VALUES (?, ?, ?, ?, ?)',
        comment.internalId,
        comment.postSlug,
        comment.authorUsername,
        Date.parse(comment.commentedAt),
        JSON.stringify(comment),
      );
    },
    reactions: (reaction) => {
      this.insertRow(
        `INSERT INTO reactions (internal_id, post_slug, on_comment, reaction_type, reactor_username, at, body)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        reaction.internalId,
        reaction.postSlug,
        reaction.commentId === null ? 0 : 1,
        reaction.reactionType,
        reaction.reactorUsername,
        Date.parse(reaction.reactedAt),
        JSON.stringify(reaction),
      );
    },
    jobs: (job) => {
      const seq = this.insertRow(
        `INSERT INTO jobs (internal_id, job_id, company_slug, at, location, company_name, employment_type,
           seniority, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        job.internalId,
        job.jobId,
        job.companySlug,
        Date.parse(job.postedAt),
        job.location,
        job.companyName,
        job.employmentType,
        job.seniority,
        JSON.stringify(job),
      );
      this.searchable('jobs', seq, searchDocs.job(job));
    },
  };

  /** Indexes, compacts the full-text indexes, analyzes, then puts the file in place. */
  finish(): void {
    this.db.exec('COMMIT');
    this.db.exec(createIndexes);
    for (const kind of fullTextKinds) this.buildSearch(kind);
    this.db.exec(createSimilarityTables);
    this.db.exec(createJobFacetTable);
    this.db.exec('ANALYZE');
    this.db.exec('PRAGMA journal_mode = DELETE');
    this.db.close();
    this.closed = true;
    const file = openSync(this.building, 'r');
    try {
      fsyncSync(file);
    } finally {
      closeSync(file);
    }
    renameSync(this.building, this.target);
  }

  /** Ranks a kind's records, then indexes each one's words under its rank and its names. */
  private buildSearch(kind: FullTextKind): void {
    this.db.exec(`BEGIN; ${createSearchTables(kind)}`);
    const words = this.db.prepare(`INSERT INTO ${kind}_fts (rowid, words) VALUES (?, ?)`);
    const nameWords = this.db.prepare(`INSERT INTO ${kind}_name_fts (rowid, words) VALUES (?, ?)`);
    const names = this.db.prepare(`INSERT OR IGNORE INTO ${kind}_names (rank, name) VALUES (?, ?)`);
    for (const row of this.db.prepare(`SELECT rank, doc FROM ${kind}_rank ORDER BY rank`).iterate()) {
      const rank = Number(row.rank);
      const doc = JSON.parse(String(row.doc)) as Pick<SearchDoc, 'names' | 'texts'>;
      const ofNames = indexedWords(doc.names.flatMap(textWords));
      const ofTexts = indexedWords(doc.texts.flatMap((text) => (text ? textWords(text) : [])));
      words.run(rank, `${ofNames} ${ofTexts}`);
      nameWords.run(rank, ofNames);
      for (const name of doc.names) names.run(rank, normalizeText(name));
    }
    this.db.exec(
      `${createNameIndex(kind)} INSERT INTO ${kind}_fts (${kind}_fts) VALUES ('optimize');
       INSERT INTO ${kind}_name_fts (${kind}_name_fts) VALUES ('optimize'); ${fillTermTable(kind)} COMMIT;`,
    );
  }

  /** Drops the half-built file (after a failure). */
  abandon(): void {
    if (!this.closed) this.db.close();
    this.closed = true;
    rmSync(this.building, { force: true });
  }
}

/** Builds a database from a dataset held in memory (the generated sample, tests). */
export function buildDatabaseFromDataset(dataset: Dataset, target: string, origin: string): void {
  const builder = new DatasetDatabaseBuilder(target, {
    fetchedAt: dataset.fetchedAt,
    seed: dataset.seed,
    origin,
  });
  try {
    for (const kind of recordKinds) for (const record of dataset[kind]) builder.add(kind, record);
    builder.finish();
  } catch (error) {
    builder.abandon();
    throw error;
  }
}

/** The order records are loaded in: what others refer to first. */
export const recordKinds: readonly RecordKind[] = [
  'locations',
  'industries',
  'serviceCategories',
  'schools',
  'companies',
  'people',
  'posts',
  'comments',
  'reactions',
  'jobs',
];
