/**
 * The in-memory dataset reader, a test oracle: lookup tables over a Dataset built once, and every
 * search a scan ranked by search.ts. It is the plain reference the dataset database's queries are
 * tested against (test/unit/dataset-database.test.ts, test/api/dataset-database.test.ts): simple
 * enough to be obviously right, far too slow and large for a real dataset, which every service
 * process (npm start, Lambda) reads from the database instead. It implements the DatasetReader the
 * database's queries define, so tsc asks for a reference answer to each new query.
 */
import type { ReactionType } from '../../schemas/parameters.js';
import type { IdName } from '../../schemas/records.js';
import { ResourceNotFoundError } from '../../shared/errors.js';
import type {
  ActivityKind,
  CompanyRef,
  CompanySearchFilters,
  PeopleSearchFilters,
  ProfileRef,
  Window,
  WindowRequest,
} from '../../shared/sources/data-source.js';
import type { DatasetReader } from '../../shared/sources/dataset/database/database-reader.js';
import type {
  CommentRecord,
  CompanyRecord,
  Dataset,
  IndustryRecord,
  JobRecord,
  LocationRecord,
  PersonRecord,
  PostRecord,
  ReactionRecord,
} from '../../shared/sources/dataset/model.js';
import { type PersonDetails, personDetailsOf } from '../../shared/sources/dataset/person-details.js';
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
} from '../../shared/sources/dataset/reader-rules.js';
import {
  byScore,
  normalizeText,
  ordered,
  rank,
  type SearchDoc,
} from '../../shared/sources/dataset/search.js';
import { searchDocs } from '../../shared/sources/dataset/search-docs.js';

function indexBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  return new Map(items.map((item) => [key(item), item]));
}

/** Groups keep the dataset's order (newest first for activity). */
function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = key(item);
    if (group === null) continue;
    const list = groups.get(group);
    if (list) list.push(item);
    else groups.set(group, [item]);
  }
  return groups;
}

function found<T>(item: T | undefined, message: string): T {
  if (item === undefined) throw new ResourceNotFoundError(message);
  return item;
}

function windowOf<T>(items: readonly T[], window: WindowRequest): Window<T> {
  const start = Math.max(0, window.start);
  return { items: items.slice(start, start + Math.max(0, window.count)), total: items.length };
}

/** Every filter given must match; within one filter any listed value does. An empty list restricts nothing. */
function companyFilter(filters: CompanySearchFilters): (company: CompanyRecord) => boolean {
  const anyOf = <T>(wanted: readonly T[] | undefined, matches: (value: T) => boolean) =>
    !wanted || wanted.length === 0 || wanted.some(matches);
  return (company) =>
    anyOf(filters.locationIds, (id) => company.locationIds.includes(id)) &&
    anyOf(filters.industryIds, (id) => company.industryId === id) &&
    anyOf(filters.companySizes, (code) => company.sizeCode === code) &&
    (filters.hasJobs === undefined || company.hasJobs === filters.hasJobs);
}

/** currentCompany and pastCompany each require a position there (current, ended); both narrow. */
function peopleFilter(filters: PeopleSearchFilters): (person: PersonRecord) => boolean {
  const workedAt = (person: PersonRecord, publicId: string | undefined, current: boolean) =>
    publicId === undefined ||
    person.positions.some(
      (position) => position.companyPublicId === publicId && position.isCurrent === current,
    );
  return (person) =>
    workedAt(person, filters.currentCompany, true) && workedAt(person, filters.pastCompany, false);
}

function countValues(values: readonly (string | null)[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const value of values) if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts];
}

