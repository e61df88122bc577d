/**
 * For `bench:mcp-sizes`: the inputs that make each MCP tool answer the most, found by scanning a
 * dataset database directly (read-only, one pass per table, sizes as the public views would
 * serialize them). Each tool gets a few candidates, largest estimate first; the benchmark then asks
 * the real service for each and keeps the largest answer, so the estimates only need to rank.
 * Lists answer pages of 10 (PAGE), so a list's candidates are the 10 consecutive items with the most
 * characters: the first page of a company's or a post's list, any aligned page of a profile's
 * activity stream (reached by following its cursors), any window of skills or company interests
 * (`start` may be any offset). Searches rank by relevance, which a scan cannot replay, so their
 * candidates are broad keywords plus words of the largest records, and each search also gets a
 * ceiling: 10 times the largest item of its kind, which no page can exceed.
 */
import type { CompanyRecord, JobRecord, PersonRecord, PostRecord } from '../shared/sources/dataset/model.js';
import { DatabaseSync } from '../shared/store/sqlite/node-sqlite.js';

/** Items per page of every list and search (PAGE_SIZE / FIRST_PAGE / STREAM_WINDOW). */
const PAGE = 10;

export type ToolArguments = Record<string, string | number | boolean>;

export interface Candidate {
  args: ToolArguments;
  /** Pages to skip first by following `meta.paging.nextCursor` (activity streams). */
  pagesToSkip?: number;
}

/** Kinds of item whose largest one bounds a search page. */
export type ItemKind = 'person' | 'company' | 'post' | 'job' | 'school' | 'location' | 'industry';

export interface LargestInputs {
  /** Candidates per tool name, largest estimate first. */
  candidates: Map<string, Candidate[]>;
  /** Characters of the largest item of each kind, as the public view serializes it. */
  largestItem: Map<ItemKind, number>;
}

/** Words that match a large share of a kind's records, tried besides the words of its largest records. */
const BROAD_WORDS = [
  'a',
  'e',
  'the',
  'and',
  'engineer',
  'manager',
  'senior',
  'software',
  'data',
  'leadership',
];

const size = (value: unknown) => JSON.stringify(value).length;

/** The `count` best-scoring values offered; `make` runs only for a value that gets in. */
class Best<T> {
  private readonly entries: { score: number; value: T }[] = [];
  constructor(private readonly count: number) {}

  offer(score: number, make: () => T): void {
    const last = this.entries[this.count - 1];
    if (last && score <= last.score) return;
    this.entries.push({ score, value: make() });
    this.entries.sort((a, b) => b.score - a.score);
    this.entries.length = Math.min(this.entries.length, this.count);
  }

  values(): T[] {
    return this.entries.map((entry) => entry.value);
  }

  get top(): number {
    return this.entries[0]?.score ?? 0;
  }
}

/** The window of `width` consecutive sizes with the largest sum (start and sum). */
function bestWindow(sizes: readonly number[], width: number): { start: number; sum: number } {
  let sum = sizes.slice(0, width).reduce((total, value) => total + value, 0);
  let best = { start: 0, sum };
  for (let start = 1; start + width <= sizes.length; start += 1) {
    sum += (sizes[start + width - 1] as number) - (sizes[start - 1] as number);
    if (sum > best.sum) best = { start, sum };
  }
  return best;
}

/**
 * Walks rows ordered by group (each row one item's sequence number) and reports the sum of item
 * sizes of every aligned page of PAGE rows in a group, or of its first page only.
 */
function pageSums(
  rows: Iterable<readonly [unknown, unknown]>,
  itemSize: (seq: number) => number,
  firstPageOnly: boolean,
  onPage: (group: string, page: number, sum: number) => void,
): void {
  let group: string | undefined;
  let index = 0;
  let sum = 0;
  const flush = () => {
    if (group !== undefined && index % PAGE !== 0) onPage(group, Math.floor(index / PAGE), sum);
  };
  for (const [rowGroup, seq] of rows) {
    const current = String(rowGroup);
    if (current !== group) {
      flush();
      group = current;
      index = 0;
      sum = 0;
    }
    if (firstPageOnly && index >= PAGE) continue;
    sum += itemSize(Number(seq));
    index += 1;
    if (index % PAGE === 0) {
      onPage(current, index / PAGE - 1, sum);
      sum = 0;
    }
  }
  flush();
}

