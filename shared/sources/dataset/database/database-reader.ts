/**
 * The dataset's queries: every read DatasetSource makes of a dataset database, one method each,
 * answering stored records (model.ts) in the order the port promises. Every lookup is an index seek;
 * keyword searches read search-tiers.ts's tiers, so their cost follows the page, not the number of
 * matches. Memory stays bounded by SQLite's page cache, whatever the file's size. The connection (and
 * its move to a re-imported file) is dataset-connection.ts.
 *
 * This class is the reader's contract: DatasetReader is derived from it, so a new query is written
 * here once. Lookups by identifier throw ResourceNotFoundError with reader-rules.ts's messages;
 * rankings follow search.ts (relevance, then weight, then the stable key).
 */
import type { ReactionType } from '../../../../schemas/parameters.js';
import type { IdName } from '../../../../schemas/records.js';
import type {
  ActivityKind,
  CompanyRef,
  CompanySearchFilters,
  PeopleSearchFilters,
  ProfileRef,
  Window,
  WindowRequest,
} from '../../data-source.js';
import type {
  CommentRecord,
  CompanyRecord,
  IndustryRecord,
  JobRecord,
  LocationRecord,
  PersonRecord,
  PostRecord,
  ReactionRecord,
  SchoolRecord,
  Stored,
} from '../model.js';
import type { PersonDetails } from '../person-details.js';
import {
  type ActivityRecords,
  type FacetField,
  facetFields,
  identifierKey,
  type JobFieldCounts,
  normalizeDomain,
  notFound,
  postKey,
  type SearchAllHit,
  SIMILAR_POOL,
  similarityKeys,
  similarityTo,
  type TypeaheadHit,
} from '../reader-rules.js';
import { prepareQuery, relevance, type SearchDoc } from '../search.js';
import { DatasetConnection, type Parameters } from './dataset-connection.js';
import { reversed } from './schema.js';
import { defaultSearchLimits, type SearchLimits, TieredSearch } from './search-tiers.js';

const streams: Record<ActivityKind, { table: string; owner: string }> = {
  posts: { table: 'posts', owner: 'author_username' },
  comments: { table: 'comments', owner: 'author_username' },
  reactions: { table: 'reactions', owner: 'reactor_username' },
};

const facetColumns: Record<FacetField, string> = {
  location: 'location',
  companyName: 'company_name',
  employmentType: 'employment_type',
  seniority: 'seniority',
};

/**
 * What DatasetSource reads: every query of the dataset database, without the file's handling. Every
 * answer is the caller's own, made afresh from the rows read (DatasetSource hands it on uncopied).
 */
export type DatasetReader = Omit<DatabaseDatasetReader, 'close'>;

export class DatabaseDatasetReader {
  private readonly db: DatasetConnection;
  private readonly search: TieredSearch;

  /** `limits` choose between two ways of a search; tests lower them to reach both ways. */
  constructor(path: string, limits: SearchLimits = defaultSearchLimits) {
    this.db = new DatasetConnection(path);
    this.search = new TieredSearch(this.db, limits);
  }

  close(): void {
    this.db.close();
  }

  /** The one fetch time every record reports. */
  get fetchedAt(): string {
    return this.db.fetchedAt;
  }

  // ---- Records by identifier ------------------------------------------------------------------------

  person(ref: ProfileRef): PersonRecord {
    return this.personColumn('body', ref);
  }

  /** What profile details read of the person (person-details.ts), without parsing the whole record. */
  personDetails(ref: ProfileRef): PersonDetails {
    return this.personColumn('details', ref);
  }

  /** One JSON column of the person `ref` names. */
  private personColumn<T>(column: 'body' | 'details', ref: ProfileRef): T {
    if ('username' in ref)
      return this.db.found(
        `SELECT ${column} AS body FROM people WHERE username_key = :key`,
        { key: identifierKey(ref.username) },
        notFound.username(ref.username),
      );
    return this.db.found(
      `SELECT ${column} AS body FROM people WHERE public_id = :id`,
      { id: ref.publicId },
      notFound.profileId(ref.publicId),
    );
  }

