/**
 * The DataSource port over the dataset, whichever reader holds it (dataset-reader.ts). It behaves
 * like a remote source would: unknown identifiers throw ResourceNotFoundError, searches that match
 * nothing answer [], non-paged lists answer their first page of 10, withheld profile sections read as
 * empty and report 'unavailable', and the reactions stream drops reactions to comments from each raw
 * window (so a page may be short or empty while more exist). Every record carries the
 * provider-private fields (internalId, fetchedAt, sourceTag) the public schemas strip, and every
 * answer is a fresh copy callers may mutate.
 */
import type { ReactionType } from '../../../schemas/parameters.js';
import type {
  Comment,
  CompanyDetails,
  CompanyInterest,
  CompanySearchItem,
  IdName,
  JobSummary,
  Post,
  ProfileSummary,
  Reaction,
  School,
  SearchAllItem,
  SectionStatus,
} from '../../../schemas/records.js';
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
  SourceFields,
  StreamPage,
  Window,
  WindowRequest,
} from '../data-source.js';
import type { DatasetReader } from './database/database-reader.js';
import type {
  CommentRecord,
  CompanyRecord,
  JobRecord,
  PersonRecord,
  PostRecord,
  ProfileSection,
  ReactionRecord,
  SchoolRecord,
  Stored,
} from './model.js';
import { profileSections } from './model.js';
import { DETAILS_POSITIONS, type PersonDetails, SKILLS_PREVIEW } from './person-details.js';
import type { ActivityRecords, FacetField, SearchAllHit } from './reader-rules.js';
import { COMPANY_SIZES } from './vocabulary.js';

export const SOURCE_TAG = 'dataset';
/** Non-paged lists and searches answer their first page. */
export const FIRST_PAGE = 10;
/** Raw items one activity page reads before filtering. */
export const STREAM_WINDOW = 10;

type Stamped<T> = T & SourceFields;

/** The section whose withholding empties a list; the lists only /api/v2 reads are never withheld. */
const LIST_SECTIONS: Record<ProfileListName, ProfileSection | null> = {
  positions: 'experience',
  education: 'education',
  certifications: 'certifications',
  courses: 'courses',
  volunteerExperience: 'volunteerExperience',
  languages: null,
  honors: null,
  organizations: null,
};

/** A record that holds the list `L` (a whole person, or a person's details for its first lists). */
type ListHolder<L extends ProfileListName> = Pick<PersonRecord, 'internalId' | 'withheld' | L>;

const LIST_READERS: { [L in ProfileListName]: (person: Pick<PersonRecord, L>) => ProfileLists[L][] } = {
  positions: (person) => person.positions,
  education: (person) => person.education,
  certifications: (person) => person.certifications,
  courses: (person) => person.courses,
  volunteerExperience: (person) => person.volunteerExperience,
  languages: (person) => person.languages,
  honors: (person) => person.honors,
  organizations: (person) => person.organizations,
};

/** Sections profile details hold only a preview of. */
const SECTION_PREVIEWS: Partial<Record<ProfileSection, number>> = {
  experience: DETAILS_POSITIONS,
  skills: SKILLS_PREVIEW,
};

const COMPANY_SIZE_RANGES = Object.fromEntries(
  COMPANY_SIZES.map((size) => [size.code, size.range]),
) as Record<CompanyRecord['sizeCode'], string>;

const isWithheld = (person: Pick<PersonRecord, 'withheld'>, section: ProfileSection) =>
  person.withheld.includes(section);

function sectionStatus(person: PersonDetails, section: ProfileSection): SectionStatus {
  if (isWithheld(person, section)) return 'unavailable';
  const size = person.sectionSizes[section];
  if (size === 0) return 'empty';
  return size > (SECTION_PREVIEWS[section] ?? Number.POSITIVE_INFINITY) ? 'incomplete' : 'complete';
}

