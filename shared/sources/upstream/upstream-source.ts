/**
 * The DataSource port over another service's /api/v2 (docs/upstream.md has the whole mapping). Each
 * method asks the v2 route of the catalog operation that answers it (schemas/v2-routes.ts), so paths
 * and identifier placement come from the same list our own /api/v2 is mounted from, and reads the
 * answer through that operation's public v2 envelope, so whatever the upstream adds is stripped and
 * whatever it gets wrong is a 502. Where the port wants more than one answer carries:
 *
 * - a profile window's total: a page that ends the list gives it; otherwise /counts does;
 * - a company search window: v2 pages say whether more follow, never how many (SearchWindow);
 * - an activity stream's position: the upstream's own cursor, kept behind ours;
 * - a profile known by publicId, where the route takes a username: profile details by id first.
 *
 * Records from here carry no provider-private fields (v2 answers are public bodies).
 */
import type * as z from 'zod';
import { type CursorPaging, v2EnvelopeSchema } from '../../../schemas/envelope.js';
import type { OperationDefinition } from '../../../schemas/operation-definition.js';
import * as companies from '../../../schemas/operations/companies.js';
import * as jobs from '../../../schemas/operations/jobs.js';
import * as posts from '../../../schemas/operations/posts.js';
import * as profiles from '../../../schemas/operations/profiles.js';
import * as searches from '../../../schemas/operations/search.js';
import type { ReactionType } from '../../../schemas/parameters.js';
import type {
  CompanySearchItem,
  IdName,
  JobSummary,
  Post,
  Product,
  ProfileSummary,
  School,
  SearchAllItem,
  TypeaheadItem,
} from '../../../schemas/records.js';
import { v2RoutesOf } from '../../../schemas/v2-routes.js';
import { InvalidRequestError } from '../../errors.js';
import type {
  ActivityItems,
  ActivityKind,
  CompanyRef,
  CompanySearchFilters,
  DataSource,
  PeopleSearchFilters,
  ProfileDetailsResult,
  ProfileListName,
  ProfileLists,
  ProfileRef,
  SearchWindow,
  StreamPage,
  Window,
  WindowRequest,
} from '../data-source.js';
import type { UpstreamClient } from './upstream-client.js';

/** The network URLs /api/v2 takes for posts and jobs, which it looks up by URL only. */
const NETWORK_ORIGIN = 'https://www.linkedin.com';

/** The identifier a route fills, by its v1 name: `username`, `publicId`, `slug`, `url`, `hashtag`. */
interface Identifier {
  name: string;
  value: string;
}

type Query = Record<string, string | undefined>;

interface Answer<D extends OperationDefinition> {
  data: z.output<D['data']>;
  paging: unknown;
  meta: Record<string, unknown>;
}

interface Page<T> {
  items: T[];
  hasMore: boolean;
}

const PROFILE_LISTS = {
  positions: profiles.profileExperience,
  education: profiles.profileEducation,
  certifications: profiles.profileCertifications,
  courses: profiles.profileCourses,
  volunteerExperience: profiles.profileVolunteerExperience,
  languages: profiles.profileLanguages,
  honors: profiles.profileHonors,
  organizations: profiles.profileOrganizations,
} as const satisfies Record<ProfileListName, OperationDefinition>;

const ACTIVITY_STREAMS = {
  posts: profiles.profilePosts,
  comments: profiles.profileComments,
  reactions: profiles.profileReactions,
} as const satisfies Record<ActivityKind, OperationDefinition>;

const byUsername = (value: string): Identifier => ({ name: 'username', value });
const bySlug = (value: string): Identifier => ({ name: 'slug', value });

/** The route of `operation` that takes `identifier` (none: a search). */
function routeOf(operation: OperationDefinition, identifier: string | undefined) {
  const route = v2RoutesOf([operation]).find((entry) => entry.identifier === identifier);
  if (!route) throw new Error(`No /api/v2 route serves ${operation.id} by ${identifier ?? 'query'}.`);
  return route;
}

/**
 * Reads pages from `window.start` until the window is full or the list ends. `read` counts the items
 * seen from the start (more than the window when a page overshoots it); `ended` is whether the last
 * page said no more follow.
 */