  company(ref: CompanyRef): CompanyRecord {
    if ('slug' in ref)
      return this.db.found(
        'SELECT body FROM companies WHERE slug_key = :key',
        { key: identifierKey(ref.slug) },
        notFound.slug(ref.slug),
      );
    return this.db.found(
      'SELECT body FROM companies WHERE public_id = :id',
      { id: ref.publicId },
      notFound.companyId(ref.publicId),
    );
  }

  post(slug: string): PostRecord {
    return this.db.found(
      'SELECT body FROM posts WHERE slug_key = :key',
      { key: postKey(slug) },
      notFound.post(slug),
    );
  }

  job(jobId: string): JobRecord {
    return this.db.found('SELECT body FROM jobs WHERE job_id = :id', { id: jobId }, notFound.job(jobId));
  }

  /** A location or industry by id, for company details; null when the dataset has neither. */
  idName(id: string): IdName | null {
    const [record] = this.db.bodies<IdName>(
      'SELECT body FROM locations WHERE id = :id UNION ALL SELECT body FROM industries WHERE id = :id LIMIT 1',
      { id },
    );
    return record ? { id: record.id, name: record.name } : null;
  }

  /** Companies by publicId in the order asked, unknown ones left out. */
  companiesByPublicId(publicIds: readonly string[]): CompanyRecord[] {
    return publicIds.flatMap((id) =>
      this.db.bodies<CompanyRecord>('SELECT body FROM companies WHERE public_id = :id', { id }),
    );
  }

  // ---- Lists ----------------------------------------------------------------------------------------

  /** A window of a person's raw activity stream (keyed by the stored username) and its length. */
  activity<K extends ActivityKind>(
    username: string,
    kind: K,
    window: WindowRequest,
  ): Window<ActivityRecords[K]> {
    const { table, owner } = streams[kind];
    const start = Math.max(0, window.start);
    return {
      items: this.db.bodies(
        `SELECT body FROM ${table} WHERE ${owner} = :owner ORDER BY at DESC, internal_id LIMIT :count OFFSET :start`,
        { owner: username, count: Math.max(0, window.count), start },
      ),
      total: this.db.count(`SELECT count(*) AS n FROM ${table} WHERE ${owner} = :owner`, { owner: username }),
    };
  }

  /** Up to `limit` items of a company's lists (by its stored slug), in dataset order. */
  companyPosts(slug: string, limit: number): PostRecord[] {
    return this.db.bodies(
      'SELECT body FROM posts WHERE author_company_slug = :slug ORDER BY at DESC, internal_id LIMIT :limit',
      { slug, limit },
    );
  }

  companyJobs(slug: string, limit: number): JobRecord[] {
    return this.db.bodies(
      'SELECT body FROM jobs WHERE company_slug = :slug ORDER BY at DESC, internal_id LIMIT :limit',
      { slug, limit },
    );
  }

  /** People with a current position at the company. */
  companyEmployees(slug: string, limit: number): PersonRecord[] {
    return this.db.bodies(
      `SELECT p.body FROM current_employment e JOIN people p ON p.seq = e.person
        WHERE e.company_slug = :slug ORDER BY e.person LIMIT :limit`,
      { slug, limit },
    );
  }

  companyCounts(slug: string): { employees: number; jobs: number; posts: number } {
    return {
      employees: this.db.count('SELECT count(*) AS n FROM current_employment WHERE company_slug = :slug', {
        slug,
      }),
      jobs: this.db.count('SELECT count(*) AS n FROM jobs WHERE company_slug = :slug', { slug }),
      posts: this.db.count('SELECT count(*) AS n FROM posts WHERE author_company_slug = :slug', { slug }),
    };
  }

  /** How many people have a current, and an ended, position at the company. */
  staffCounts(publicId: string): { current: number; past: number } {
    const sql = 'SELECT count(*) AS n FROM employment WHERE company_public_id = :id AND current = :current';
    return {
      current: this.db.count(sql, { id: publicId, current: 1 }),
      past: this.db.count(sql, { id: publicId, current: 0 }),
    };
  }

  postComments(slug: string, limit: number): CommentRecord[] {
    return this.db.bodies<CommentRecord>(
      'SELECT body FROM comments WHERE post_slug = :slug ORDER BY at DESC, internal_id LIMIT :limit',
      { slug, limit },
    );
  }

