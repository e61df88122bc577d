/**
 * The DataSource port over the embedded sample dataset. It behaves like a remote source would:
 * unknown identifiers throw ResourceNotFoundError, searches that match nothing answer [], non-paged
 * lists answer their first page of 10, withheld profile sections read as empty and report
 * 'unavailable', and the reactions stream drops reactions to comments from each raw window (so a
 * page may be short or empty while more exist). Every record carries the provider-private fields
 * (internalId, fetchedAt, sourceTag) the public schemas strip, and every answer is a deep copy.
 */
import type { ReactionType } from '../../../schemas/parameters.js';
import type {
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
  TypeaheadItem,
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
import { DatasetIndex } from './dataset-index.js';
import { generateDataset } from './generate.js';
import type {
  CompanyRecord,
  Dataset,
  JobRecord,
  PersonRecord,
  PostRecord,
  ProfileSection,
  ReactionRecord,
  SchoolRecord,
  Stored,
} from './model.js';
import { profileSections } from './model.js';
import { normalizeText, ordered, rank, type SearchDoc } from './search.js';
import { COMPANY_SIZES } from './vocabulary.js';

export const SOURCE_TAG = 'dataset';
/** Non-paged lists and searches answer their first page. */
export const FIRST_PAGE = 10;
/** Raw items one activity page reads before filtering. */
export const STREAM_WINDOW = 10;
/** Positions profile details include; more make experience 'incomplete'. */
export const DETAILS_POSITIONS = 5;
/** Skill names profile details include. */
export const SKILLS_PREVIEW = 5;

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

const LIST_READERS: { [L in ProfileListName]: (person: PersonRecord) => ProfileLists[L][] } = {
  positions: (person) => person.positions,
  education: (person) => person.education,
  certifications: (person) => person.certifications,
  courses: (person) => person.courses,
  volunteerExperience: (person) => person.volunteerExperience,
  languages: (person) => person.languages,
  honors: (person) => person.honors,
  organizations: (person) => person.organizations,
};

const SECTION_SIZES: Record<ProfileSection, (person: PersonRecord) => number> = {
  experience: (person) => person.positions.length,
  education: (person) => person.education.length,
  skills: (person) => person.skills.length,
  certifications: (person) => person.certifications.length,
  courses: (person) => person.courses.length,
  volunteerExperience: (person) => person.volunteerExperience.length,
  companyInterests: (person) => person.interests.length,
};

/** Sections profile details hold only a preview of. */
const SECTION_PREVIEWS: Partial<Record<ProfileSection, number>> = {
  experience: DETAILS_POSITIONS,
  skills: SKILLS_PREVIEW,
};

const COMPANY_SIZE_RANGES = Object.fromEntries(
  COMPANY_SIZES.map((size) => [size.code, size.range]),
) as Record<CompanyRecord['sizeCode'], string>;

const isWithheld = (person: PersonRecord, section: ProfileSection) => person.withheld.includes(section);

function sectionStatus(person: PersonRecord, section: ProfileSection): SectionStatus {
  if (isWithheld(person, section)) return 'unavailable';
  const size = SECTION_SIZES[section](person);
  if (size === 0) return 'empty';
  return size > (SECTION_PREVIEWS[section] ?? Number.POSITIVE_INFINITY) ? 'incomplete' : 'complete';
}

const firstPage = <T>(items: readonly T[]) => items.slice(0, FIRST_PAGE);

const personDoc = (person: PersonRecord): SearchDoc => ({
  names: [person.fullName, person.username],
  texts: [person.headline, person.location],
  weight: person.followerCount,
  key: person.internalId,
});
const companyDoc = (company: CompanyRecord): SearchDoc => ({
  names: [company.name, company.slug],
  texts: [company.description, company.summary, ...company.specialties],
  weight: company.followerCount,
  key: company.internalId,
});
const schoolDoc = (school: SchoolRecord): SearchDoc => ({
  names: [school.name, school.slug],
  texts: [school.location],
  weight: school.followerCount,
  key: school.internalId,
});
const postDoc = (post: PostRecord): SearchDoc => ({
  names: [],
  texts: [post.text, post.authorName],
  weight: post.reactionCount,
  key: post.internalId,
});
const jobDoc = (job: JobRecord): SearchDoc => ({
  names: [job.title],
  texts: [job.companyName, job.location, job.employmentType, job.seniority],
  weight: job.applicantCount ?? 0,
  key: job.internalId,
});
const idNameDoc = (record: Stored<IdName> & { city?: string; country?: string }): SearchDoc => ({
  names: record.city ? [record.name, record.city] : [record.name],
  texts: [record.country ?? null],
  weight: 0,
  key: record.internalId,
});

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

/** The values of one field with how many items have each, most frequent first; missing values are left out. */
function facet(values: readonly (string | null)[]): { value: string; jobs: number }[] {
  const counts = new Map<string, number>();
  for (const value of values) if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts]
    .map(([value, jobs]) => ({ value, jobs }))
    .sort((a, b) => b.jobs - a.jobs || a.value.localeCompare(b.value, 'en'));
}

