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
import { identifierKey, postKey } from '../dataset-reader.js';
import { searchDocs } from '../memory-reader.js';
import type { Dataset } from '../model.js';
import { normalizeText, type SearchDoc, textWords } from '../search.js';
import { indexedWords } from './full-text.js';
import {
  createIndexes,
  createTables,
  DATASET_DATABASE_VERSION,
  type FullTextKind,
  fullTextKinds,
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

export const reversed = (text: string) => [...text].reverse().join('');

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

  private fullText(kind: FullTextKind, seq: number, doc: SearchDoc) {
    const names = doc.names.flatMap(textWords);
    const texts = doc.texts.flatMap((text) => (text ? textWords(text) : []));
    this.run(
      `INSERT INTO ${kind}_fts (rowid, names, texts) VALUES (?, ?, ?)`,
      seq,
      indexedWords(names),
      indexedWords(texts),
    );
  }

  add<K extends RecordKind>(kind: K, record: DatasetRecord<K>): void {
    this.adders[kind](record as never);
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  private readonly adders: { [K in RecordKind]: (record: DatasetRecord<K>) => void } = {
    locations: (location) => {
      const seq = this.insertRow(
        'INSERT INTO locations (id, internal_id, names, body) VALUES (?, ?, ?, ?)',
        location.id,
        location.internalId,
        JSON.stringify(searchDocs.place(location).names),
        JSON.stringify(location),
      );
      this.fullText('locations', seq, searchDocs.place(location));
    },
    industries: (industry) => {
      const seq = this.insertRow(
        'INSERT INTO industries (id, internal_id, names, body) VALUES (?, ?, ?, ?)',
        industry.id,
        industry.internalId,
        JSON.stringify(searchDocs.place(industry).names),
        JSON.stringify(industry),
      );
      this.fullText('industries', seq, searchDocs.place(industry));
    },
    serviceCategories: (category) => {
      this.insertRow('INSERT INTO service_categories (body) VALUES (?)', JSON.stringify(category));
    },
    schools: (school) => {
      const doc = searchDocs.school(school);
      const seq = this.insertRow(
        'INSERT INTO schools (internal_id, weight, names, body) VALUES (?, ?, ?, ?)',
        school.internalId,
        doc.weight,
        JSON.stringify(doc.names),
        JSON.stringify(school),
      );
      this.fullText('schools', seq, doc);
    },
    companies: (company) => {
      const doc = searchDocs.company(company);
      const seq = this.insertRow(
        `INSERT INTO companies (internal_id, public_id, slug_key, industry_id, size_code, has_jobs,
           reversed_domain, name_order, weight, names, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        company.internalId,
        company.publicId,
        identifierKey(company.slug),
        company.industryId,
        company.sizeCode,
        company.hasJobs ? 1 : 0,
        // Reversed, a domain's subdomains share its prefix: one index range finds them all.
        company.domain ? reversed(company.domain) : null,
        `${normalizeText(company.name)}|${company.internalId}`,
        doc.weight,
        JSON.stringify(doc.names),
        JSON.stringify(company),
      );
      for (const locationId of new Set(company.locationIds))
        this.run('INSERT INTO company_locations (location_id, company) VALUES (?, ?)', locationId, seq);
      this.fullText('companies', seq, doc);
    },
    people: (person) => {
      const doc = searchDocs.person(person);
      const seq = this.insertRow(
        `INSERT INTO people (internal_id, public_id, username_key, location, weight, names, body)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        person.internalId,
        person.publicId,
        identifierKey(person.username),
        person.location,
        doc.weight,
        JSON.stringify(doc.names),
        JSON.stringify(person),
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
      const skillTimes = new Map<string, number>();
      for (const skill of person.skills) skillTimes.set(skill.name, (skillTimes.get(skill.name) ?? 0) + 1);
      for (const [skill, times] of skillTimes)
        this.run('INSERT INTO person_skills (skill, person, times) VALUES (?, ?, ?)', skill, seq, times);
      this.fullText('people', seq, doc);
    },
    posts: (post) => {
      const doc = searchDocs.post(post);
      const at = Date.parse(post.postedAt);
      const seq = this.insertRow(
        `INSERT INTO posts (internal_id, slug_key, author_username, author_company_slug, at, weight, body)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        post.internalId,
        postKey(post.slug),
        post.authorUsername,
        post.authorCompanySlug,
        at,
        doc.weight,
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
      this.fullText('posts', seq, doc);
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
      const doc = searchDocs.job(job);
      const seq = this.insertRow(
        `INSERT INTO jobs (internal_id, job_id, company_slug, at, weight, names, location, company_name,
           employment_type, seniority, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        job.internalId,
        job.jobId,
        job.companySlug,
        Date.parse(job.postedAt),
        doc.weight,
        JSON.stringify(doc.names),
        job.location,
        job.companyName,
        job.employmentType,
        job.seniority,
        JSON.stringify(job),
      );
      this.fullText('jobs', seq, doc);
    },
  };

  /** Indexes, compacts the full-text indexes, analyzes, then puts the file in place. */
  finish(): void {
    this.db.exec('COMMIT');
    this.db.exec(createIndexes);
    for (const kind of fullTextKinds)
      this.db.exec(`INSERT INTO ${kind}_fts (${kind}_fts) VALUES ('optimize')`);
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