  /** Reactions to the post itself (not to its comments), of one type or all. */
  postReactions(slug: string, reactionType: ReactionType | 'ALL', limit: number): ReactionRecord[] {
    return this.db.bodies<ReactionRecord>(
      `SELECT body FROM reactions WHERE post_slug = :slug AND on_comment = 0
         AND (:type = 'ALL' OR reaction_type = :type) ORDER BY at DESC, internal_id LIMIT :limit`,
      { slug, type: reactionType, limit },
    );
  }

  /**
   * The people most like the person among a bounded pool: for each of the person's current employers
   * and each of their skills, the SIMILAR_POOL best-ranked people with a current position there or
   * listing that skill (the person left out). Each scores 3 per current position at one of those
   * employers, 1 per skill in common and 1 for the same location; ties fall to search's rank.
   * The pool keeps the cost bounded by the person, not by the dataset.
   */
  similarProfiles(person: PersonRecord, limit: number): PersonRecord[] {
    const pool = new Set<number>();
    const firstOfPool = (sql: string, key: string) => {
      for (const row of this.db.rows(sql, { key, size: SIMILAR_POOL })) pool.add(Number(row.rank));
    };
    const keys = similarityKeys(person);
    for (const slug of keys.employers)
      firstOfPool('SELECT rank FROM staff_by_rank WHERE company_slug = :key ORDER BY rank LIMIT :size', slug);
    for (const skill of keys.skills)
      firstOfPool('SELECT rank FROM skill_holders WHERE skill = :key ORDER BY rank LIMIT :size', skill);
    const similarity = similarityTo(person, keys);
    const members = this.db.rows(
      `SELECT r.rank, p.body FROM people_rank r JOIN people p ON p.seq = r.seq
        WHERE r.rank IN (SELECT value FROM json_each(:pool)) AND p.public_id <> :self`,
      { pool: JSON.stringify([...pool]), self: person.publicId },
    );
    return members
      .map((row) => {
        const other = JSON.parse(String(row.body)) as PersonRecord;
        return { other, rank: Number(row.rank), score: similarity(other) };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.rank - b.rank)
      .slice(0, limit)
      .map((entry) => entry.other);
  }

  /** Same industry 2, a shared location 1; followers break ties. */
  similarCompanies(company: CompanyRecord, limit: number): CompanyRecord[] {
    return this.db.bodies(
      `WITH scores (company, score) AS (
         SELECT seq, 2 FROM companies WHERE industry_id = :industry
         UNION ALL SELECT company, 1 FROM company_locations
           WHERE location_id IN (SELECT value FROM json_each(:locations)) GROUP BY company),
       totals AS (SELECT company, sum(score) AS score FROM scores
         WHERE company <> (SELECT seq FROM companies WHERE public_id = :id) GROUP BY company)
       SELECT c.body FROM totals t JOIN companies c ON c.seq = t.company JOIN companies_rank r ON r.seq = t.company
       ORDER BY t.score DESC, r.rank LIMIT :limit`,
      {
        industry: company.industryId,
        locations: JSON.stringify(company.locationIds),
        id: company.publicId,
        limit,
      },
    );
  }

  // ---- Searches -------------------------------------------------------------------------------------

  searchCompanies(filters: CompanySearchFilters, window: WindowRequest): Window<CompanyRecord> {
    const clauses: string[] = [];
    const parameters: Parameters = {};
    const anyOf = (values: readonly string[] | undefined, name: string, clause: string) => {
      if (!values || values.length === 0) return;
      clauses.push(clause);
      parameters[name] = JSON.stringify(values);
    };
    anyOf(
      filters.locationIds,
      'locations',
      'e.seq IN (SELECT company FROM company_locations WHERE location_id IN (SELECT value FROM json_each(:locations)))',
    );
    anyOf(filters.industryIds, 'industries', 'e.industry_id IN (SELECT value FROM json_each(:industries))');
    anyOf(filters.companySizes, 'sizes', 'e.size_code IN (SELECT value FROM json_each(:sizes))');
    if (filters.hasJobs !== undefined) {
      clauses.push('e.has_jobs = :hasJobs');
      parameters.hasJobs = filters.hasJobs ? 1 : 0;
    }
    const filter = clauses.length
      ? { sql: clauses.map((clause) => `AND ${clause}`).join(' '), parameters, readsRecord: true }
      : undefined;
    const query = prepareQuery(filters.keywords);
    const start = Math.max(0, window.start);
    const hits = this.search
      .ranks('companies', query, start + Math.max(0, window.count), filter)
      .slice(start);
    return {
      items: this.search.records<CompanyRecord>('companies', hits).map((entry) => entry.item),
      total: this.search.matchCount('companies', query, filter),
    };
  }

  /** The domain itself first, then its subdomains; by name within each. */
  companiesByDomain(domain: string, window: WindowRequest): Window<CompanyRecord> {
    const wanted = normalizeDomain(domain);
    if (!wanted) return { items: [], total: 0 };
    const key = reversed(wanted);
    // The domain itself, then subdomains: reversed, those start with "<domain reversed>.".
    const matching = `FROM companies WHERE reversed_domain = :key OR (reversed_domain >= :low AND reversed_domain < :high)`;
    const parameters = { key, low: `${key}.`, high: `${key}/` };
    return {
      items: this.db.bodies(
        `SELECT body ${matching} ORDER BY reversed_domain = :key DESC, name_order LIMIT :count OFFSET :start`,
        { ...parameters, count: Math.max(0, window.count), start: Math.max(0, window.start) },
      ),
      total: this.db.count(`SELECT count(*) AS n ${matching}`, parameters),
    };
  }

  /**
   * Narrowed to a company's staff, the few people it leaves are scored directly (search.ts's
   * relevance over their documents); a company too large for that narrows the index's rank-ordered
   * reading instead.
   */
  searchPeople(filters: PeopleSearchFilters, limit: number): PersonRecord[] {
    const clauses: string[] = [];
    const parameters: Parameters = {};
    const workedAt = (publicId: string | undefined, current: number, name: string) => {
      if (publicId === undefined) return;
      clauses.push(
        `AND r.seq IN (SELECT person FROM employment WHERE company_public_id = :${name} AND current = ${current})`,
      );
      parameters[name] = publicId;
    };
    workedAt(filters.currentCompany, 1, 'currentCompany');
    workedAt(filters.pastCompany, 0, 'pastCompany');
    const query = prepareQuery(filters.keywords);
    if (clauses.length === 0)
      return this.search
        .records<PersonRecord>('people', this.search.ranks('people', query, limit))
        .map((entry) => entry.item);
    const filter = { sql: clauses.join(' '), parameters, readsRecord: false };
    const staff = `FROM people_rank r WHERE 1 ${filter.sql}`;
    const hits =
      this.db.count(`SELECT count(*) AS n ${staff}`, parameters) <= this.search.limits.directlyScored
        ? this.db
            .rows(`SELECT r.rank, r.doc ${staff}`, parameters)
            .map((row) => {
              const doc = JSON.parse(String(row.doc)) as Pick<SearchDoc, 'names' | 'texts'>;
              return {
                rank: Number(row.rank),
                score: relevance(filters.keywords, { ...doc, weight: 0, key: '' }),
              };
            })
            .filter((hit) => hit.score > 0)
            .sort((a, b) => b.score - a.score || a.rank - b.rank)
            .slice(0, limit)
        : this.search.ranks('people', query, limit, filter);
    return this.search.records<PersonRecord>('people', hits).map((entry) => entry.item);
  }

  searchSchools(keywords: string, limit: number): SchoolRecord[] {
    return this.search.top('schools', keywords, limit);
  }

  searchPosts(keywords: string, limit: number): PostRecord[] {
    return this.search.top('posts', keywords, limit);
  }

  searchJobs(keywords: string, limit: number): JobRecord[] {
    return this.search.top('jobs', keywords, limit);
  }

  searchLocations(keywords: string, limit: number): LocationRecord[] {
    return this.search.top('locations', keywords, limit);
  }

  searchIndustries(query: string, limit: number): IndustryRecord[] {
    return this.search.top('industries', query, limit);
  }

  searchAll(keywords: string, limit: number): SearchAllHit[] {
    return this.search.mixed<SearchAllHit>(
      [
        ['people', 'person'],
        ['companies', 'company'],
        ['schools', 'school'],
        ['posts', 'post'],
        ['jobs', 'job'],
      ],
      keywords,
      limit,
    );
  }

  typeahead(query: string, limit: number): TypeaheadHit[] {
    return this.search.mixed<TypeaheadHit>(
      [
        ['people', 'person'],
        ['companies', 'company'],
        ['schools', 'school'],
        ['locations', 'location'],
        ['industries', 'industry'],
      ],
      query,
      limit,
    );
  }

  /** Posts carrying the hashtag (lowercase, without "#"), newest first. */
  postsByHashtag(tag: string, limit: number): PostRecord[] {
    return this.db.bodies(
      `SELECT p.body FROM post_hashtags h JOIN posts p ON p.seq = h.post WHERE h.tag = :tag
        ORDER BY h.at DESC, h.internal_id LIMIT :limit`,
      { tag, limit },
    );
  }

  serviceCategories(limit: number): Stored<IdName>[] {
    return this.db.bodies('SELECT body FROM service_categories ORDER BY seq LIMIT :limit', { limit });
  }

  /** Locations where some company is and industries some company is in (any order). */
  companyFilterValues(): { locations: LocationRecord[]; industries: IndustryRecord[] } {
    return {
      locations: this.db.bodies<LocationRecord>(
        'SELECT body FROM locations WHERE id IN (SELECT location_id FROM company_locations) ORDER BY seq',
      ),
      industries: this.db.bodies<IndustryRecord>(
        'SELECT body FROM industries WHERE id IN (SELECT industry_id FROM companies) ORDER BY seq',
      ),
    };
  }

  /**
   * Job search filters count every matching job's values: the matches' ranks come from the full-text
   * index, their values from the job facets kept in memory (read once per file, a few hundred KiB at
   * 1M profiles), since reading each match's row took most of a broad keyword's time.
   */
  jobFieldCounts(keywords: string): JobFieldCounts {
    const match = this.search.match('jobs', prepareQuery(keywords));
    const facets = this.db.memo('job facets', () => JobFacets.read(this.db));
    const ranks =
      match === null
        ? []
        : this.db.rows('SELECT rowid AS rank FROM jobs_fts WHERE jobs_fts MATCH :match', { match });
    return { matched: ranks.length, counts: facets.count(ranks.map((row) => Number(row.rank))) };
  }
}

type FacetCounts = Record<FacetField, [value: string, jobs: number][]>;

/** Every job's facet values by rank, each field dictionary-coded (0: no value). */
class JobFacets {
  private constructor(
    private readonly fields: { field: FacetField; values: string[]; codes: Uint32Array }[],
  ) {}

