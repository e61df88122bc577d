/**
 * What the dataset's readers share: the raw shapes some queries answer (activity streams, mixed search
 * hits, job field counts) and the rules the database's queries (database/database-reader.ts), the
 * database's build and the tests' reference reader all follow: how identifiers and domains compare,
 * which people count as similar, and the not-found messages, so every reader reports an unknown input
 * alike.
 */
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

/** How like `person` each other person is (see DatabaseDatasetReader.similarProfiles). */
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

/** The not-found messages every reader gives. */
export const notFound = {
  username: (username: string) => `No profile has the username "${username}".`,
  profileId: (publicId: string) => `No profile has the publicId "${publicId}".`,
  slug: (slug: string) => `No company has the slug "${slug}".`,
  companyId: (publicId: string) => `No company has the publicId "${publicId}".`,
  post: (slug: string) => `No post has the slug "${slug}".`,
  job: (jobId: string) => `No job has the id "${jobId}".`,
};