async function readWindow<T>(window: WindowRequest, page: (position: number) => Promise<Page<T>>) {
  const items: T[] = [];
  let ended = false;
  while (!ended && items.length < window.count) {
    const next = await page(window.start + items.length);
    items.push(...next.items);
    ended = !next.hasMore || next.items.length === 0;
  }
  return {
    items: items.slice(0, window.count),
    hasMore: !ended || items.length > window.count,
    read: items.length,
    ended,
  };
}

export class UpstreamSource implements DataSource {
  private readonly envelopes = new Map<string, z.ZodType>();

  constructor(private readonly client: UpstreamClient) {}

  /** One v2 answer of `operation`, checked against its envelope. */
  private async ask<D extends OperationDefinition>(
    operation: D,
    identifier: Identifier | undefined,
    query: Query,
    signal: AbortSignal,
  ): Promise<Answer<D>> {
    const route = routeOf(operation, identifier?.name);
    return (await this.client.fetch(
      { route, identifier: identifier?.value, query },
      this.envelopeOf(operation),
      signal,
    )) as Answer<D>;
  }

  /**
   * The list a list-shaped answer holds under `field`. Its envelope checked the items against the
   * operation's record schema; the type says which record that is, since the catalog's list
   * builders keep only a general item type.
   */
  private async list<T>(
    operation: OperationDefinition,
    field: string,
    identifier: Identifier | undefined,
    query: Query,
    signal: AbortSignal,
  ): Promise<T[]> {
    const answer = await this.ask(operation, identifier, query, signal);
    return (answer.data as Record<string, T[]>)[field] as T[];
  }

  /** The v2 envelope of an operation, whatever price the upstream charges (so never the literal 0 of a free one). */
  private envelopeOf(operation: OperationDefinition): z.ZodType {
    let envelope = this.envelopes.get(operation.id);
    if (!envelope) {
      envelope = v2EnvelopeSchema(operation.data, operation.paging, 1, operation.meta);
      this.envelopes.set(operation.id, envelope);
    }
    return envelope;
  }

  /** v2 profile routes other than details take a username; a publicId is resolved through details by id. */
  private async username(ref: ProfileRef, signal: AbortSignal): Promise<string> {
    if ('username' in ref) return ref.username;
    const details = await this.ask(
      profiles.profileDetails,
      { name: 'publicId', value: ref.publicId },
      {},
      signal,
    );
    return details.data.username;
  }

  /** A start-paged profile list's window; its total from the pages when they reach the end, else from /counts. */
  private async profileWindow<T>(
    ref: ProfileRef,
    window: WindowRequest,
    section: 'skills' | 'companyInterests',
    operation: typeof profiles.profileSkills | typeof profiles.profileCompanyInterests,
    signal: AbortSignal,
  ): Promise<Window<T>> {
    const username = await this.username(ref, signal);
    const read = await readWindow(window, async (start): Promise<Page<T>> => {
      const answer = await this.ask(operation, byUsername(username), { start: `${start}` }, signal);
      return { items: (answer.data as Record<typeof section, T[]>)[section], hasMore: hasMore(answer) };
    });
    if (read.ended && (read.read > 0 || window.start === 0))
      return { items: read.items, total: window.start + read.read };
    const counts = await this.ask(profiles.profileCounts, byUsername(username), {}, signal);
    return { items: read.items, total: counts.data.counts[section] ?? 0 };
  }

  // ---- Profiles ---------------------------------------------------------------------------------

  async profileDetails(ref: ProfileRef, signal: AbortSignal): Promise<ProfileDetailsResult> {
    const identifier =
      'username' in ref ? byUsername(ref.username) : { name: 'publicId', value: ref.publicId };
    const answer = await this.ask(profiles.profileDetails, identifier, {}, signal);
    const meta = answer.meta as z.output<typeof profiles.profileDetails.meta>;
    return { profile: answer.data, sections: meta.sections, skillsHasMore: meta.skills.hasMore };
  }

  async profileContact(ref: ProfileRef, signal: AbortSignal) {
    const username = await this.username(ref, signal);
    return (await this.ask(profiles.profileContact, byUsername(username), {}, signal)).data;
  }

  async profileList<L extends ProfileListName>(
    ref: ProfileRef,
    list: L,
    signal: AbortSignal,
  ): Promise<ProfileLists[L][]> {
    const username = await this.username(ref, signal);
    return this.list(PROFILE_LISTS[list], list, byUsername(username), {}, signal);
  }

