/**
 * The dataset database's tables. Each record is kept whole as JSON in `body` (what the reader
 * answers), beside the columns lookups use, each behind an index: identifiers, the streams' (owner,
 * time, id) orders, company filters, employment, skills and hashtags. A person also keeps what
 * profile details read of it in `details` (person-details.ts), a third of its record.
 *
 * Keyword search, per searchable kind: `<kind>_rank` numbers the kind's records in the order search
 * breaks ties (weight descending, then key), and keeps each record's search document (its names and
 * describing texts, search.ts's SearchDoc); `<kind>_fts` (every word) and `<kind>_name_fts` (the
 * words of its names) are contentless FTS5 indexes whose rowid IS that rank, so a full-text query
 * read in rowid order meets matches best-first and can stop after a page; both also index every
 * word's first 1–3 characters (FTS5's `prefix=`), and `<kind>_terms` lists the index's words, so no
 * prefix query has to merge every matching word's postings first (full-text.ts). `<kind>_names`
 * holds each record's names normalized, for the exact-name and name-prefix tiers. The search tables are built at the end of a load, from `<kind>_search`, which the load fills
 * and the end drops; the secondary indexes come after the load too (faster than row by row).
 */

import { createHash } from 'node:crypto';
import { indexedPrefixes } from './full-text.js';

/** Bumped when the tables change; a server refuses a database of another version. */
export const DATASET_DATABASE_VERSION = 3;

/** A company domain as `reversed_domain` keeps it: reversed, a domain's subdomains share its prefix. */
export const reversed = (text: string) => [...text].reverse().join('');

export const fullTextKinds = [
  'people',
  'companies',
  'schools',
  'posts',
  'jobs',
  'locations',
  'industries',
] as const;
export type FullTextKind = (typeof fullTextKinds)[number];