function windowOf<T, R>(
  items: readonly T[],
  window: WindowRequest,
  view: (item: T, index: number) => R,
): Window<R> {
  const start = Math.max(0, window.start);
  return {
    items: items
      .slice(start, start + Math.max(0, window.count))
      .map((item, offset) => view(item, start + offset)),
    total: items.length,
  };
}

/**
 * English collation, made once: `localeCompare(…, 'en')` looks the collator up on every call, which
 * took most of a broad job search's filter time (thousands of company names to order).
 */
const english = new Intl.Collator('en');

/** The values of one field with how many items have each, most frequent first. */
function facet(counts: readonly [string, number][]): { value: string; jobs: number }[] {
  return counts
    .map(([value, jobs]) => ({ value, jobs }))
    .sort((a, b) => b.jobs - a.jobs || english.compare(a.value, b.value));
}

/** A stream position is the decimal index of a raw window's first item. */
function streamStart(position: string | null): number {
  if (position === null) return 0;
  return /^\d{1,9}$/.test(position) ? Number(position) : Number.NaN;
}

function positionRefused(): InvalidRequestError {
  return InvalidRequestError.single(
    'cursor',
    'invalid_value',
    'The cursor does not point into this stream; restart without a cursor.',
  );
}

const byName = (a: IdName, b: IdName) => english.compare(a.name, b.name);

/**
 * Its prototype holds the port's methods and nothing else (helpers are #private, views are instance
 * fields): reader threads answer exactly the methods found there (reader-messages.ts).
 */
export class DatasetSource implements DataSource {
  constructor(private readonly reader: DatasetReader) {}

