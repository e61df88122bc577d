/**
 * The dataset reader: what DatasetSource needs from wherever the dataset's records are kept. It answers
 * stored records (model.ts) in the order the port promises; DatasetSource turns them into the port's
 * public shapes once, whichever reader is behind it. Two readers: the dataset database (SQLite with
 * indexes and full-text search, database/database-reader.ts), which serves every dataset, and the in-memory one
 * (memory-reader.ts), kept as the plain reference the database's answers are tested against.
 *
 * Lookups by identifier throw ResourceNotFoundError with the messages below, so both readers report an
 * unknown input alike. Rankings follow search.ts (relevance, then weight, then the stable key).
 */
import type { ReactionType } from '../../../schemas/parameters.js';
import type { IdName } from '../../../schemas/records.js';
import type {
  ActivityKind,
  CompanyRef,
  CompanySearchFilters,
  PeopleSearchFilters,
  ProfileRef,
  Window,
  WindowRequest,
} from '../data-source.js';
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
} from './model.js';

/** The raw items of each activity stream, newest first. */
export interface ActivityRecords {
  posts: PostRecord;
  comments: CommentRecord;
  reactions: ReactionRecord;
}

export type SearchAllHit =
  | { type: 'person'; record: PersonRecord }
  | { type: 'company'; record: CompanyRecord }
  | { type: 'school'; record: SchoolRecord }
  | { type: 'post'; record: PostRecord }
  | { type: 'job'; record: JobRecord };

export type TypeaheadHit =
  | { type: 'person'; record: PersonRecord }
  | { type: 'company'; record: CompanyRecord }
  | { type: 'school'; record: SchoolRecord }
  | { type: 'location'; record: LocationRecord }
  | { type: 'industry'; record: IndustryRecord };

/** Job fields job search facets count. */
export const facetFields = ['location', 'companyName', 'employmentType', 'seniority'] as const;
export type FacetField = (typeof facetFields)[number];

export interface JobFieldCounts {
  matched: number;
  /** Per field: each present value and how many matching jobs have it, in no particular order. */
  counts: Record<FacetField, [value: string, jobs: number][]>;
}

export interface DatasetReader {
  /** The one fetch time every record reports. */
  readonly fetchedAt: string;

  person(ref: ProfileRef): PersonRecord;
  company(ref: CompanyRef): CompanyRecord;
  post(slug: string): PostRecord;
  job(jobId: string): JobRecord;
  /** A location or industry by id, for company details; null when the dataset has neither. */
  idName(id: string): IdName | null;
  /** Companies by publicId in the order asked, unknown ones left out. */
  companiesByPublicId(publicIds: readonly string[]): CompanyRecord[];

  /** A window of a person's raw activity stream (keyed by the stored username) and its length. */
  activity<K extends ActivityKind>(
    username: string,
    kind: K,
    window: WindowRequest,
  ): Window<ActivityRecords[K]>;
  /** Up to `limit` items of a company's lists (by its stored slug), in dataset order. */
  companyPosts(slug: string, limit: number): PostRecord[];
  companyJobs(slug: string, limit: number): JobRecord[];
  /** People with a current position at the company. */
  companyEmployees(slug: string, limit: number): PersonRecord[];
  companyCounts(slug: string): { employees: number; jobs: number; posts: number };
  /** How many people have a current, and an ended, position at the company. */
  staffCounts(publicId: string): { current: number; past: number };
  postComments(slug: string, limit: number): CommentRecord[];
  /** Reactions to the post itself (not to its comments), of one type or all. */
  postReactions(slug: string, reactionType: ReactionType | 'ALL', limit: number): ReactionRecord[];

  /**
   * The people most like the person among a bounded pool: for each of the person's current employers
   * and each of their skills, the SIMILAR_POOL best-ranked people with a current position there or
   * listing that skill (the person left out). Each scores 3 per current position at one of those
   * employers, 1 per skill in common and 1 for the same location; ties fall to search's rank.
   * The pool keeps the cost bounded by the person, not by the dataset.
   */
  similarProfiles(person: PersonRecord, limit: number): PersonRecord[];
  /** Same industry 2, a shared location 1; followers break ties. */
  similarCompanies(company: CompanyRecord, limit: number): CompanyRecord[];

  searchCompanies(filters: CompanySearchFilters, window: WindowRequest): Window<CompanyRecord>;
  /** The domain itself first, then its subdomains; by name within each. */
  companiesByDomain(domain: string, window: WindowRequest): Window<CompanyRecord>;
  searchPeople(filters: PeopleSearchFilters, limit: number): PersonRecord[];
  searchSchools(keywords: string, limit: number): SchoolRecord[];
  searchPosts(keywords: string, limit: number): PostRecord[];
  searchJobs(keywords: string, limit: number): JobRecord[];
  searchLocations(keywords: string, limit: number): LocationRecord[];
  searchIndustries(query: string, limit: number): IndustryRecord[];
  searchAll(keywords: string, limit: number): SearchAllHit[];
  typeahead(query: string, limit: number): TypeaheadHit[];
  /** Posts carrying the hashtag (lowercase, without "#"), newest first. */
  postsByHashtag(tag: string, limit: number): PostRecord[];
  serviceCategories(limit: number): Stored<IdName>[];
  /** Locations where some company is and industries some company is in (any order). */
  companyFilterValues(): { locations: LocationRecord[]; industries: IndustryRecord[] };
  jobFieldCounts(keywords: string): JobFieldCounts;
}

/**
 * Usernames and slugs: ASCII letters match in any case, other letters exactly after NFC (the
 * network lowercases ASCII in its URLs but keeps "é" and "Ü" distinct from "e" and "U").
 */
export function identifierKey(value: string): string {
  return value.normalize('NFC').replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** People per employer and per skill that similar profiles considers. */
export const SIMILAR_POOL = 25;

/** What similar profiles draws its pool from: the person's current employers and skills, each once. */
export interface SimilarityKeys {
  employers: string[];
  skills: string[];
}

export function similarityKeys(person: PersonRecord): SimilarityKeys {
  return {
    employers: [
      ...new Set(
        person.positions.flatMap((p) => (p.isCurrent && p.companySlug !== null ? [p.companySlug] : [])),
      ),
    ],
    skills: [...new Set(person.skills.map((skill) => skill.name))],
  };
}

/** How like `person` each other person is (see DatasetReader.similarProfiles). */
export function similarityTo(person: PersonRecord, keys: SimilarityKeys): (other: PersonRecord) => number {
  const employers = new Set(keys.employers);
  const skills = new Set(keys.skills);
  return (other) =>
    3 *
      other.positions.filter((p) => p.isCurrent && p.companySlug !== null && employers.has(p.companySlug))
        .length +
    other.skills.filter((skill) => skills.has(skill.name)).length +
    (other.location === person.location ? 1 : 0);
}

/** Post slugs match exactly after NFC. */
export const postKey = (slug: string) => slug.normalize('NFC');

/** "https://www.Example.com/" and "example.com." both read as "example.com". */
export function normalizeDomain(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/^www\./, '')
    .replace(/\.$/, '');
}

/** The not-found messages both readers give. */
export const notFound = {
  username: (username: string) => `No profile has the username "${username}".`,
  profileId: (publicId: string) => `No profile has the publicId "${publicId}".`,
  slug: (slug: string) => `No company has the slug "${slug}".`,
  companyId: (publicId: string) => `No company has the publicId "${publicId}".`,
  post: (slug: string) => `No post has the slug "${slug}".`,
  job: (jobId: string) => `No job has the id "${jobId}".`,
};