/** The longest distinct words of some texts, for keyword candidates. */
function wordsOf(texts: readonly (string | null | undefined)[], count: number): string[] {
  const words = new Set<string>();
  for (const text of texts)
    for (const word of (text ?? '').split(/[^\p{L}\p{N}]+/u)) if (word) words.add(word);
  return [...words].sort((a, b) => b.length - a.length).slice(0, count);
}

export function findLargestInputs(file: string, perTool: number): LargestInputs {
  const db = new DatabaseSync(file, { readOnly: true });
  const rows = (sql: string) => db.prepare(sql).iterate() as Iterable<Record<string, unknown>>;
  /** Rows as [first column, second column]: the long scans skip building an object per row. */
  const pairs = (sql: string) => {
    const statement = db.prepare(sql);
    statement.setReturnArrays(true);
    return statement.iterate() as Iterable<readonly [unknown, unknown]>;
  };
  const maxSeq = (table: string) =>
    Number((db.prepare(`SELECT max(seq) AS n FROM ${table}`).get() as { n: number | null }).n ?? 0);
  const candidates = new Map<string, Candidate[]>();
  const largestItem = new Map<ItemKind, number>();
  const best = (tool: string) => {
    const found = new Best<Candidate>(perTool);
    return { found, done: () => candidates.set(tool, found.values()) };
  };
  const keywordCandidates = (tool: string, words: string[], extra: ToolArguments = {}, name = 'keywords') =>
    candidates.set(
      tool,
      [...new Set([...BROAD_WORDS, ...words])].map((word) => ({ args: { [name]: word, ...extra } })),
    );

  // ---- Companies (first: profiles' company interests need their sizes) ---------------------------
  const interestSize = new Map<string, number>();
  const companyItem = new Best<CompanyRecord>(3);
  const details = best('get_company_details');
  const products = best('get_company_products');
  const offices = best('get_company_locations');
  const domains = new Map<string, number[]>();
  for (const row of rows('SELECT body FROM companies')) {
    const c = JSON.parse(String(row.body)) as CompanyRecord;
    const { name, slug, networkUrl, description, summary, logoUrl, publicId, followerCount } = c;
    const itemSize = size({ name, slug, networkUrl, description, summary, logoUrl });
    interestSize.set(publicId, size({ name, slug, publicId, followerCount }));
    companyItem.offer(itemSize, () => c);
    // Locations and industries come as {id, name}; about 40 characters each besides the ids.
    const { products: list, internalId, industryId, headquartersId, locationIds, ...rest } = c;
    details.found.offer(size(rest) + 40 * (locationIds.length + 2), () => ({ args: { slug } }));
    products.found.offer(size(list.slice(0, PAGE)), () => ({ args: { slug } }));
    offices.found.offer(locationIds.length, () => ({ args: { slug } }));
    // A domain search answers the domain and its subdomains: count this company under each parent.
    const labels = (c.domain ?? '').split('.');
    for (let i = 0; i + 2 <= labels.length && c.domain; i += 1) {
      const parent = labels.slice(i).join('.');
      domains.set(parent, [...(domains.get(parent) ?? []), itemSize]);
    }
  }
  largestItem.set('company', companyItem.top);
  details.done();
  products.done();
  offices.done();
  const byDomain = best('search_companies_by_domain');
  for (const [domain, sizes] of domains) {
    const page = sizes.sort((a, b) => b - a).slice(0, PAGE);
    byDomain.found.offer(
      page.reduce((total, value) => total + value, 0),
      () => ({ args: { domain, offset: 0 } }),
    );
  }
  byDomain.done();
  const largeCompanies = companyItem.values();
  keywordCandidates(
    'search_companies_by_keyword',
    wordsOf(
      largeCompanies.flatMap((c) => [c.name, c.summary, c.description]),
      6,
    ),
    { offset: 0 },
  );
  candidates.set(
    'get_similar_companies',
    largeCompanies.map((c) => ({ args: { slug: c.slug } })),
  );

  // ---- People -------------------------------------------------------------------------------------
  const summarySize = new Uint16Array(maxSeq('people') + 1);
  const personItem = new Best<PersonRecord>(3);
  const sections = {
    details: best('get_profile_details'),
    contact: best('get_profile_contact'),
    experience: best('get_profile_full_experience'),
    education: best('get_profile_education'),
    certifications: best('get_profile_certifications'),
    courses: best('get_profile_courses'),
    volunteer: best('get_profile_volunteer_experience'),
    skills: best('get_profile_skills'),
    interests: best('get_profile_company_interests'),
  };
  for (const row of rows('SELECT seq, body FROM people')) {
    const p = JSON.parse(String(row.body)) as PersonRecord;
    const { publicId, username, fullName, headline, location, networkUrl } = p;
    const summary = { publicId, username, fullName, headline, location, networkUrl };
    const shown = <T>(section: PersonRecord['withheld'][number], items: T[]) =>
      p.withheld.includes(section) ? [] : items;
    const args = { username };
    summarySize[Number(row.seq)] = size(summary);
    personItem.offer(size(summary), () => p);
    sections.details.found.offer(
      size({
        ...summary,
        summary: p.summary,
        experience: shown('experience', p.positions).slice(0, 5),
        education: shown('education', p.education),
        skills: shown('skills', p.skills)
          .slice(0, 5)
          .map((skill) => skill.name),
      }),
      () => ({ args }),
    );
    sections.contact.found.offer(size(p.contact), () => ({ args }));
    sections.experience.found.offer(size(shown('experience', p.positions)), () => ({ args }));
    sections.education.found.offer(size(shown('education', p.education)), () => ({ args }));
    sections.certifications.found.offer(size(shown('certifications', p.certifications)), () => ({ args }));
    sections.courses.found.offer(size(shown('courses', p.courses)), () => ({ args }));
    sections.volunteer.found.offer(size(shown('volunteerExperience', p.volunteerExperience)), () => ({
      args,
    }));
    const skills = bestWindow(shown('skills', p.skills).map(size), PAGE);
    sections.skills.found.offer(skills.sum, () => ({ args: { username, start: skills.start } }));
    const interests = bestWindow(
      shown('companyInterests', p.interests).map((id) => interestSize.get(id) ?? 0),
      PAGE,
    );
    sections.interests.found.offer(interests.sum, () => ({ args: { username, start: interests.start } }));
  }
  for (const section of Object.values(sections)) section.done();
  largestItem.set('person', personItem.top);
  const largePeople = personItem.values();
  keywordCandidates(
    'search_people_by_keyword',
    wordsOf(
      largePeople.flatMap((p) => [p.fullName, p.headline]),
      6,
    ),
  );
  candidates.set(
    'get_similar_profiles',
    largePeople.map((p) => ({ args: { username: p.username } })),
  );
  const companyPeople = best('get_company_people');
  pageSums(
    pairs('SELECT company_slug, person FROM current_employment ORDER BY company_slug, person'),
    (seq) => summarySize[seq] ?? 0,
    true,
    (slug, _page, sum) => companyPeople.found.offer(sum, () => ({ args: { slug } })),
  );
  companyPeople.done();

  // ---- Posts, comments, reactions ----------------------------------------------------------------
  /** Stored length of each row's body (the public view drops only the short private fields). */
  const lengths = (table: string, where = '1') => {
    const lengthOf = new Uint32Array(maxSeq(table) + 1);
    for (const [seq, length] of pairs(`SELECT seq, length(body) FROM ${table} WHERE ${where}`))
      lengthOf[Number(seq)] = Number(length);
    return lengthOf;
  };
  const postLength = lengths('posts');
  const largestPosts = new Best<number>(3);
  for (const [seq, length] of postLength.entries()) largestPosts.offer(length, () => seq);
  const postAt = db.prepare('SELECT body FROM posts WHERE seq = ?');
  const largePosts = largestPosts
    .values()
    .map((seq) => JSON.parse(String((postAt.get(seq) as { body: string }).body)) as PostRecord);
  largestItem.set('post', largestPosts.top);
  candidates.set(
    'get_post',
    largePosts.map((post) => ({ args: { slug: post.slug } })),
  );
  const postWords = wordsOf(
    largePosts.map((post) => post.text),
    6,
  );
  keywordCandidates('search_posts_by_keyword', postWords);
  keywordCandidates('search_all_results_by_keyword', [
    ...postWords,
    ...wordsOf([largePeople[0]?.headline], 2),
  ]);

  const stream = (
    tool: string,
    sql: string,
    lengthOf: Uint32Array,
    argument: string,
    firstPageOnly: boolean,
  ) => {
    const found = best(tool);
    pageSums(
      pairs(sql),
      (seq) => lengthOf[seq] ?? 0,
      firstPageOnly,
      (group, page, sum) =>
        found.found.offer(sum, () => ({
          args: { [argument]: group, ...(tool === 'get_post_reactions' ? { reactionType: 'ALL' } : {}) },
          ...(firstPageOnly ? {} : { pagesToSkip: page }),
        })),
    );
    found.done();
  };
  stream(
    'get_profile_posts',
    'SELECT author_username, seq FROM posts WHERE author_username IS NOT NULL ORDER BY author_username, at DESC, internal_id',
    postLength,
    'username',
    false,
  );
  stream(
    'get_company_posts',
    'SELECT author_company_slug, seq FROM posts WHERE author_company_slug IS NOT NULL ORDER BY author_company_slug, at DESC, internal_id',
    postLength,
    'slug',
    true,
  );
  stream(
    'search_posts_by_hashtag',
    'SELECT tag, post FROM post_hashtags ORDER BY tag, at DESC, internal_id, post',
    postLength,
    'hashtag',
    true,
  );
  const commentLength = lengths('comments');
  stream(
    'get_profile_comments',
    'SELECT author_username, seq FROM comments ORDER BY author_username, at DESC, internal_id',
    commentLength,
    'username',
    false,
  );
  stream(
    'get_post_comments',
    'SELECT post_slug, seq FROM comments ORDER BY post_slug, at DESC, internal_id',
    commentLength,
    'slug',
    true,
  );
  // Reactions to comments are dropped from a profile's pages: they count as nothing.
  const reactionLength = lengths('reactions', 'on_comment = 0');
  stream(
    'get_profile_reactions',
    'SELECT reactor_username, seq FROM reactions ORDER BY reactor_username, at DESC, internal_id',
    reactionLength,
    'username',
    false,
  );
  stream(
    'get_post_reactions',
    'SELECT post_slug, seq FROM reactions WHERE on_comment = 0 ORDER BY post_slug, at DESC, internal_id',
    reactionLength,
    'slug',
    true,
  );

  // ---- Jobs ---------------------------------------------------------------------------------------
  const jobSummarySize = new Uint32Array(maxSeq('jobs') + 1);
  const jobDetails = best('get_job_details');
  const jobItem = new Best<JobRecord>(3);
  for (const row of rows('SELECT seq, body FROM jobs')) {
    const job = JSON.parse(String(row.body)) as JobRecord;
    const { jobId, url, title, companyName, companySlug, location, postedAt, employmentType } = job;
    const summary = size({ jobId, url, title, companyName, companySlug, location, postedAt, employmentType });
    jobSummarySize[Number(row.seq)] = summary;
    jobItem.offer(summary, () => job);
    jobDetails.found.offer(String(row.body).length, () => ({ args: { url } }));
  }
  jobDetails.done();
  largestItem.set('job', jobItem.top);
  keywordCandidates(
    'search_jobs',
    wordsOf(
      jobItem.values().flatMap((job) => [job.title, job.companyName, job.location]),
      6,
    ),
  );
  stream(
    'get_company_jobs',
    'SELECT company_slug, seq FROM jobs WHERE company_slug IS NOT NULL ORDER BY company_slug, at DESC, internal_id',
    jobSummarySize,
    'slug',
    true,
  );

  // ---- Small reference tables --------------------------------------------------------------------
  const named = (table: string, kind: ItemKind, tool: string, argument: string) => {
    const largest = new Best<string>(3);
    for (const row of rows(`SELECT body FROM ${table}`)) {
      const record = JSON.parse(String(row.body)) as { name: string };
      largest.offer(String(row.body).length, () => record.name);
    }
    largestItem.set(kind, largest.top);
    keywordCandidates(tool, wordsOf(largest.values(), 6), {}, argument);
    return largest.values();
  };
  const schoolNames = named('schools', 'school', 'search_schools_by_keyword', 'keywords');
  const locationNames = named('locations', 'location', 'search_locations_by_keyword', 'keywords');
  const industryNames = named('industries', 'industry', 'search_industries_by_keyword', 'query');
  // Typeahead matches name prefixes: the first letters of the longest names, and single letters.
  candidates.set(
    'get_search_typeahead',
    [
      ...new Set([
        'a',
        'e',
        's',
        ...[...schoolNames, ...locationNames, ...industryNames].map((n) => n.slice(0, 3)),
      ]),
    ].map((query) => ({ args: { query } })),
  );
  candidates.set('search_service_categories', [{ args: {} }]);
  db.close();
  return { candidates, largestItem };
}