/** "https://www.Example.com/" and "example.com." both read as "example.com". */
function normalizeDomain(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/^www\./, '')
    .replace(/\.$/, '');
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

/** A stream position is the decimal index of a raw window's first item. */
function streamStart(position: string | null, length: number): number {
  if (position === null) return 0;
  const start = /^\d{1,9}$/.test(position) ? Number(position) : Number.NaN;
  if (!(start <= length)) {
    throw InvalidRequestError.single(
      'cursor',
      'invalid_value',
      'The cursor does not point into this stream; restart without a cursor.',
    );
  }
  return start;
}

interface Candidate<T> {
  doc: SearchDoc;
  view: () => T;
}

export class DatasetSource implements DataSource {
  private readonly index: DatasetIndex;
  private readonly fetchedAt: string;
  private typeaheadCandidates?: Candidate<Stamped<TypeaheadItem>>[];
  private searchAllCandidates?: Candidate<Stamped<SearchAllItem>>[];

  constructor(private readonly dataset: Dataset) {
    this.index = new DatasetIndex(dataset);
    this.fetchedAt = dataset.fetchedAt;
  }

  /** Honours the signal, then answers a deep copy: callers may mutate what they get. */
  private async run<T>(signal: AbortSignal, work: () => T): Promise<T> {
    signal.throwIfAborted();
    return structuredClone(work());
  }

  private stamp<T extends object>(record: T, internalId: string): Stamped<T> {
    return { ...record, internalId, fetchedAt: this.fetchedAt, sourceTag: SOURCE_TAG };
  }

  // ---- Views: stored records to public shapes plus the private fields -----------------------------

  private personSummary(person: PersonRecord): Stamped<ProfileSummary> {
    const { publicId, username, fullName, headline, location, networkUrl } = person;
    return this.stamp({ publicId, username, fullName, headline, location, networkUrl }, person.internalId);
  }

  private companyItem(company: CompanyRecord): Stamped<CompanySearchItem> {
    const { name, slug, networkUrl, description, summary, logoUrl } = company;
    return this.stamp({ name, slug, networkUrl, description, summary, logoUrl }, company.internalId);
  }

  private idName(id: string): IdName | null {
    const record = this.index.locationsById.get(id) ?? this.index.industriesById.get(id);
    return record ? { id: record.id, name: record.name } : null;
  }

  private companyDetailsView(company: CompanyRecord): Stamped<CompanyDetails> {
    const size = COMPANY_SIZE_RANGES[company.sizeCode];
    return {
      ...this.companyItem(company),
      publicId: company.publicId,
      website: company.website,
      domain: company.domain,
      industry: this.idName(company.industryId),
      headquarters: this.idName(company.headquartersId),
      locations: company.locationIds.map((id) => this.idName(id)).filter((place) => place !== null),
      companySize: { code: company.sizeCode, range: size },
      foundedYear: company.foundedYear,
      specialties: company.specialties,
      followerCount: company.followerCount,
      hasJobs: company.hasJobs,
    };
  }

