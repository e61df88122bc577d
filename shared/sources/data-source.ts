/**
 * The data-source port: one method per lookup, plain inputs, an AbortSignal, typed results. An
 * adapter throws ResourceNotFoundError when nothing matches, UpstreamError when its source answers
 * something invalid, LookupTimeoutError when it answers too late, and ServiceUnavailableError when
 * its source cannot take requests for now (shared/errors.ts). Adapters: dataset/ (the embedded
 * sample) and upstream/ (another service's /api/v2); open-data-source.ts picks one.
 *
 * Records may carry provider-private fields (SourceFields); the public schemas strip them.
 */
import type { CompanySizeCode, ReactionType } from '../../schemas/parameters.js';
import type {
  Certification,
  Comment,
  CompanyDetails,
  CompanyInterest,
  CompanySearchItem,
  Contact,
  Course,
  Education,
  Honor,
  IdName,
  JobDetails,
  JobSummary,
  Language,
  Organization,
  Position,
  Post,
  Product,
  ProfileSummary,
  Reaction,
  School,
  SearchAllItem,
  SectionStatus,
  Skill,
  TypeaheadItem,
  VolunteerExperience,
} from '../../schemas/records.js';

/** Fields a source keeps for itself; never public. */
export interface SourceFields {
  internalId: string;
  fetchedAt: string;
  sourceTag: string;
}

export type SourceRecord<T> = T & Partial<SourceFields>;

export type ProfileRef = { username: string } | { publicId: string };
export type CompanyRef = { slug: string } | { publicId: string };

/** A window of a list that pages by position (start- and offset-based paging). */
export interface WindowRequest {
  start: number;
  count: number;
}

export interface Window<T> {
  items: T[];
  /** Items in the whole list. */
  total: number;
}

/**
 * A window of search results: counted like a list, or, from a source that pages its results without
 * counting them (an /api/v2 search answers `hasMore`, never a total), with whether more follow.
 */
export type SearchWindow<T> = Window<T> | { items: T[]; hasMore: boolean };

/** A page of an activity stream; `next` is the adapter's opaque position, null at the end. */
export interface StreamPage<T> {
  items: T[];
  next: string | null;
}

export interface ProfileDetailsResult {
  profile: SourceRecord<
    ProfileSummary & {
      summary: string | null;
      experience: Position[];
      education: Education[];
      skills: string[];
    }
  >;
  /** Per section: complete, empty, incomplete (the details hold a preview) or unavailable (withheld). */
  sections: Record<string, SectionStatus>;
  /** true when more skills exist than the preview, false when complete, null when unknown. */
  skillsHasMore: boolean | null;
}

export interface ProfileLists {
  positions: Position;
  education: Education;
  certifications: Certification;
  courses: Course;
  volunteerExperience: VolunteerExperience;
  languages: Language;
  honors: Honor;
  organizations: Organization;
}
export type ProfileListName = keyof ProfileLists;

export interface ActivityItems {
  posts: Post;
  comments: Comment;
  reactions: Reaction;
}
export type ActivityKind = keyof ActivityItems;

export interface CompanyTotals {
  employees: number;
  jobs: number;
  posts: number;
  products: number;
}

export interface FacetValue {
  value: string;
  jobs: number;
}

export interface JobSearchFacets {
  matched: number;
  location: FacetValue[];
  company: FacetValue[];
  employmentType: FacetValue[];
  seniority: FacetValue[];
}

export interface CompanySearchFilterValues {
  locations: SourceRecord<IdName>[];
  industries: SourceRecord<IdName>[];
  companySizes: { code: CompanySizeCode; range: string }[];
}

export interface CompanySearchFilters {
  keywords: string;
  locationIds?: string[];
  industryIds?: string[];
  companySizes?: CompanySizeCode[];
  hasJobs?: boolean;
}

export interface PeopleSearchFilters {
  keywords: string;
  /** Company publicIds; both together narrow the result. */
  currentCompany?: string;
  pastCompany?: string;
}