class MemoryDatasetReader implements DatasetReader {
  readonly fetchedAt: string;
  private readonly peopleByUsername: Map<string, PersonRecord>;
  private readonly peopleByPublicId: Map<string, PersonRecord>;
  private readonly companiesBySlug: Map<string, CompanyRecord>;
  private readonly companiesByPublicIdMap: Map<string, CompanyRecord>;
  private readonly postsBySlug: Map<string, PostRecord>;
  private readonly jobsById: Map<string, JobRecord>;
  private readonly locationsById: Map<string, LocationRecord>;
  private readonly industriesById: Map<string, IndustryRecord>;
  private readonly streams: { [K in ActivityKind]: Map<string, ActivityRecords[K][]> };
  private readonly postsByCompany: Map<string, PostRecord[]>;
  private readonly commentsByPost: Map<string, CommentRecord[]>;
  /** Reactions to the post itself only. */
  private readonly reactionsByPost: Map<string, ReactionRecord[]>;
  private readonly jobsByCompany: Map<string, JobRecord[]>;
  /** People whose current position is at the company (by slug). */
  private readonly employeesByCompany: Map<string, PersonRecord[]>;
  /** People in search's tie order: followers, then id. */
  private readonly peopleByRank: PersonRecord[];

  constructor(private readonly dataset: Dataset) {
    this.fetchedAt = dataset.fetchedAt;
    this.peopleByUsername = indexBy(dataset.people, (person) => identifierKey(person.username));
    this.peopleByPublicId = indexBy(dataset.people, (person) => person.publicId);
    this.companiesBySlug = indexBy(dataset.companies, (company) => identifierKey(company.slug));
    this.companiesByPublicIdMap = indexBy(dataset.companies, (company) => company.publicId);
    this.postsBySlug = indexBy(dataset.posts, (post) => postKey(post.slug));
    this.jobsById = indexBy(dataset.jobs, (job) => job.jobId);
    this.locationsById = indexBy(dataset.locations, (location) => location.id);
    this.industriesById = indexBy(dataset.industries, (industry) => industry.id);
    this.streams = {
      posts: groupBy(dataset.posts, (post) => post.authorUsername),
      comments: groupBy(dataset.comments, (comment) => comment.authorUsername),
      reactions: groupBy(dataset.reactions, (reaction) => reaction.reactorUsername),
    };
    this.postsByCompany = groupBy(dataset.posts, (post) => post.authorCompanySlug);
    this.commentsByPost = groupBy(dataset.comments, (comment) => comment.postSlug);
    this.reactionsByPost = groupBy(dataset.reactions, (reaction) =>
      reaction.commentId === null ? reaction.postSlug : null,
    );
    this.jobsByCompany = groupBy(dataset.jobs, (job) => job.companySlug);
    const employments = dataset.people.flatMap((person) =>
      [
        ...new Set(
          person.positions.filter((position) => position.isCurrent).map((position) => position.companySlug),
        ),
      ].map((slug) => ({ slug, person })),
    );
    this.peopleByRank = dataset.people
      .map((person) => ({ item: person, score: 1, weight: person.followerCount, key: person.internalId }))
      .sort(byScore)
      .map((entry) => entry.item);
    this.employeesByCompany = new Map(
      [...groupBy(employments, (employment) => employment.slug)].map(([slug, list]) => [
        slug,
        list.map((entry) => entry.person),
      ]),
    );
  }

  /** Derived from the whole record on every call: the oracle of the database's stored copy. */
  personDetails(ref: ProfileRef): PersonDetails {
    return personDetailsOf(this.person(ref));
  }

  person(ref: ProfileRef): PersonRecord {
    if ('username' in ref)
      return found(this.peopleByUsername.get(identifierKey(ref.username)), notFound.username(ref.username));
    return found(this.peopleByPublicId.get(ref.publicId), notFound.profileId(ref.publicId));
  }

  company(ref: CompanyRef): CompanyRecord {
    if ('slug' in ref)
      return found(this.companiesBySlug.get(identifierKey(ref.slug)), notFound.slug(ref.slug));
    return found(this.companiesByPublicIdMap.get(ref.publicId), notFound.companyId(ref.publicId));
  }

  post(slug: string): PostRecord {
    return found(this.postsBySlug.get(postKey(slug)), notFound.post(slug));
  }

  job(jobId: string): JobRecord {
    return found(this.jobsById.get(jobId), notFound.job(jobId));
  }

  idName(id: string): IdName | null {
    const record = this.locationsById.get(id) ?? this.industriesById.get(id);
    return record ? { id: record.id, name: record.name } : null;
  }