  /**
   * Honours the signal, then answers what `work` built. Callers may mutate what they get: every
   * answer is made afresh from the rows it read (their JSON parsed per call) and from nothing the
   * reader keeps, so no copy is needed (a deep copy was a sixth of a billed lookup's time).
   */
  async #run<T>(signal: AbortSignal, work: () => T): Promise<T> {
    signal.throwIfAborted();
    return work();
  }

  #stamp<T extends object>(record: T, internalId: string): Stamped<T> {
    return { ...record, internalId, fetchedAt: this.reader.fetchedAt, sourceTag: SOURCE_TAG };
  }

  // ---- Views: stored records to public shapes plus the private fields -----------------------------

  private personSummary = (
    person: Pick<PersonRecord, 'internalId' | keyof ProfileSummary>,
  ): Stamped<ProfileSummary> => {
    const { publicId, username, fullName, headline, location, networkUrl } = person;
    return this.#stamp({ publicId, username, fullName, headline, location, networkUrl }, person.internalId);
  };

  private companyItem = (company: CompanyRecord): Stamped<CompanySearchItem> => {
    const { name, slug, networkUrl, description, summary, logoUrl } = company;
    return this.#stamp({ name, slug, networkUrl, description, summary, logoUrl }, company.internalId);
  };

  #companyDetailsView(company: CompanyRecord): Stamped<CompanyDetails> {
    const size = COMPANY_SIZE_RANGES[company.sizeCode];
    return {
      ...this.companyItem(company),
      publicId: company.publicId,
      website: company.website,
      domain: company.domain,
      industry: this.reader.idName(company.industryId),
      headquarters: this.reader.idName(company.headquartersId),
      locations: company.locationIds.map((id) => this.reader.idName(id)).filter((place) => place !== null),
      companySize: { code: company.sizeCode, range: size },
      foundedYear: company.foundedYear,
      specialties: company.specialties,
      followerCount: company.followerCount,
      hasJobs: company.hasJobs,
    };
  }

  private schoolView = (school: SchoolRecord): Stamped<School> => {
    const { name, slug, location, networkUrl } = school;
    return this.#stamp({ name, slug, location, networkUrl }, school.internalId);
  };

  private postView = (post: PostRecord): Stamped<Post> => this.#stamp({ ...post }, post.internalId);

  private commentView = (comment: CommentRecord): Stamped<Comment> =>
    this.#stamp({ ...comment }, comment.internalId);

  private reactionView = (reaction: ReactionRecord): Stamped<Reaction> => {
    const { reactionType, postSlug, postUrl, reactorName, reactorUsername, reactedAt } = reaction;
    return this.#stamp(
      { reactionType, postSlug, postUrl, reactorName, reactorUsername, reactedAt },
      reaction.internalId,
    );
  };

  private jobSummary = (job: JobRecord): Stamped<JobSummary> => {
    const { jobId, url, title, companyName, companySlug, location, postedAt, employmentType } = job;
    return this.#stamp(
      { jobId, url, title, companyName, companySlug, location, postedAt, employmentType },
      job.internalId,
    );
  };

  private idNameView = (record: Stored<IdName>): Stamped<IdName> =>
    this.#stamp({ id: record.id, name: record.name }, record.internalId);

  /** A profile list as the source shows it: empty when withheld. */
  #listItems<L extends ProfileListName>(person: ListHolder<L>, list: L): Stamped<ProfileLists[L]>[] {
    const section = LIST_SECTIONS[list];
    if (section !== null && isWithheld(person, section)) return [];
    const read = LIST_READERS[list];
    return read(person).map((item, i) => this.#stamp(item, `${person.internalId}/${list}/${i}`));
  }

  // ---- Profiles ---------------------------------------------------------------------------------

  profileDetails(ref: ProfileRef, signal: AbortSignal): Promise<ProfileDetailsResult> {
    return this.#run(signal, () => {
      const person = this.reader.personDetails(ref);
      const skillsWithheld = isWithheld(person, 'skills');
      return {
        profile: this.#stamp(
          {
            ...this.personSummary(person),
            summary: person.summary,
            experience: this.#listItems(person, 'positions'),
            education: this.#listItems(person, 'education'),
            skills: skillsWithheld ? [] : person.skillNames,
          },
          person.internalId,
        ),
        sections: Object.fromEntries(
          profileSections.map((section) => [section, sectionStatus(person, section)]),
        ),
        skillsHasMore: skillsWithheld ? null : person.sectionSizes.skills > SKILLS_PREVIEW,
      };
    });
  }

  profileContact(ref: ProfileRef, signal: AbortSignal) {
    return this.#run(signal, () => {
      const person = this.reader.person(ref);
      return this.#stamp({ ...person.contact }, `${person.internalId}/contact`);
    });
  }

  profileList<L extends ProfileListName>(ref: ProfileRef, list: L, signal: AbortSignal) {
    return this.#run(signal, () => this.#listItems(this.reader.person(ref), list));
  }

  profileSkills(ref: ProfileRef, window: WindowRequest, signal: AbortSignal) {
    return this.#run(signal, () => {
      const person = this.reader.person(ref);
      const skills = isWithheld(person, 'skills') ? [] : person.skills;
      return windowOf(skills, window, (skill, i) =>
        this.#stamp({ ...skill }, `${person.internalId}/skills/${i}`),
      );
    });
  }

  profileCompanyInterests(ref: ProfileRef, window: WindowRequest, signal: AbortSignal) {
    return this.#run(signal, () => {
      const person = this.reader.person(ref);
      const companies = isWithheld(person, 'companyInterests')
        ? []
        : this.reader.companiesByPublicId(person.interests);
      return windowOf(companies, window, (company, i) => {
        const interest: CompanyInterest = {
          name: company.name,
          slug: company.slug,
          publicId: company.publicId,
          followerCount: company.followerCount,
        };
        return this.#stamp(interest, `${person.internalId}/companyInterests/${i}`);
      });
    });
  }

  /** The public view of a raw stream item; null drops it (a reaction to a comment). */
  #activityView<K extends ActivityKind>(
    kind: K,
  ): (item: ActivityRecords[K]) => Stamped<ActivityItems[K]> | null {
    const views: { [A in ActivityKind]: (item: ActivityRecords[A]) => Stamped<ActivityItems[A]> | null } = {
      posts: this.postView,
      comments: this.commentView,
      reactions: (reaction) => (reaction.commentId === null ? this.reactionView(reaction) : null),
    };
    return views[kind];
  }

  profileActivity<K extends ActivityKind>(
    username: string,
    kind: K,
    position: string | null,
    signal: AbortSignal,
  ): Promise<StreamPage<Stamped<ActivityItems[K]>>> {
    return this.#run(signal, () => {
      const person = this.reader.person({ username });
      const start = streamStart(position);
      if (Number.isNaN(start)) throw positionRefused();
      const raw = this.reader.activity(person.username, kind, { start, count: STREAM_WINDOW });
      if (start > raw.total) throw positionRefused();
      const end = start + STREAM_WINDOW;
      return {
        items: raw.items.map(this.#activityView(kind)).filter((item) => item !== null),
        next: end < raw.total ? String(end) : null,
      };
    });
  }

  similarProfiles(username: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.similarProfiles(this.reader.person({ username }), FIRST_PAGE).map(this.personSummary),
    );
  }

  // ---- Companies --------------------------------------------------------------------------------

  companyDetails(ref: CompanyRef, signal: AbortSignal) {
    return this.#run(signal, () => this.#companyDetailsView(this.reader.company(ref)));
  }

  companyPosts(slug: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.companyPosts(this.reader.company({ slug }).slug, FIRST_PAGE).map(this.postView),
    );
  }

  similarCompanies(slug: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.similarCompanies(this.reader.company({ slug }), FIRST_PAGE).map(this.companyItem),
    );
  }

  companyPeople(slug: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.companyEmployees(this.reader.company({ slug }).slug, FIRST_PAGE).map(this.personSummary),
    );
  }

  companyProducts(slug: string, signal: AbortSignal) {
    return this.#run(signal, () => {
      const company = this.reader.company({ slug });
      return company.products
        .slice(0, FIRST_PAGE)
        .map((product, i) => this.#stamp({ ...product }, `${company.internalId}/products/${i}`));
    });
  }

  companyJobs(slug: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.companyJobs(this.reader.company({ slug }).slug, FIRST_PAGE).map(this.jobSummary),
    );
  }

  companyTotals(slug: string, signal: AbortSignal) {
    return this.#run(signal, () => {
      const company = this.reader.company({ slug });
      return { ...this.reader.companyCounts(company.slug), products: company.products.length };
    });
  }

  companyStaffCounts(slug: string, signal: AbortSignal) {
    return this.#run(signal, () => {
      const { publicId } = this.reader.company({ slug });
      return { publicId, ...this.reader.staffCounts(publicId) };
    });
  }

  searchCompanies(filters: CompanySearchFilters, window: WindowRequest, signal: AbortSignal) {
    return this.#run(signal, () => {
      const { items, total } = this.reader.searchCompanies(filters, window);
      return { items: items.map(this.companyItem), total };
    });
  }

  searchCompaniesByDomain(domain: string, window: WindowRequest, signal: AbortSignal) {
    return this.#run(signal, () => {
      const { items, total } = this.reader.companiesByDomain(domain, window);
      return { items: items.map(this.companyItem), total };
    });
  }

  // ---- Posts --------------------------------------------------------------------------------------

  post(slug: string, signal: AbortSignal) {
    return this.#run(signal, () => this.postView(this.reader.post(slug)));
  }

  postComments(slug: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.postComments(this.reader.post(slug).slug, FIRST_PAGE).map(this.commentView),
    );
  }

  postReactions(slug: string, reactionType: ReactionType | 'ALL', signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.postReactions(this.reader.post(slug).slug, reactionType, FIRST_PAGE).map(this.reactionView),
    );
  }

  // ---- Searches -------------------------------------------------------------------------------

  searchSchools(keywords: string, signal: AbortSignal) {
    return this.#run(signal, () => this.reader.searchSchools(keywords, FIRST_PAGE).map(this.schoolView));
  }

  searchPeople(filters: PeopleSearchFilters, signal: AbortSignal) {
    return this.#run(signal, () => this.reader.searchPeople(filters, FIRST_PAGE).map(this.personSummary));
  }

  searchAll(keywords: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.searchAll(keywords, FIRST_PAGE).map((hit) => this.#searchAllView(hit)),
    );
  }

  #searchAllView(hit: SearchAllHit): Stamped<SearchAllItem> {
    switch (hit.type) {
      case 'person':
        return { type: 'person', ...this.personSummary(hit.record) };
      case 'company':
        return { type: 'company', ...this.companyItem(hit.record) };
      case 'school':
        return { type: 'school', ...this.schoolView(hit.record) };
      case 'post':
        return { type: 'post', ...this.postView(hit.record) };
      default:
        return { type: 'job', ...this.jobSummary(hit.record) };
    }
  }

  /** Hashtags compare without "#" and case, as the hashtag parameter hands them over. */
  searchPostsByHashtag(hashtag: string, signal: AbortSignal) {
    return this.#run(signal, () => {
      const tag = hashtag.replace(/^#/, '').normalize('NFC').toLowerCase();
      return this.reader.postsByHashtag(tag, FIRST_PAGE).map(this.postView);
    });
  }

  searchPosts(keywords: string, signal: AbortSignal) {
    return this.#run(signal, () => this.reader.searchPosts(keywords, FIRST_PAGE).map(this.postView));
  }

  searchLocations(keywords: string, signal: AbortSignal) {
    return this.#run(signal, () => this.reader.searchLocations(keywords, FIRST_PAGE).map(this.idNameView));
  }

  searchIndustries(query: string, signal: AbortSignal) {
    return this.#run(signal, () => this.reader.searchIndustries(query, FIRST_PAGE).map(this.idNameView));
  }

  serviceCategories(signal: AbortSignal) {
    return this.#run(signal, () => this.reader.serviceCategories(FIRST_PAGE).map(this.idNameView));
  }

  /** Locations where some company is, and industries some company is in, by name. */
  companySearchFilterValues(signal: AbortSignal) {
    return this.#run(signal, () => {
      const { locations, industries } = this.reader.companyFilterValues();
      return {
        locations: locations.sort(byName).map(this.idNameView),
        industries: industries.sort(byName).map(this.idNameView),
        companySizes: Object.entries(COMPANY_SIZE_RANGES).map(([code, range]) => ({
          code: code as CompanyRecord['sizeCode'],
          range,
        })),
      };
    });
  }

  typeahead(query: string, signal: AbortSignal) {
    return this.#run(signal, () =>
      this.reader.typeahead(query, FIRST_PAGE).map(({ type, record }) => {
        const [id, label] =
          'username' in record
            ? [record.username, record.fullName]
            : 'slug' in record
              ? [record.slug, record.name]
              : [record.id, record.name];
        return this.#stamp({ type, id, label }, record.internalId);
      }),
    );
  }

  searchJobs(keywords: string, signal: AbortSignal) {
    return this.#run(signal, () => this.reader.searchJobs(keywords, FIRST_PAGE).map(this.jobSummary));
  }

  jobSearchFacets(keywords: string, signal: AbortSignal) {
    return this.#run(signal, () => {
      const { matched, counts } = this.reader.jobFieldCounts(keywords);
      const facets = (field: FacetField) => facet(counts[field]);
      return {
        matched,
        location: facets('location'),
        company: facets('companyName'),
        employmentType: facets('employmentType'),
        seniority: facets('seniority'),
      };
    });
  }

  job(jobId: string, signal: AbortSignal) {
    return this.#run(signal, () => {
      const job = this.reader.job(jobId);
      return this.#stamp({ ...job }, job.internalId);
    });
  }
}