export interface DataSource {
  profileDetails(ref: ProfileRef, signal: AbortSignal): Promise<ProfileDetailsResult>;
  profileContact(ref: ProfileRef, signal: AbortSignal): Promise<SourceRecord<Contact>>;
  profileList<L extends ProfileListName>(
    ref: ProfileRef,
    list: L,
    signal: AbortSignal,
  ): Promise<SourceRecord<ProfileLists[L]>[]>;
  profileSkills(
    ref: ProfileRef,
    window: WindowRequest,
    signal: AbortSignal,
  ): Promise<Window<SourceRecord<Skill>>>;
  profileCompanyInterests(
    ref: ProfileRef,
    window: WindowRequest,
    signal: AbortSignal,
  ): Promise<Window<SourceRecord<CompanyInterest>>>;
  /** One page of a profile's activity from `position` (null: the start). */
  profileActivity<K extends ActivityKind>(
    username: string,
    kind: K,
    position: string | null,
    signal: AbortSignal,
  ): Promise<StreamPage<SourceRecord<ActivityItems[K]>>>;
  similarProfiles(username: string, signal: AbortSignal): Promise<SourceRecord<ProfileSummary>[]>;

  companyDetails(ref: CompanyRef, signal: AbortSignal): Promise<SourceRecord<CompanyDetails>>;
  companyPosts(slug: string, signal: AbortSignal): Promise<SourceRecord<Post>[]>;
  similarCompanies(slug: string, signal: AbortSignal): Promise<SourceRecord<CompanySearchItem>[]>;
  companyPeople(slug: string, signal: AbortSignal): Promise<SourceRecord<ProfileSummary>[]>;
  companyProducts(slug: string, signal: AbortSignal): Promise<SourceRecord<Product>[]>;
  companyJobs(slug: string, signal: AbortSignal): Promise<SourceRecord<JobSummary>[]>;
  /** Whole-list sizes of a company's people, open jobs, posts and products (the lists above are first pages). */
  companyTotals(slug: string, signal: AbortSignal): Promise<CompanyTotals>;
  /** The company's publicId and how many people people search's currentCompany and pastCompany find with it. */
  companyStaffCounts(
    slug: string,
    signal: AbortSignal,
  ): Promise<{ publicId: string; current: number; past: number }>;
  searchCompanies(
    filters: CompanySearchFilters,
    window: WindowRequest,
    signal: AbortSignal,
  ): Promise<SearchWindow<SourceRecord<CompanySearchItem>>>;
  searchCompaniesByDomain(
    domain: string,
    window: WindowRequest,
    signal: AbortSignal,
  ): Promise<SearchWindow<SourceRecord<CompanySearchItem>>>;

  post(slug: string, signal: AbortSignal): Promise<SourceRecord<Post>>;
  postComments(slug: string, signal: AbortSignal): Promise<SourceRecord<Comment>[]>;
  postReactions(
    slug: string,
    reactionType: ReactionType | 'ALL',
    signal: AbortSignal,
  ): Promise<SourceRecord<Reaction>[]>;

  searchSchools(keywords: string, signal: AbortSignal): Promise<SourceRecord<School>[]>;
  searchPeople(filters: PeopleSearchFilters, signal: AbortSignal): Promise<SourceRecord<ProfileSummary>[]>;
  searchAll(keywords: string, signal: AbortSignal): Promise<SourceRecord<SearchAllItem>[]>;
  searchPostsByHashtag(hashtag: string, signal: AbortSignal): Promise<SourceRecord<Post>[]>;
  searchPosts(keywords: string, signal: AbortSignal): Promise<SourceRecord<Post>[]>;
  searchLocations(keywords: string, signal: AbortSignal): Promise<SourceRecord<IdName>[]>;
  searchIndustries(query: string, signal: AbortSignal): Promise<SourceRecord<IdName>[]>;
  serviceCategories(signal: AbortSignal): Promise<SourceRecord<IdName>[]>;
  /** Every value company search's filters accept: the ids of locations and industries, size codes with their ranges. */
  companySearchFilterValues(signal: AbortSignal): Promise<CompanySearchFilterValues>;
  typeahead(query: string, signal: AbortSignal): Promise<SourceRecord<TypeaheadItem>[]>;
  searchJobs(keywords: string, signal: AbortSignal): Promise<SourceRecord<JobSummary>[]>;
  /** How all jobs matching the keywords spread over values of their fields (job search answers the first 10). */
  jobSearchFacets(keywords: string, signal: AbortSignal): Promise<JobSearchFacets>;
  job(jobId: string, signal: AbortSignal): Promise<SourceRecord<JobDetails>>;
}