  private schoolView(school: SchoolRecord): Stamped<School> {
    const { name, slug, location, networkUrl } = school;
    return this.stamp({ name, slug, location, networkUrl }, school.internalId);
  }

  private postView = (post: PostRecord): Stamped<Post> => this.stamp({ ...post }, post.internalId);

  private reactionView = (reaction: ReactionRecord): Stamped<Reaction> => {
    const { reactionType, postSlug, postUrl, reactorName, reactorUsername, reactedAt } = reaction;
    return this.stamp(
      { reactionType, postSlug, postUrl, reactorName, reactorUsername, reactedAt },
      reaction.internalId,
    );
  };

  private jobSummary = (job: JobRecord): Stamped<JobSummary> => {
    const { jobId, url, title, companyName, companySlug, location, postedAt, employmentType } = job;
    return this.stamp(
      { jobId, url, title, companyName, companySlug, location, postedAt, employmentType },
      job.internalId,
    );
  };

  private idNameView = (record: Stored<IdName>): Stamped<IdName> =>
    this.stamp({ id: record.id, name: record.name }, record.internalId);

  /** A profile list as the source shows it: empty when withheld. */
  private listItems<L extends ProfileListName>(person: PersonRecord, list: L): Stamped<ProfileLists[L]>[] {
    const section = LIST_SECTIONS[list];
    if (section !== null && isWithheld(person, section)) return [];
    const read = LIST_READERS[list];
    return read(person).map((item, i) => this.stamp(item, `${person.internalId}/${list}/${i}`));
  }

  private companyInterests(person: PersonRecord): CompanyRecord[] {
    if (isWithheld(person, 'companyInterests')) return [];
    return person.interests
      .map((publicId) => this.index.companyById(publicId))
      .filter((company) => company !== undefined);
  }

  // ---- Profiles ---------------------------------------------------------------------------------

  profileDetails(ref: ProfileRef, signal: AbortSignal): Promise<ProfileDetailsResult> {
    return this.run(signal, () => {
      const person = this.index.person(ref);
      const skillsWithheld = isWithheld(person, 'skills');
      return {
        profile: this.stamp(
          {
            ...this.personSummary(person),
            summary: person.summary,
            experience: this.listItems(person, 'positions').slice(0, DETAILS_POSITIONS),
            education: this.listItems(person, 'education'),
            skills: skillsWithheld ? [] : person.skills.slice(0, SKILLS_PREVIEW).map((skill) => skill.name),
          },
          person.internalId,
        ),
        sections: Object.fromEntries(
          profileSections.map((section) => [section, sectionStatus(person, section)]),
        ),
        skillsHasMore: skillsWithheld ? null : person.skills.length > SKILLS_PREVIEW,
      };
    });
  }

  profileContact(ref: ProfileRef, signal: AbortSignal) {
    return this.run(signal, () => {
      const person = this.index.person(ref);
      return this.stamp({ ...person.contact }, `${person.internalId}/contact`);
    });
  }

  profileList<L extends ProfileListName>(ref: ProfileRef, list: L, signal: AbortSignal) {
    return this.run(signal, () => this.listItems(this.index.person(ref), list));
  }

  profileSkills(ref: ProfileRef, window: WindowRequest, signal: AbortSignal) {
    return this.run(signal, () => {
      const person = this.index.person(ref);
      const skills = isWithheld(person, 'skills') ? [] : person.skills;
      return windowOf(skills, window, (skill, i) =>
        this.stamp({ ...skill }, `${person.internalId}/skills/${i}`),
      );
    });
  }

  profileCompanyInterests(ref: ProfileRef, window: WindowRequest, signal: AbortSignal) {
    return this.run(signal, () => {
      const person = this.index.person(ref);
      return windowOf(this.companyInterests(person), window, (company, i) => {
        const interest: CompanyInterest = {
          name: company.name,
          slug: company.slug,
          publicId: company.publicId,
          followerCount: company.followerCount,
        };
        return this.stamp(interest, `${person.internalId}/companyInterests/${i}`);
      });
    });
  }