  companiesByPublicId(publicIds: readonly string[]): CompanyRecord[] {
    return publicIds
      .map((publicId) => this.companiesByPublicIdMap.get(publicId))
      .filter((company) => company !== undefined);
  }

  activity<K extends ActivityKind>(username: string, kind: K, window: WindowRequest) {
    const stream: Map<string, ActivityRecords[K][]> = this.streams[kind];
    return windowOf(stream.get(username) ?? [], window);
  }

  companyPosts(slug: string, limit: number) {
    return (this.postsByCompany.get(slug) ?? []).slice(0, limit);
  }

  companyJobs(slug: string, limit: number) {
    return (this.jobsByCompany.get(slug) ?? []).slice(0, limit);
  }

  companyEmployees(slug: string, limit: number) {
    return (this.employeesByCompany.get(slug) ?? []).slice(0, limit);
  }

  companyCounts(slug: string) {
    return {
      employees: this.employeesByCompany.get(slug)?.length ?? 0,
      jobs: this.jobsByCompany.get(slug)?.length ?? 0,
      posts: this.postsByCompany.get(slug)?.length ?? 0,
    };
  }

  staffCounts(publicId: string) {
    const count = (filters: PeopleSearchFilters) => this.dataset.people.filter(peopleFilter(filters)).length;
    return {
      current: count({ keywords: '', currentCompany: publicId }),
      past: count({ keywords: '', pastCompany: publicId }),
    };
  }

  postComments(slug: string, limit: number) {
    return (this.commentsByPost.get(slug) ?? []).slice(0, limit);
  }

  postReactions(slug: string, reactionType: ReactionType | 'ALL', limit: number) {
    return (this.reactionsByPost.get(slug) ?? [])
      .filter((reaction) => reactionType === 'ALL' || reaction.reactionType === reactionType)
      .slice(0, limit);
  }

  similarProfiles(person: PersonRecord, limit: number) {
    const firstOfPool = (belongs: (other: PersonRecord) => boolean) =>
      this.peopleByRank.filter(belongs).slice(0, SIMILAR_POOL);
    const keys = similarityKeys(person);
    const pool = new Set([
      ...keys.employers.flatMap((slug) =>
        firstOfPool((other) => other.positions.some((p) => p.isCurrent && p.companySlug === slug)),
      ),
      ...keys.skills.flatMap((name) =>
        firstOfPool((other) => other.skills.some((skill) => skill.name === name)),
      ),
    ]);
    const similarity = similarityTo(person, keys);
    // By id: the record passed in is the caller's own copy, not the one in the pool.
    const others = [...pool].filter((other) => other.internalId !== person.internalId);
    const scored = others.map((other) => ({
      item: other,
      score: similarity(other),
      weight: other.followerCount,
      key: other.internalId,
    }));
    return ordered(scored).slice(0, limit);
  }

  similarCompanies(company: CompanyRecord, limit: number) {
    const scored = this.dataset.companies
      .filter((other) => other.internalId !== company.internalId)
      .map((other) => ({
        item: other,
        score:
          (other.industryId === company.industryId ? 2 : 0) +
          (other.locationIds.some((id) => company.locationIds.includes(id)) ? 1 : 0),
        weight: other.followerCount,
        key: other.internalId,
      }));
    return ordered(scored).slice(0, limit);
  }

  searchCompanies(filters: CompanySearchFilters, window: WindowRequest) {
    const matches = rank(this.dataset.companies, filters.keywords, searchDocs.company).filter(
      companyFilter(filters),
    );
    return windowOf(matches, window);
  }

  companiesByDomain(domain: string, window: WindowRequest) {
    const wanted = normalizeDomain(domain);
    const scored = this.dataset.companies.map((company) => ({
      item: company,
      score:
        !wanted || !company.domain
          ? 0
          : company.domain === wanted
            ? 2
            : company.domain.endsWith(`.${wanted}`)
              ? 1
              : 0,
      weight: 0,
      key: `${normalizeText(company.name)}|${company.internalId}`,
    }));
    return windowOf(ordered(scored), window);
  }

  searchPeople(filters: PeopleSearchFilters, limit: number) {
    return rank(this.dataset.people, filters.keywords, searchDocs.person)
      .filter(peopleFilter(filters))
      .slice(0, limit);
  }