  profileSkills(
    ref: ProfileRef,
    window: WindowRequest,
    signal: AbortSignal,
  ): ReturnType<DataSource['profileSkills']> {
    return this.profileWindow(ref, window, 'skills', profiles.profileSkills, signal);
  }

  profileCompanyInterests(
    ref: ProfileRef,
    window: WindowRequest,
    signal: AbortSignal,
  ): ReturnType<DataSource['profileCompanyInterests']> {
    return this.profileWindow(ref, window, 'companyInterests', profiles.profileCompanyInterests, signal);
  }

  /** The position is the upstream's cursor: ours stands for it, bound to our caller and 15 minutes. */
  async profileActivity<K extends ActivityKind>(
    username: string,
    kind: K,
    position: string | null,
    signal: AbortSignal,
  ): Promise<StreamPage<ActivityItems[K]>> {
    const answer = await this.ask(
      ACTIVITY_STREAMS[kind],
      byUsername(username),
      { cursor: position ?? undefined },
      signal,
    );
    const paging = answer.paging as CursorPaging;
    return {
      items: (answer.data as Record<K, ActivityItems[K][]>)[kind],
      next: paging.hasMore ? paging.nextCursor : null,
    };
  }

  async similarProfiles(username: string, signal: AbortSignal) {
    return (await this.ask(profiles.similarProfiles, byUsername(username), {}, signal)).data.profiles;
  }

  // ---- Companies --------------------------------------------------------------------------------

  async companyDetails(ref: CompanyRef, signal: AbortSignal) {
    const identifier = 'slug' in ref ? bySlug(ref.slug) : { name: 'publicId', value: ref.publicId };
    return (await this.ask(companies.companyDetails, identifier, {}, signal)).data;
  }

  companyPosts(slug: string, signal: AbortSignal): Promise<Post[]> {
    return this.list(companies.companyPosts, 'posts', bySlug(slug), {}, signal);
  }

  similarCompanies(slug: string, signal: AbortSignal): Promise<CompanySearchItem[]> {
    return this.list(companies.similarCompanies, 'companies', bySlug(slug), {}, signal);
  }

  companyPeople(slug: string, signal: AbortSignal): Promise<ProfileSummary[]> {
    return this.list(companies.companyPeople, 'people', bySlug(slug), {}, signal);
  }

  companyProducts(slug: string, signal: AbortSignal): Promise<Product[]> {
    return this.list(companies.companyProducts, 'products', bySlug(slug), {}, signal);
  }

  companyJobs(slug: string, signal: AbortSignal): Promise<JobSummary[]> {
    return this.list(companies.companyJobs, 'jobs', bySlug(slug), {}, signal);
  }

  async companyTotals(slug: string, signal: AbortSignal) {
    const { data } = await this.ask(companies.companyInsights, bySlug(slug), {}, signal);
    return { employees: data.employees, jobs: data.openJobs, posts: data.posts, products: data.products };
  }

  async companyStaffCounts(slug: string, signal: AbortSignal) {
    const { data } = await this.ask(companies.companyEmployeeFilters, bySlug(slug), {}, signal);
    return {
      publicId: data.currentCompany.value,
      current: data.currentCompany.people,
      past: data.pastCompany.people,
    };
  }

  async searchCompanies(filters: CompanySearchFilters, window: WindowRequest, signal: AbortSignal) {
    // /api/v2 takes hasJobs=true or nothing: "only companies without jobs" cannot be asked of it.
    if (filters.hasJobs === false)
      throw InvalidRequestError.single('hasJobs', 'invalid_value', 'hasJobs takes only the string true.');
    const query = {
      keywords: filters.keywords,
      location: listParameter(filters.locationIds),
      industry: listParameter(filters.industryIds),
      companySize: listParameter(filters.companySizes),
      hasJobs: filters.hasJobs ? 'true' : undefined,
    };
    return this.searchWindow(companies.companySearch, query, window, signal);
  }

  searchCompaniesByDomain(domain: string, window: WindowRequest, signal: AbortSignal) {
    return this.searchWindow(companies.companyDomainSearch, { domain }, window, signal);
  }