export const createTables = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE locations (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL);
CREATE TABLE industries (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL);
CREATE TABLE service_categories (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE schools (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE companies (seq INTEGER PRIMARY KEY, public_id TEXT NOT NULL UNIQUE,
  slug_key TEXT NOT NULL UNIQUE, industry_id TEXT NOT NULL, size_code TEXT NOT NULL,
  has_jobs INTEGER NOT NULL, reversed_domain TEXT, name_order TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE company_locations (location_id TEXT NOT NULL, company INTEGER NOT NULL,
  PRIMARY KEY (location_id, company)) WITHOUT ROWID;
CREATE TABLE people (seq INTEGER PRIMARY KEY, public_id TEXT NOT NULL UNIQUE,
  username_key TEXT NOT NULL UNIQUE, location TEXT, body TEXT NOT NULL, details TEXT NOT NULL);
CREATE TABLE current_employment (company_slug TEXT NOT NULL, person INTEGER NOT NULL,
  positions INTEGER NOT NULL, PRIMARY KEY (company_slug, person)) WITHOUT ROWID;
CREATE TABLE employment (company_public_id TEXT NOT NULL, current INTEGER NOT NULL, person INTEGER NOT NULL,
  PRIMARY KEY (company_public_id, current, person)) WITHOUT ROWID;
CREATE TABLE person_skills (skill TEXT NOT NULL, person INTEGER NOT NULL, PRIMARY KEY (skill, person)) WITHOUT ROWID;
CREATE TABLE posts (seq INTEGER PRIMARY KEY, internal_id TEXT NOT NULL, slug_key TEXT NOT NULL UNIQUE,
  author_username TEXT, author_company_slug TEXT, at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE post_hashtags (tag TEXT NOT NULL, at INTEGER NOT NULL, internal_id TEXT NOT NULL,
  post INTEGER NOT NULL, PRIMARY KEY (tag, at DESC, internal_id, post)) WITHOUT ROWID;
CREATE TABLE comments (seq INTEGER PRIMARY KEY, internal_id TEXT NOT NULL, post_slug TEXT NOT NULL,
  author_username TEXT NOT NULL, at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE reactions (seq INTEGER PRIMARY KEY, internal_id TEXT NOT NULL, post_slug TEXT NOT NULL,
  on_comment INTEGER NOT NULL, reaction_type TEXT NOT NULL, reactor_username TEXT NOT NULL,
  at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE jobs (seq INTEGER PRIMARY KEY, internal_id TEXT NOT NULL, job_id TEXT NOT NULL UNIQUE,
  company_slug TEXT, at INTEGER NOT NULL, location TEXT, company_name TEXT, employment_type TEXT,
  seniority TEXT, body TEXT NOT NULL);
${fullTextKinds
  .map(
    (kind) =>
      `CREATE TABLE ${kind}_search (seq INTEGER PRIMARY KEY, weight INTEGER NOT NULL, key TEXT NOT NULL, doc TEXT NOT NULL);`,
  )
  .join('\n')}
`;

/** The search tables of one kind, built from its `_search` table once the load is complete. */
export const createSearchTables = (kind: FullTextKind) => `
CREATE TABLE ${kind}_rank (rank INTEGER PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, weight INTEGER NOT NULL,
  key TEXT NOT NULL, doc TEXT NOT NULL);
INSERT INTO ${kind}_rank (seq, weight, key, doc) SELECT seq, weight, key, doc FROM ${kind}_search
  ORDER BY weight DESC, key;
DROP TABLE ${kind}_search;
CREATE VIRTUAL TABLE ${kind}_fts USING fts5(words, content='', detail=none, tokenize='ascii',
  prefix='${indexedPrefixes}');
CREATE VIRTUAL TABLE ${kind}_name_fts USING fts5(words, content='', detail=none, tokenize='ascii',
  prefix='${indexedPrefixes}');
CREATE TABLE ${kind}_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE ${kind}_names (rank INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (rank, name)) WITHOUT ROWID;
`;

/**
 * A kind's word list, once its full-text index is complete: every word of `<kind>_fts` (its names'
 * words are among them), so a long prefix is written out as the words it starts (full-text.ts).
 */
export const fillTermTable = (kind: FullTextKind) => `
CREATE VIRTUAL TABLE temp.${kind}_vocabulary USING fts5vocab(main, ${kind}_fts, row);
INSERT INTO ${kind}_terms (term) SELECT term FROM temp.${kind}_vocabulary;
DROP TABLE temp.${kind}_vocabulary;
`;

/**
 * Job search filters count every matching job's field values: kept apart from the jobs' bodies and
 * numbered by rank, so that a reader takes all four values of every job in one small read, once per
 * file (database-reader.ts, JobFacets). The jobs table's copies of these columns are what it is built from.
 */
export const createJobFacetTable = `
CREATE TABLE job_facets (rank INTEGER PRIMARY KEY, location TEXT, company_name TEXT, employment_type TEXT,
  seniority TEXT);
INSERT INTO job_facets SELECT r.rank, j.location, j.company_name, j.employment_type, j.seniority
  FROM jobs_rank r JOIN jobs j ON j.seq = r.seq ORDER BY r.rank;
`;

/** Similar profiles' pools, in rank order: each employer's current staff and each skill's holders. */
export const createSimilarityTables = `
CREATE TABLE staff_by_rank (company_slug TEXT NOT NULL, rank INTEGER NOT NULL,
  PRIMARY KEY (company_slug, rank)) WITHOUT ROWID;
INSERT INTO staff_by_rank SELECT e.company_slug, r.rank FROM current_employment e JOIN people_rank r ON r.seq = e.person;
CREATE TABLE skill_holders (skill TEXT NOT NULL, rank INTEGER NOT NULL, PRIMARY KEY (skill, rank)) WITHOUT ROWID;
INSERT INTO skill_holders SELECT s.skill, r.rank FROM person_skills s JOIN people_rank r ON r.seq = s.person;
DROP TABLE person_skills;
`;

export const createNameIndex = (kind: FullTextKind) =>
  `CREATE INDEX ${kind}_names_name ON ${kind}_names (name, rank);`;

export const createIndexes = `
CREATE INDEX people_location ON people (location);
CREATE INDEX companies_industry ON companies (industry_id);
CREATE INDEX companies_domain ON companies (reversed_domain) WHERE reversed_domain IS NOT NULL;
CREATE INDEX company_locations_company ON company_locations (company);
CREATE INDEX posts_author ON posts (author_username, at DESC, internal_id) WHERE author_username IS NOT NULL;
CREATE INDEX posts_company ON posts (author_company_slug, at DESC, internal_id)
  WHERE author_company_slug IS NOT NULL;
CREATE INDEX comments_author ON comments (author_username, at DESC, internal_id);
CREATE INDEX comments_post ON comments (post_slug, at DESC, internal_id);
CREATE INDEX reactions_reactor ON reactions (reactor_username, at DESC, internal_id);
CREATE INDEX reactions_post ON reactions (post_slug, at DESC, internal_id) WHERE on_comment = 0;
CREATE INDEX jobs_company ON jobs (company_slug, at DESC, internal_id) WHERE company_slug IS NOT NULL;
`;

/**
 * A digest of the table definitions above, kept in every database: a server refuses a file whose
 * tables differ from its own even when someone forgot to bump DATASET_DATABASE_VERSION.
 */
export const schemaFingerprint = createHash('sha256')
  .update(
    [
      DATASET_DATABASE_VERSION,
      createTables,
      ...fullTextKinds.map(createSearchTables),
      ...fullTextKinds.map(createNameIndex),
      ...fullTextKinds.map(fillTermTable),
      createIndexes,
      createSimilarityTables,
      createJobFacetTable,
    ].join('\n'),
  )
  .digest('hex')
  .slice(0, 16);