  /** The raw stream, newest first; null marks an item the source drops (a reaction to a comment). */
  private rawStream<K extends ActivityKind>(username: string, kind: K): (Stamped<ActivityItems[K]> | null)[] {
    const readers: { [A in ActivityKind]: () => (Stamped<ActivityItems[A]> | null)[] } = {
      posts: () => (this.index.postsByAuthor.get(username) ?? []).map(this.postView),
      comments: () =>
        (this.index.commentsByAuthor.get(username) ?? []).map((comment) =>
          this.stamp({ ...comment }, comment.internalId),
        ),
      reactions: () =>
        (this.index.reactionsByReactor.get(username) ?? []).map((reaction) =>
          reaction.commentId === null ? this.reactionView(reaction) : null,
        ),
    };
    const read = readers[kind];
    return read();
  }

  profileActivity<K extends ActivityKind>(
    username: string,
    kind: K,
    position: string | null,
    signal: AbortSignal,
  ): Promise<StreamPage<Stamped<ActivityItems[K]>>> {
    return this.run(signal, () => {
      const person = this.index.personByUsername(username);
      const raw = this.rawStream(person.username, kind);
      const start = streamStart(position, raw.length);
      const end = start + STREAM_WINDOW;
      return {
        items: raw.slice(start, end).filter((item) => item !== null),
        next: end < raw.length ? String(end) : null,
      };
    });
  }

