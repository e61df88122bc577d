/**
 * Lookup tables over a Dataset, built once per adapter: records by identifier and the lists each
 * lookup reads (a person's streams, a post's comments, a company's jobs). Lookups by identifier
 * throw ResourceNotFoundError, so every operation reports an unknown input the same way.
 */
import { ResourceNotFoundError } from '../../errors.js';
import type { CompanyRef, ProfileRef } from '../data-source.js';
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
} from './model.js';

/**
 * Usernames and slugs: ASCII letters match in any case, other letters exactly after NFC (the
 * network lowercases ASCII in its URLs but keeps "é" and "Ü" distinct from "e" and "U").
 */
export function identifierKey(value: string): string {
  return value.normalize('NFC').replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

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

export class DatasetIndex {
  private readonly peopleByUsername: Map<string, PersonRecord>;
  private readonly peopleByPublicId: Map<string, PersonRecord>;
  private readonly companiesBySlug: Map<string, CompanyRecord>;
  private readonly companiesByPublicId: Map<string, CompanyRecord>;
  private readonly postsBySlug: Map<string, PostRecord>;
  private readonly jobsById: Map<string, JobRecord>;
  readonly locationsById: Map<string, LocationRecord>;
  readonly industriesById: Map<string, IndustryRecord>;
  readonly postsByAuthor: Map<string, PostRecord[]>;
  readonly postsByCompany: Map<string, PostRecord[]>;
  readonly commentsByAuthor: Map<string, CommentRecord[]>;
  readonly commentsByPost: Map<string, CommentRecord[]>;
  /** Raw streams: reactions to posts and to comments. */
  readonly reactionsByReactor: Map<string, ReactionRecord[]>;
  /** Reactions to the post itself only. */
  readonly reactionsByPost: Map<string, ReactionRecord[]>;
  readonly jobsByCompany: Map<string, JobRecord[]>;
  /** People whose current position is at the company (by slug). */
  readonly employeesByCompany: Map<string, PersonRecord[]>;

  constructor(readonly dataset: Dataset) {
    this.peopleByUsername = indexBy(dataset.people, (person) => identifierKey(person.username));
    this.peopleByPublicId = indexBy(dataset.people, (person) => person.publicId);
    this.companiesBySlug = indexBy(dataset.companies, (company) => identifierKey(company.slug));
    this.companiesByPublicId = indexBy(dataset.companies, (company) => company.publicId);
    this.postsBySlug = indexBy(dataset.posts, (post) => post.slug.normalize('NFC'));
    this.jobsById = indexBy(dataset.jobs, (job) => job.jobId);
    this.locationsById = indexBy(dataset.locations, (location) => location.id);
    this.industriesById = indexBy(dataset.industries, (industry) => industry.id);
    this.postsByAuthor = groupBy(dataset.posts, (post) => post.authorUsername);
    this.postsByCompany = groupBy(dataset.posts, (post) => post.authorCompanySlug);
    this.commentsByAuthor = groupBy(dataset.comments, (comment) => comment.authorUsername);
    this.commentsByPost = groupBy(dataset.comments, (comment) => comment.postSlug);
    this.reactionsByReactor = groupBy(dataset.reactions, (reaction) => reaction.reactorUsername);
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
    this.employeesByCompany = new Map(
      [...groupBy(employments, (employment) => employment.slug)].map(([slug, list]) => [
        slug,
        list.map((entry) => entry.person),
      ]),
    );
  }

  personByUsername(username: string): PersonRecord {
    return found(
      this.peopleByUsername.get(identifierKey(username)),
      `No profile has the username "${username}".`,
    );
  }

  person(ref: ProfileRef): PersonRecord {
    if ('username' in ref) return this.personByUsername(ref.username);
    return found(this.peopleByPublicId.get(ref.publicId), `No profile has the publicId "${ref.publicId}".`);
  }

  company(ref: CompanyRef): CompanyRecord {
    if ('slug' in ref)
      return found(
        this.companiesBySlug.get(identifierKey(ref.slug)),
        `No company has the slug "${ref.slug}".`,
      );
    return found(
      this.companiesByPublicId.get(ref.publicId),
      `No company has the publicId "${ref.publicId}".`,
    );
  }

  companyById(publicId: string): CompanyRecord | undefined {
    return this.companiesByPublicId.get(publicId);
  }

  post(slug: string): PostRecord {
    return found(this.postsBySlug.get(slug.normalize('NFC')), `No post has the slug "${slug}".`);
  }

  job(jobId: string): JobRecord {
    return found(this.jobsById.get(jobId), `No job has the id "${jobId}".`);
  }
}