  private async searchWindow(
    operation: typeof companies.companySearch | typeof companies.companyDomainSearch,
    query: Query,
    window: WindowRequest,
    signal: AbortSignal,
  ): Promise<SearchWindow<CompanySearchItem>> {
    const read = await readWindow(window, async (offset) => {
      const answer = await this.ask(operation, undefined, { ...query, offset: `${offset}` }, signal);
      return { items: answer.data.companies, hasMore: hasMore(answer) };
    });
    return { items: read.items, hasMore: read.hasMore };
  }

  // ---- Posts --------------------------------------------------------------------------------------

  async post(slug: string, signal: AbortSignal) {
    const url = `${NETWORK_ORIGIN}/posts/${encodeURIComponent(slug)}/`;
    return (await this.ask(posts.postDetails, { name: 'url', value: url }, {}, signal)).data;
  }

  async postComments(slug: string, signal: AbortSignal) {
    return (await this.ask(posts.postComments, bySlug(slug), {}, signal)).data.comments;
  }

  async postReactions(slug: string, reactionType: ReactionType | 'ALL', signal: AbortSignal) {
    return (await this.ask(posts.postReactions, bySlug(slug), { reactionType }, signal)).data.reactions;
  }

  // ---- Searches -------------------------------------------------------------------------------

  searchSchools(keywords: string, signal: AbortSignal): Promise<School[]> {
    return this.list(searches.schoolSearch, 'schools', undefined, { keywords }, signal);
  }

  searchPeople(filters: PeopleSearchFilters, signal: AbortSignal): Promise<ProfileSummary[]> {
    const { keywords, currentCompany, pastCompany } = filters;
    return this.list(
      searches.peopleSearch,
      'people',
      undefined,
      { keywords, currentCompany, pastCompany },
      signal,
    );
  }

  searchAll(keywords: string, signal: AbortSignal): Promise<SearchAllItem[]> {
    return this.list(searches.allSearch, 'results', undefined, { keywords }, signal);
  }

  searchPostsByHashtag(hashtag: string, signal: AbortSignal): Promise<Post[]> {
    return this.list(searches.hashtagPostSearch, 'posts', { name: 'hashtag', value: hashtag }, {}, signal);
  }

  searchPosts(keywords: string, signal: AbortSignal): Promise<Post[]> {
    return this.list(searches.postSearch, 'posts', undefined, { keywords }, signal);
  }

  searchLocations(keywords: string, signal: AbortSignal): Promise<IdName[]> {
    return this.list(searches.locationSearch, 'locations', undefined, { keywords }, signal);
  }

  searchIndustries(query: string, signal: AbortSignal): Promise<IdName[]> {
    return this.list(searches.industrySearch, 'industries', undefined, { query }, signal);
  }

  serviceCategories(signal: AbortSignal): Promise<IdName[]> {
    return this.list(searches.serviceCategories, 'serviceCategories', undefined, {}, signal);
  }

  async companySearchFilterValues(signal: AbortSignal) {
    const { data } = await this.ask(searches.searchFilters, undefined, {}, signal);
    return { locations: data.location, industries: data.industry, companySizes: data.companySize };
  }

  typeahead(query: string, signal: AbortSignal): Promise<TypeaheadItem[]> {
    return this.list(searches.typeahead, 'items', undefined, { query }, signal);
  }

  searchJobs(keywords: string, signal: AbortSignal): Promise<JobSummary[]> {
    return this.list(jobs.jobSearch, 'jobs', undefined, { keywords }, signal);
  }

  async jobSearchFacets(keywords: string, signal: AbortSignal) {
    return (await this.ask(jobs.jobSearchFilters, undefined, { keywords }, signal)).data;
  }

  async job(jobId: string, signal: AbortSignal) {
    const url = `${NETWORK_ORIGIN}/jobs/view/${encodeURIComponent(jobId)}/`;
    return (await this.ask(jobs.jobDetails, { name: 'url', value: url }, {}, signal)).data;
  }
}

/** Whether a start- or offset-paged answer has more after it (its envelope checked the paging's shape). */
function hasMore(answer: { paging: unknown }): boolean {
  return (answer.paging as { hasMore: boolean }).hasMore;
}

/** A comma-separated filter value; an empty list restricts nothing, so it is left out. */
function listParameter(values: readonly string[] | undefined): string | undefined {
  return values && values.length > 0 ? values.join(',') : undefined;
}