  static read(db: DatasetConnection): JobFacets {
    const rows = db.rows(
      `SELECT rank, ${facetFields.map((field) => facetColumns[field]).join(', ')} FROM job_facets`,
    );
    const size = rows.reduce((largest, row) => Math.max(largest, Number(row.rank)), 0) + 1;
    return new JobFacets(
      facetFields.map((field) => {
        const column = facetColumns[field];
        const values = [''];
        const codeOf = new Map<string, number>();
        const codes = new Uint32Array(size);
        for (const row of rows) {
          const value = row[column];
          if (value === null || value === undefined) continue;
          const text = String(value);
          let code = codeOf.get(text);
          if (code === undefined) {
            code = values.push(text) - 1;
            codeOf.set(text, code);
          }
          codes[Number(row.rank)] = code;
        }
        return { field, values, codes };
      }),
    );
  }

  /** Each field's values among the jobs of these ranks, with how many of them have each. */
  count(ranks: readonly number[]): FacetCounts {
    return Object.fromEntries(
      this.fields.map(({ field, values, codes }) => {
        const tally = new Uint32Array(values.length);
        for (const rank of ranks) {
          const code = codes[rank] ?? 0;
          tally[code] = (tally[code] ?? 0) + 1;
        }
        const counted: [string, number][] = [];
        for (let code = 1; code < values.length; code++)
          if (tally[code]) counted.push([values[code] as string, tally[code] as number]);
        return [field, counted];
      }),
    ) as FacetCounts;
  }
}