  /** Colleagues first (same current company), then shared skills, then the same city. */
  similarProfiles(username: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const person = this.index.personByUsername(username);
      const employers = new Set(person.positions.filter((p) => p.isCurrent).map((p) => p.companySlug));
      const skills = new Set(person.skills.map((skill) => skill.name));
      const scored = this.dataset.people
        .filter((other) => other !== person)
        .map((other) => ({
          item: other,
          score:
            3 *
              other.positions.filter(
                (p) => p.isCurrent && p.companySlug !== null && employers.has(p.companySlug),
              ).length +
            other.skills.filter((skill) => skills.has(skill.name)).length +
            (other.location === person.location ? 1 : 0),
          weight: other.followerCount,
          key: other.internalId,
        }));
      return firstPage(ordered(scored)).map((other) => this.personSummary(other));
    });
  }

  // ---- Companies --------------------------------------------------------------------------------

  companyDetails(ref: CompanyRef, signal: AbortSignal) {
    return this.run(signal, () => this.companyDetailsView(this.index.company(ref)));
  }

  companyPosts(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const company = this.index.company({ slug });
      return firstPage(this.index.postsByCompany.get(company.slug) ?? []).map(this.postView);
    });
  }

  /** Same industry weighs most, a shared location adds; followers break ties. */
  similarCompanies(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const company = this.index.company({ slug });
      const scored = this.dataset.companies
        .filter((other) => other !== company)
        .map((other) => ({
          item: other,
          score:
            (other.industryId === company.industryId ? 2 : 0) +
            (other.locationIds.some((id) => company.locationIds.includes(id)) ? 1 : 0),
          weight: other.followerCount,
          key: other.internalId,
        }));
      return firstPage(ordered(scored)).map((other) => this.companyItem(other));
    });
  }

  companyPeople(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const company = this.index.company({ slug });
      return firstPage(this.index.employeesByCompany.get(company.slug) ?? []).map((person) =>
        this.personSummary(person),
      );
    });
  }

  companyProducts(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const company = this.index.company({ slug });
      return firstPage(company.products).map((product, i) =>
        this.stamp({ ...product }, `${company.internalId}/products/${i}`),
      );
    });
  }

  companyJobs(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const company = this.index.company({ slug });
      return firstPage(this.index.jobsByCompany.get(company.slug) ?? []).map(this.jobSummary);
    });
  }

  companyTotals(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const company = this.index.company({ slug });
      return {
        employees: this.index.employeesByCompany.get(company.slug)?.length ?? 0,
        jobs: this.index.jobsByCompany.get(company.slug)?.length ?? 0,
        posts: this.index.postsByCompany.get(company.slug)?.length ?? 0,
        products: company.products.length,
      };
    });
  }

  companyStaffCounts(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const { publicId } = this.index.company({ slug });
      const count = (filters: PeopleSearchFilters) =>
        this.dataset.people.filter(peopleFilter(filters)).length;
      return {
        publicId,
        current: count({ keywords: '', currentCompany: publicId }),
        past: count({ keywords: '', pastCompany: publicId }),
      };
    });
  }

  searchCompanies(filters: CompanySearchFilters, window: WindowRequest, signal: AbortSignal) {
    return this.run(signal, () => {
      const matches = rank(this.dataset.companies, filters.keywords, companyDoc).filter(
        companyFilter(filters),
      );
      return windowOf(matches, window, (company) => this.companyItem(company));
    });
  }

  /** The domain itself or any subdomain of it; the domain's own companies first, then by name. */
  searchCompaniesByDomain(domain: string, window: WindowRequest, signal: AbortSignal) {
    return this.run(signal, () => {
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
      return windowOf(ordered(scored), window, (company) => this.companyItem(company));
    });
  }

  // ---- Posts --------------------------------------------------------------------------------------

  post(slug: string, signal: AbortSignal) {
    return this.run(signal, () => this.postView(this.index.post(slug)));
  }

  postComments(slug: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const post = this.index.post(slug);
      return firstPage(this.index.commentsByPost.get(post.slug) ?? []).map((comment) =>
        this.stamp({ ...comment }, comment.internalId),
      );
    });
  }

  postReactions(slug: string, reactionType: ReactionType | 'ALL', signal: AbortSignal) {
    return this.run(signal, () => {
      const post = this.index.post(slug);
      const reactions = (this.index.reactionsByPost.get(post.slug) ?? []).filter(
        (reaction) => reactionType === 'ALL' || reaction.reactionType === reactionType,
      );
      return firstPage(reactions).map(this.reactionView);
    });
  }

  // ---- Searches -------------------------------------------------------------------------------

  searchSchools(keywords: string, signal: AbortSignal) {
    return this.run(signal, () =>
      firstPage(rank(this.dataset.schools, keywords, schoolDoc)).map((school) => this.schoolView(school)),
    );
  }

  searchPeople(filters: PeopleSearchFilters, signal: AbortSignal) {
    return this.run(signal, () => {
      const matches = rank(this.dataset.people, filters.keywords, personDoc).filter(peopleFilter(filters));
      return firstPage(matches).map((person) => this.personSummary(person));
    });
  }

  searchAll(keywords: string, signal: AbortSignal) {
    return this.run(signal, () => {
      this.searchAllCandidates ??= this.buildSearchAllCandidates();
      return firstPage(rank(this.searchAllCandidates, keywords, (candidate) => candidate.doc)).map(
        (candidate) => candidate.view(),
      );
    });
  }

  private buildSearchAllCandidates(): Candidate<Stamped<SearchAllItem>>[] {
    const { people, companies, schools, posts, jobs } = this.dataset;
    return [
      ...people.map((item) => ({
        doc: personDoc(item),
        view: () => ({ type: 'person' as const, ...this.personSummary(item) }),
      })),
      ...companies.map((item) => ({
        doc: companyDoc(item),
        view: () => ({ type: 'company' as const, ...this.companyItem(item) }),
      })),
      ...schools.map((item) => ({
        doc: schoolDoc(item),
        view: () => ({ type: 'school' as const, ...this.schoolView(item) }),
      })),
      ...posts.map((item) => ({
        doc: postDoc(item),
        view: () => ({ type: 'post' as const, ...this.postView(item) }),
      })),
      ...jobs.map((item) => ({
        doc: jobDoc(item),
        view: () => ({ type: 'job' as const, ...this.jobSummary(item) }),
      })),
    ];
  }

  /** Hashtags compare without "#" and case, as the hashtag parameter hands them over. */
  searchPostsByHashtag(hashtag: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const tag = hashtag.replace(/^#/, '').normalize('NFC').toLowerCase();
      return firstPage(this.dataset.posts.filter((post) => post.hashtags.includes(tag))).map(this.postView);
    });
  }

  searchPosts(keywords: string, signal: AbortSignal) {
    return this.run(signal, () => firstPage(rank(this.dataset.posts, keywords, postDoc)).map(this.postView));
  }

  searchLocations(keywords: string, signal: AbortSignal) {
    return this.run(signal, () =>
      firstPage(rank(this.dataset.locations, keywords, idNameDoc)).map(this.idNameView),
    );
  }

  searchIndustries(query: string, signal: AbortSignal) {
    return this.run(signal, () =>
      firstPage(rank(this.dataset.industries, query, idNameDoc)).map(this.idNameView),
    );
  }

  serviceCategories(signal: AbortSignal) {
    return this.run(signal, () => firstPage(this.dataset.serviceCategories).map(this.idNameView));
  }

  /** Locations where some company is, and industries some company is in, by name. */
  companySearchFilterValues(signal: AbortSignal) {
    return this.run(signal, () => {
      const used = (ids: Iterable<string>) => new Set(ids);
      const locationIds = used(this.dataset.companies.flatMap((company) => company.locationIds));
      const industryIds = used(this.dataset.companies.map((company) => company.industryId));
      const byName = (a: IdName, b: IdName) => a.name.localeCompare(b.name, 'en');
      return {
        locations: this.dataset.locations
          .filter((location) => locationIds.has(location.id))
          .sort(byName)
          .map(this.idNameView),
        industries: this.dataset.industries
          .filter((industry) => industryIds.has(industry.id))
          .sort(byName)
          .map(this.idNameView),
        companySizes: Object.entries(COMPANY_SIZE_RANGES).map(([code, range]) => ({
          code: code as CompanyRecord['sizeCode'],
          range,
        })),
      };
    });
  }

  typeahead(query: string, signal: AbortSignal) {
    return this.run(signal, () => {
      this.typeaheadCandidates ??= this.buildTypeaheadCandidates();
      return firstPage(rank(this.typeaheadCandidates, query, (candidate) => candidate.doc)).map((candidate) =>
        candidate.view(),
      );
    });
  }

  private buildTypeaheadCandidates(): Candidate<Stamped<TypeaheadItem>>[] {
    const { people, companies, schools, locations, industries } = this.dataset;
    const candidate = (doc: SearchDoc, type: TypeaheadItem['type'], id: string, label: string) => ({
      doc,
      view: () => this.stamp({ type, id, label }, doc.key),
    });
    return [
      ...people.map((item) => candidate(personDoc(item), 'person', item.username, item.fullName)),
      ...companies.map((item) => candidate(companyDoc(item), 'company', item.slug, item.name)),
      ...schools.map((item) => candidate(schoolDoc(item), 'school', item.slug, item.name)),
      ...locations.map((item) => candidate(idNameDoc(item), 'location', item.id, item.name)),
      ...industries.map((item) => candidate(idNameDoc(item), 'industry', item.id, item.name)),
    ];
  }

  searchJobs(keywords: string, signal: AbortSignal) {
    return this.run(signal, () => firstPage(rank(this.dataset.jobs, keywords, jobDoc)).map(this.jobSummary));
  }

  jobSearchFacets(keywords: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const matches = rank(this.dataset.jobs, keywords, jobDoc);
      return {
        matched: matches.length,
        location: facet(matches.map((job) => job.location)),
        company: facet(matches.map((job) => job.companyName)),
        employmentType: facet(matches.map((job) => job.employmentType)),
        seniority: facet(matches.map((job) => job.seniority)),
      };
    });
  }

  job(jobId: string, signal: AbortSignal) {
    return this.run(signal, () => {
      const job = this.index.job(jobId);
      return this.stamp({ ...job }, job.internalId);
    });
  }
}

let shared: DatasetSource | undefined;

/** The default dataset, generated on first use and shared for the life of the process. */
export function defaultDatasetSource(): DatasetSource {
  shared ??= new DatasetSource(generateDataset());
  return shared;
}