  searchSchools(keywords: string, limit: number) {
    return rank(this.dataset.schools, keywords, searchDocs.school).slice(0, limit);
  }

  searchPosts(keywords: string, limit: number) {
    return rank(this.dataset.posts, keywords, searchDocs.post).slice(0, limit);
  }

  searchJobs(keywords: string, limit: number) {
    return rank(this.dataset.jobs, keywords, searchDocs.job).slice(0, limit);
  }

  searchLocations(keywords: string, limit: number) {
    return rank(this.dataset.locations, keywords, searchDocs.place).slice(0, limit);
  }

  searchIndustries(query: string, limit: number) {
    return rank(this.dataset.industries, query, searchDocs.place).slice(0, limit);
  }

  searchAll(keywords: string, limit: number): SearchAllHit[] {
    const { people, companies, schools, posts, jobs } = this.dataset;
    const hits: SearchAllHit[] = [
      ...people.map((record) => ({ type: 'person' as const, record })),
      ...companies.map((record) => ({ type: 'company' as const, record })),
      ...schools.map((record) => ({ type: 'school' as const, record })),
      ...posts.map((record) => ({ type: 'post' as const, record })),
      ...jobs.map((record) => ({ type: 'job' as const, record })),
    ];
    return rank(hits, keywords, hitDoc).slice(0, limit);
  }

  typeahead(query: string, limit: number): TypeaheadHit[] {
    const { people, companies, schools, locations, industries } = this.dataset;
    const hits: TypeaheadHit[] = [
      ...people.map((record) => ({ type: 'person' as const, record })),
      ...companies.map((record) => ({ type: 'company' as const, record })),
      ...schools.map((record) => ({ type: 'school' as const, record })),
      ...locations.map((record) => ({ type: 'location' as const, record })),
      ...industries.map((record) => ({ type: 'industry' as const, record })),
    ];
    return rank(hits, query, hitDoc).slice(0, limit);
  }

  postsByHashtag(tag: string, limit: number) {
    return this.dataset.posts.filter((post) => post.hashtags.includes(tag)).slice(0, limit);
  }

  serviceCategories(limit: number) {
    return this.dataset.serviceCategories.slice(0, limit);
  }

  companyFilterValues() {
    const locationIds = new Set(this.dataset.companies.flatMap((company) => company.locationIds));
    const industryIds = new Set(this.dataset.companies.map((company) => company.industryId));
    return {
      locations: this.dataset.locations.filter((location) => locationIds.has(location.id)),
      industries: this.dataset.industries.filter((industry) => industryIds.has(industry.id)),
    };
  }

  jobFieldCounts(keywords: string): JobFieldCounts {
    const matches = rank(this.dataset.jobs, keywords, searchDocs.job);
    const counts = Object.fromEntries(
      facetFields.map((field) => [field, countValues(matches.map((job) => job[field]))]),
    ) as Record<FacetField, [string, number][]>;
    return { matched: matches.length, counts };
  }
}

/** A hit of a mixed search reads as its record does. */
function hitDoc(hit: SearchAllHit | TypeaheadHit): SearchDoc {
  switch (hit.type) {
    case 'person':
      return searchDocs.person(hit.record);
    case 'company':
      return searchDocs.company(hit.record);
    case 'school':
      return searchDocs.school(hit.record);
    case 'post':
      return searchDocs.post(hit.record);
    case 'job':
      return searchDocs.job(hit.record);
    default:
      return searchDocs.place(hit.record);
  }
}

/**
 * The reference reader over `dataset`. The port's contract is that callers own what they are
 * answered (the database reader parses each row afresh), so it answers copies of the records it holds.
 */
export function memoryDatasetReader(dataset: Dataset): DatasetReader {
  const reader = new MemoryDatasetReader(dataset);
  return new Proxy(reader, {
    get(target, name, receiver) {
      const member = Reflect.get(target, name, receiver);
      return typeof member === 'function'
        ? (...args: unknown[]) => structuredClone(member.apply(target, args))
        : member;
    },
  });
}
