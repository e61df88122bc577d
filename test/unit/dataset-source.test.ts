/**
 * The embedded dataset and its DataSource adapter: generation is deterministic and consistent, every
 * named fixture resolves and has the property its name promises, lookups and searches follow the
 * port's rules (not-found errors, filters, ranking, narrowing, activity windows), and records carry
 * the private fields the public schemas must strip.
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  COMPANY_PUBLIC_ID,
  companySlugParam,
  POST_SLUG,
  PROFILE_PUBLIC_ID,
  reactionTypes,
  usernameParam,
} from '../../schemas/parameters.js';
import {
  commentSchema,
  companyDetailsSchema,
  companyInterestSchema,
  companySearchItemSchema,
  contactSchema,
  jobDetailsSchema,
  jobSummarySchema,
  locationSchema,
  positionSchema,
  postSchema,
  productSchema,
  profileDetailsSchema,
  profileSummarySchema,
  reactionSchema,
  schoolSchema,
  searchAllItemSchema,
  skillSchema,
  typeaheadItemSchema,
} from '../../schemas/records.js';
import { type ApiError, InvalidRequestError, ResourceNotFoundError } from '../../shared/errors.js';
import type {
  ActivityKind,
  CompanySearchFilters,
  DataSource,
  ProfileRef,
  Window,
} from '../../shared/sources/data-source.js';
import { DatasetSource, FIRST_PAGE, SOURCE_TAG } from '../../shared/sources/dataset/dataset-source.js';
import {
  DATASET_FETCHED_AT,
  DEFAULT_SEED,
  datasetFixtures as fx,
} from '../../shared/sources/dataset/fixtures.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';
import type { CompanyRecord, PersonRecord } from '../../shared/sources/dataset/model.js';
import { DETAILS_POSITIONS, SKILLS_PREVIEW } from '../../shared/sources/dataset/person-details.js';
import { Relevance, relevance } from '../../shared/sources/dataset/search.js';
import { memoryDatasetReader } from '../support/memory-reader.js';

const started = performance.now();
const dataset = generateDataset();
const generationMs = performance.now() - started;
const source = new DatasetSource(memoryDatasetReader(dataset));
const live = new AbortController().signal;
const everything = { start: 0, count: 10_000 };

const companyBySlug = new Map(dataset.companies.map((company) => [company.slug, company]));
const personByUsername = new Map(dataset.people.map((person) => [person.username, person]));
const rich = { username: fx.richProfile.username };

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`test setup: no ${what}`);
  return value;
}
const companyOf = (slug: string): CompanyRecord => must(companyBySlug.get(slug), `company ${slug}`);
const personOf = (username: string): PersonRecord =>
  must(personByUsername.get(username), `person ${username}`);

/** Walks a profile's activity stream to its end, page by page. */
async function walk(subject: DataSource, username: string, kind: ActivityKind) {
  const pages: { position: string | null; items: { internalId?: string }[]; next: string | null }[] = [];
  let position: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const page: { items: { internalId?: string }[]; next: string | null } = await subject.profileActivity(
      username,
      kind,
      position,
      live,
    );
    pages.push({ position, ...page });
    if (page.next === null) return pages;
    position = page.next;
  }
  throw new Error('the stream never ended');
}

describe('generation', () => {
  it('is deterministic: two generations with the default seed are equal', () => {
    expect(generateDataset(DEFAULT_SEED)).toEqual(dataset);
  });

  it('varies with the seed, except for the planted records', () => {
    const other = generateDataset(7);
    expect(other.people.map((person) => person.username)).not.toEqual(
      dataset.people.map((person) => person.username),
    );
    expect(other.people.find((person) => person.username === fx.richProfile.username)?.publicId).toBe(
      fx.richProfile.publicId,
    );
  });

  it('builds the expected sizes in seconds, not minutes', () => {
    // A loose bound (it takes well under a second alone): the suite runs two files at a time on two
    // cores, so only a runaway generation, not a busy machine, may fail it. Speed is bench/'s.
    expect(generationMs).toBeLessThan(15_000);
    expect(dataset.locations.length).toBeGreaterThanOrEqual(40);
    expect(dataset.industries.length).toBeGreaterThanOrEqual(30);
    expect(dataset.serviceCategories.length).toBe(12);
    expect(dataset.schools.length).toBeGreaterThanOrEqual(25);
    expect(dataset.companies.length).toBe(80);
    expect(dataset.people.length).toBe(300);
    expect(dataset.posts.length).toBeGreaterThan(500);
    expect(dataset.comments.length).toBeGreaterThan(500);
    expect(dataset.reactions.length).toBeGreaterThan(1_000);
    expect(dataset.jobs.length).toBeGreaterThan(30);
  });

  // Fixtures must hold for any seed, not only the default one.
  it.each([1, 42, 99_999])('keeps the fixtures true with seed %i', async (seed) => {
    const other = new DatasetSource(memoryDatasetReader(generateDataset(seed)));
    const empty = await other.profileActivity(
      fx.richProfile.username,
      'reactions',
      fx.richProfile.emptyReactionsPosition,
      live,
    );
    expect(empty).toEqual({ items: [], next: '20' });
    expect(
      (await other.searchCompanies({ keywords: fx.broadCompanyKeyword }, everything, live)).total,
    ).toBeGreaterThan(25);
    expect((await other.searchCompaniesByDomain(fx.sharedDomain.domain, everything, live)).total).toBe(
      fx.sharedDomain.companyCount,
    );
    expect(await other.searchPeople(fx.peopleNarrowing, live)).not.toEqual([]);
  });
});

describe('data consistency', () => {
  const unique = (values: string[]) => expect(new Set(values).size).toBe(values.length);

  it('gives every record unique identifiers of the shapes lookup accepts', () => {
    unique(dataset.people.map((person) => person.publicId));
    unique(dataset.people.map((person) => person.username));
    unique(dataset.companies.map((company) => company.publicId));
    unique(dataset.companies.map((company) => company.slug));
    unique(dataset.posts.map((post) => post.slug));
    unique(dataset.comments.map((comment) => comment.commentId));
    unique(dataset.jobs.map((job) => job.jobId));
    unique(dataset.locations.map((location) => location.id));
    unique(dataset.industries.map((industry) => industry.id));
    for (const person of dataset.people) {
      expect(person.publicId).toMatch(PROFILE_PUBLIC_ID);
      expect(usernameParam.safeParse(person.username).success).toBe(true);
      expect(person.username).toBe(person.username.normalize('NFC'));
      expect(person.networkUrl).toBe(`https://www.linkedin.com/in/${encodeURIComponent(person.username)}/`);
    }
    for (const company of dataset.companies) {
      expect(company.publicId).toMatch(COMPANY_PUBLIC_ID);
      expect(companySlugParam.safeParse(company.slug).success, company.slug).toBe(true);
    }
    for (const job of dataset.jobs) expect(job.url).toBe(`https://www.linkedin.com/jobs/view/${job.jobId}/`);
    for (const job of dataset.jobs) expect(job.jobId).toMatch(/^\d{6,12}$/);
    for (const id of [...dataset.locations, ...dataset.industries].map((record) => record.id))
      expect(id).toMatch(/^\d{1,12}$/);
  });

  it('shapes post slugs as <author>_<3-5 words>-activity-<19 digits>-<4 chars>', () => {
    for (const post of dataset.posts) {
      expect(post.slug).toMatch(POST_SLUG);
      expect(post.slug).toMatch(/^[a-z0-9-]+_[a-z0-9]+(-[a-z0-9]+){2,4}-activity-\d{19}-[A-Za-z0-9]{4}$/);
      expect(post.url).toBe(`https://www.linkedin.com/posts/${post.slug}/`);
    }
  });

  it('plants the unusual slugs the network hands out', () => {
    const slugs = new Set(dataset.companies.map((company) => company.slug));
    for (const slug of fx.unusualSlugs) expect(slugs.has(slug), slug).toBe(true);
  });

  it('places every position at a dataset company (or none), and every school, interest and location resolves', () => {
    const schools = new Set(dataset.schools.map((school) => school.slug));
    const companyIds = new Set(dataset.companies.map((company) => company.publicId));
    for (const person of dataset.people) {
      for (const position of person.positions) {
        if (position.companySlug === null) {
          expect(position.companyPublicId).toBeNull();
          continue;
        }
        const company = companyOf(position.companySlug);
        expect([position.companyPublicId, position.companyName]).toEqual([company.publicId, company.name]);
      }
      expect(person.positions.filter((position) => position.isCurrent).length).toBeLessThanOrEqual(1);
      for (const entry of person.education) expect(schools.has(entry.schoolSlug ?? '')).toBe(true);
      for (const publicId of person.interests) expect(companyIds.has(publicId)).toBe(true);
    }
    const locations = new Set(dataset.locations.map((location) => location.id));
    for (const company of dataset.companies) {
      expect(company.locationIds[0]).toBe(company.headquartersId);
      for (const id of company.locationIds) expect(locations.has(id)).toBe(true);
      expect(company.networkUrl).toBe(`https://www.linkedin.com/company/${company.slug}/`);
    }
  });

  it('keeps activity in order: comments after their post, reactions after their target', () => {
    const posts = new Map(dataset.posts.map((post) => [post.slug, post]));
    const comments = new Map(dataset.comments.map((comment) => [comment.commentId, comment]));
    for (const comment of dataset.comments) {
      const post = must(posts.get(comment.postSlug), `post ${comment.postSlug}`);
      expect(Date.parse(comment.commentedAt)).toBeGreaterThan(Date.parse(post.postedAt));
      expect(comment.authorUsername).not.toBe(post.authorUsername);
    }
    for (const reaction of dataset.reactions) {
      const post = must(posts.get(reaction.postSlug), `post ${reaction.postSlug}`);
      const comment =
        reaction.commentId === null ? undefined : must(comments.get(reaction.commentId), 'comment');
      if (comment) expect(comment.postSlug).toBe(reaction.postSlug);
      expect(Date.parse(reaction.reactedAt)).toBeGreaterThan(
        Date.parse(comment?.commentedAt ?? post.postedAt),
      );
      expect(Date.parse(reaction.reactedAt)).toBeLessThan(Date.parse(DATASET_FETCHED_AT));
    }
  });

  it('counts each post’s comments and reactions as the dataset holds them', () => {
    for (const post of dataset.posts) {
      expect(post.commentCount).toBe(
        dataset.comments.filter((comment) => comment.postSlug === post.slug).length,
      );
      expect(post.reactionCount).toBe(
        dataset.reactions.filter((reaction) => reaction.postSlug === post.slug && reaction.commentId === null)
          .length,
      );
    }
  });

  it('marks a company as hiring exactly when it has jobs', () => {
    const hiring = new Set(dataset.jobs.map((job) => job.companySlug));
    for (const company of dataset.companies) expect(company.hasJobs).toBe(hiring.has(company.slug));
    expect(dataset.companies.some((company) => !company.hasJobs)).toBe(true);
  });

  it('has long and empty lists to page through', () => {
    expect(dataset.people.filter((person) => person.skills.length > 25).length).toBeGreaterThan(1);
    expect(dataset.people.filter((person) => person.skills.length === 0).length).toBeGreaterThan(1);
    expect(dataset.people.filter((person) => person.interests.length > 25).length).toBeGreaterThan(1);
    expect(dataset.people.some((person) => person.skills.some((skill) => skill.endorsementCount === 0))).toBe(
      true,
    );
    expect(
      dataset.people.some((person) => person.positions.some((position) => position.companySlug === null)),
    ).toBe(true);
  });
});

describe('records as the port returns them', () => {
  const fixturePost = fx.post.slug;
  const lookups: [string, () => Promise<unknown>, z.ZodType][] = [
    ['profile details', async () => (await source.profileDetails(rich, live)).profile, profileDetailsSchema],
    ['contact', () => source.profileContact(rich, live), contactSchema],
    ['a position', async () => (await source.profileList(rich, 'positions', live))[0], positionSchema],
    [
      'a skill',
      async () => (await source.profileSkills(rich, { start: 0, count: 10 }, live)).items[0],
      skillSchema,
    ],
    [
      'a company interest',
      async () => (await source.profileCompanyInterests(rich, { start: 0, count: 10 }, live)).items[0],
      companyInterestSchema,
    ],
    ['a post', () => source.post(fixturePost, live), postSchema],
    ['a comment', async () => (await source.postComments(fixturePost, live))[0], commentSchema],
    ['a reaction', async () => (await source.postReactions(fixturePost, 'ALL', live))[0], reactionSchema],
    [
      'a similar profile',
      async () => (await source.similarProfiles(fx.richProfile.username, live))[0],
      profileSummarySchema,
    ],
    [
      'company details',
      () => source.companyDetails({ slug: fx.richCompany.slug }, live),
      companyDetailsSchema,
    ],
    ['a product', async () => (await source.companyProducts(fx.richCompany.slug, live))[0], productSchema],
    ['a company job', async () => (await source.companyJobs(fx.richCompany.slug, live))[0], jobSummarySchema],
    [
      'a company search item',
      async () =>
        (await source.searchCompanies({ keywords: 'helix' }, { start: 0, count: 1 }, live)).items[0],
      companySearchItemSchema,
    ],
    ['a school', async () => (await source.searchSchools(fx.schoolKeyword, live))[0], schoolSchema],
    ['a location', async () => (await source.searchLocations(fx.locationKeyword, live))[0], locationSchema],
    ['a service category', async () => (await source.serviceCategories(live))[0], locationSchema],
    ['a typeahead item', async () => (await source.typeahead('helix', live))[0], typeaheadItemSchema],
    ['a search-all item', async () => (await source.searchAll('northwind', live))[0], searchAllItemSchema],
    ['job details', () => source.job(fx.jobId, live), jobDetailsSchema],
  ];

  it.each(lookups)('%s has its public shape and the private fields', async (_, lookup, schema) => {
    const record = (await lookup()) as Record<string, unknown>;
    expect(schema.safeParse(record).success).toBe(true);
    expect(record).toMatchObject({
      internalId: expect.any(String),
      fetchedAt: DATASET_FETCHED_AT,
      sourceTag: SOURCE_TAG,
    });
    expect(Object.keys(schema.parse(record) as object)).not.toContain('internalId');
  });

  it('answers copies: mutating one answer changes nothing for the next', async () => {
    const first = await source.companyDetails({ slug: fx.richCompany.slug }, live);
    first.name = 'Changed';
    first.specialties.push('Changed');
    const again = await source.companyDetails({ slug: fx.richCompany.slug }, live);
    expect(again.name).toBe(fx.richCompany.name);
    expect(again.specialties).not.toContain('Changed');
  });

  it.each<[string, (signal: AbortSignal) => Promise<unknown>]>([
    ['profile details', (signal) => source.profileDetails(rich, signal)],
    ['activity', (signal) => source.profileActivity(fx.richProfile.username, 'posts', null, signal)],
    ['company search', (signal) => source.searchCompanies({ keywords: 'helix' }, everything, signal)],
    ['service categories', (signal) => source.serviceCategories(signal)],
  ])('%s rejects with the abort reason once the signal is aborted', async (_, call) => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(call(controller.signal)).rejects.toBe(reason);
  });
});

describe('fixtures resolve', () => {
  it.each<[string, ProfileRef]>([
    ['rich profile by username', { username: fx.richProfile.username }],
    ['rich profile by publicId', { publicId: fx.richProfile.publicId }],
    ['withheld profile', { username: fx.withheldProfile.username }],
    ['empty profile', { publicId: fx.emptyProfile.publicId }],
    ['many positions profile', { username: fx.manyPositionsProfile.username }],
    ...fx.nonEnglishUsernames.map((username): [string, ProfileRef] => [
      `non-English username ${username}`,
      { username },
    ]),
  ])('%s', async (_, ref) => {
    const { profile } = await source.profileDetails(ref, live);
    expect('username' in ref ? profile.username : profile.publicId).toBe(
      'username' in ref ? ref.username : ref.publicId,
    );
  });

  it('the rich company, by slug and by publicId, with jobs, products, posts and people', async () => {
    const bySlug = await source.companyDetails({ slug: fx.richCompany.slug }, live);
    expect(await source.companyDetails({ publicId: fx.richCompany.publicId }, live)).toEqual(bySlug);
    expect(bySlug).toMatchObject({
      publicId: fx.richCompany.publicId,
      name: fx.richCompany.name,
      hasJobs: true,
    });
    const jobs = await source.companyJobs(fx.richCompany.slug, live);
    expect(jobs.map((job) => job.jobId)).toContain(fx.jobId);
    expect((await source.companyProducts(fx.richCompany.slug, live)).length).toBeGreaterThan(0);
    const posts = await source.companyPosts(fx.richCompany.slug, live);
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts)
      expect(post).toMatchObject({ authorCompanySlug: fx.richCompany.slug, authorUsername: null });
    const people = await source.companyPeople(fx.richCompany.slug, live);
    expect(people.length).toBeGreaterThan(0);
    for (const person of people) {
      expect(
        personOf(person.username).positions.some((p) => p.isCurrent && p.companySlug === fx.richCompany.slug),
      ).toBe(true);
    }
  });

  it('the job, by id', async () => {
    expect(await source.job(fx.jobId, live)).toMatchObject({
      jobId: fx.jobId,
      companySlug: fx.richCompany.slug,
    });
  });

  it.each(fx.unusualSlugs)('unusual slug %s appears in search results', async (slug) => {
    const company = companyOf(slug);
    const { items } = await source.searchCompanies({ keywords: company.name }, everything, live);
    expect(items.map((item) => item.slug)).toContain(slug);
  });

  it('the school keyword, location keyword and industry query find their records first', async () => {
    const schools = await source.searchSchools(fx.schoolKeyword, live);
    expect(schools.length).toBeGreaterThan(2);
    for (const school of schools) expect(school.name.toLowerCase()).toContain(fx.schoolKeyword);
    expect((await source.searchLocations(fx.locationKeyword, live))[0]?.id).toBe(
      fx.branchLocation.locationId,
    );
    expect((await source.searchIndustries(fx.industryQuery, live))[0]).toMatchObject({
      id: '43',
      name: fx.industryQuery,
    });
  });
});

describe('identifiers and not-found', () => {
  it.each([
    ['ASCII letters in any case', 'Amelia-HARTMANN', fx.richProfile.username],
    ['a decomposed (NFD) non-English username', 'zoë-müller'.normalize('NFD'), 'zoë-müller'],
  ])('finds a username given %s', async (_, given, expected) => {
    expect((await source.profileDetails({ username: given }, live)).profile.username).toBe(expected);
  });

  it.each([
    ['an unknown username', () => source.profileDetails({ username: 'nobody-here' }, live)],
    [
      'a non-English username with its letters uppercased',
      () => source.profileDetails({ username: 'JOSÉ-GARCÍA' }, live),
    ],
    [
      'a non-English username without its accents',
      () => source.profileDetails({ username: 'jose-garcia' }, live),
    ],
    [
      'an unknown publicId',
      () => source.profileDetails({ publicId: 'ACoAAnotAnyoneAtAllInThisDataset0' }, live),
    ],
    ['an unknown username (contact)', () => source.profileContact({ username: 'nobody-here' }, live)],
    ['an unknown username (list)', () => source.profileList({ username: 'nobody-here' }, 'courses', live)],
    ['an unknown username (activity)', () => source.profileActivity('nobody-here', 'reactions', null, live)],
    ['an unknown username (similar)', () => source.similarProfiles('nobody-here', live)],
    ['an unknown company slug', () => source.companyDetails({ slug: 'no-such-company' }, live)],
    ['an unknown company publicId', () => source.companyDetails({ publicId: '1' }, live)],
    ['an unknown company (jobs)', () => source.companyJobs('no-such-company', live)],
    ['an unknown company (people)', () => source.companyPeople('no-such-company', live)],
    ['an unknown post', () => source.post('someone_a-b-c-activity-1234567890123456789-abcd', live)],
    [
      'an unknown post (reactions)',
      () => source.postReactions('someone_a-b-c-activity-1234567890123456789-abcd', 'ALL', live),
    ],
    ['an unknown job', () => source.job('123456', live)],
  ])('%s is ResourceNotFoundError', async (_, call) => {
    const error = await call().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as ApiError).message).toMatch(/^No (profile|company|post|job) has the/);
  });

  it('finds company slugs regardless of ASCII case', async () => {
    expect((await source.companyDetails({ slug: 'Northwind-Analytics' }, live)).slug).toBe(
      fx.richCompany.slug,
    );
  });

  it.each<[string, () => Promise<unknown[]>]>([
    ['people', () => source.searchPeople({ keywords: 'zzqx' }, live)],
    ['schools', () => source.searchSchools('zzqx', live)],
    ['posts', () => source.searchPosts('zzqx', live)],
    ['hashtag', () => source.searchPostsByHashtag('zzqx', live)],
    ['locations', () => source.searchLocations('zzqx', live)],
    ['industries', () => source.searchIndustries('zzqx', live)],
    ['typeahead', () => source.typeahead('zzqx', live)],
    ['jobs', () => source.searchJobs('zzqx', live)],
    ['all', () => source.searchAll('zzqx', live)],
    ['companies', async () => (await source.searchCompanies({ keywords: 'zzqx' }, everything, live)).items],
    ['domain', async () => (await source.searchCompaniesByDomain('nowhere.example', everything, live)).items],
  ])('a %s search that matches nothing answers []', async (_, call) => {
    expect(await call()).toEqual([]);
  });

  it.each<[string, () => Promise<unknown[]>]>([
    ['people', () => source.searchPeople({ keywords: 'engineer' }, live)],
    ['posts', () => source.searchPosts('team', live)],
    ['hashtag', () => source.searchPostsByHashtag(fx.hashtag, live)],
    ['jobs', () => source.searchJobs('engineer', live)],
    ['all', () => source.searchAll('helix', live)],
    ['typeahead', () => source.typeahead('a', live)],
    ['service categories', () => source.serviceCategories(live)],
    ['similar companies', () => source.similarCompanies(fx.richCompany.slug, live)],
    ['post comments', () => source.postComments(fx.post.slug, live)],
  ])('a %s list answers its first page of ten', async (_, call) => {
    expect(await call()).toHaveLength(FIRST_PAGE);
  });
});

describe('profile sections', () => {
  it('the rich profile: everything complete, skills only previewed', async () => {
    const details = await source.profileDetails(rich, live);
    expect(details.sections).toEqual({
      experience: 'complete',
      education: 'complete',
      skills: 'incomplete',
      certifications: 'complete',
      courses: 'complete',
      volunteerExperience: 'complete',
      companyInterests: 'complete',
    });
    expect(details.skillsHasMore).toBe(true);
    const skills = await source.profileSkills(rich, everything, live);
    expect(details.profile.skills).toEqual(skills.items.slice(0, SKILLS_PREVIEW).map((skill) => skill.name));
  });

  it('the withheld profile: unavailable sections read as empty, skillsHasMore is null', async () => {
    const ref = { username: fx.withheldProfile.username };
    const details = await source.profileDetails(ref, live);
    for (const section of fx.withheldProfile.withheld) expect(details.sections[section]).toBe('unavailable');
    expect(details.skillsHasMore).toBeNull();
    expect(details.profile.education).toEqual([]);
    expect(details.profile.skills).toEqual([]);
    expect(await source.profileList(ref, 'education', live)).toEqual([]);
    expect(await source.profileSkills(ref, everything, live)).toEqual({ items: [], total: 0 });
    expect(await source.profileCompanyInterests(ref, everything, live)).toEqual({ items: [], total: 0 });
    // Withheld, not missing: the dataset holds skills the source does not show.
    expect(personOf(fx.withheldProfile.username).skills.length).toBeGreaterThan(0);
  });

  it('the empty profile: every section but experience empty, nothing to page', async () => {
    const ref = { publicId: fx.emptyProfile.publicId };
    const details = await source.profileDetails(ref, live);
    const { experience, ...rest } = details.sections;
    expect(experience).toBe('complete');
    expect(new Set(Object.values(rest))).toEqual(new Set(['empty']));
    expect(details.skillsHasMore).toBe(false);
    expect(await source.profileContact(ref, live)).toMatchObject({
      emails: [],
      phoneNumbers: [],
      websites: [],
      twitterHandles: [],
    });
    for (const kind of ['posts', 'comments', 'reactions'] as const) {
      expect(await source.profileActivity(fx.emptyProfile.username, kind, null, live)).toEqual({
        items: [],
        next: null,
      });
    }
  });

  it('the many-positions profile: details preview five positions, the list holds all', async () => {
    const ref = { username: fx.manyPositionsProfile.username };
    const details = await source.profileDetails(ref, live);
    const positions = await source.profileList(ref, 'positions', live);
    expect(details.sections.experience).toBe('incomplete');
    expect(positions).toHaveLength(fx.manyPositionsProfile.positions);
    expect(details.profile.experience).toEqual(positions.slice(0, DETAILS_POSITIONS));
    expect(positions[0]?.isCurrent).toBe(true);
  });

  it.each<[string, (start: number) => Promise<Window<{ name: string }>>, number]>([
    ['skills', (start: number) => source.profileSkills(rich, { start, count: 10 }, live), 32],
    [
      'company interests',
      (start: number) => source.profileCompanyInterests(rich, { start, count: 10 }, live),
      30,
    ],
  ])('windows %s from any start, with the whole total', async (_, read, total) => {
    const windows = await Promise.all([0, 10, 20, 30].map(read));
    expect(windows.map((window) => [window.items.length, window.total])).toEqual([
      [10, total],
      [10, total],
      [10, total],
      [total - 30, total],
    ]);
    const names = windows.flatMap((window) => window.items.map((item) => item.name));
    expect(new Set(names).size).toBe(total);
  });
});

describe('company search', () => {
  const keywords = fx.broadCompanyKeyword;
  const all = async (filters: Omit<CompanySearchFilters, 'keywords'> = {}) =>
    (await source.searchCompanies({ keywords, ...filters }, everything, live)).items.map((item) =>
      companyOf(item.slug),
    );

  const berlin = fx.branchLocation.locationId;
  const tokyo = '101355337';
  const filters: [string, Omit<CompanySearchFilters, 'keywords'>, (company: CompanyRecord) => boolean][] = [
    ['a location (HQ or branch)', { locationIds: [berlin] }, (c) => c.locationIds.includes(berlin)],
    [
      'any of two locations',
      { locationIds: [berlin, tokyo] },
      (c) => c.locationIds.includes(berlin) || c.locationIds.includes(tokyo),
    ],
    ['an industry', { industryIds: [fx.industryId] }, (c) => c.industryId === fx.industryId],
    ['any of two sizes', { companySizes: ['D', 'F'] }, (c) => c.sizeCode === 'D' || c.sizeCode === 'F'],
    ['hasJobs', { hasJobs: true }, (c) => c.hasJobs],
    [
      'all four together',
      { locationIds: [berlin], industryIds: [fx.industryId], companySizes: ['F'], hasJobs: true },
      (c) =>
        c.locationIds.includes(berlin) && c.industryId === fx.industryId && c.sizeCode === 'F' && c.hasJobs,
    ],
  ];

  it.each(filters)('filters by %s: exactly the keyword matches that satisfy it', async (_, filter, holds) => {
    const unfiltered = await all();
    const filtered = await all(filter);
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.length).toBeLessThan(unfiltered.length);
    expect(filtered).toEqual(unfiltered.filter(holds));
    // The rich company satisfies every filter of the table.
    expect(filtered.map((company) => company.slug)).toContain(fx.branchLocation.companySlug);
  });

  it('matches a location that is only a branch', async () => {
    const company = companyOf(fx.branchLocation.companySlug);
    expect(company.headquartersId).toBe(fx.branchLocation.headquartersId);
    expect(company.headquartersId).not.toBe(berlin);
    expect((await all({ locationIds: [berlin] })).map((c) => c.slug)).toContain(company.slug);
  });

  it('pages the keyword matches with their total', async () => {
    const first = await source.searchCompanies({ keywords }, { start: 0, count: 10 }, live);
    const third = await source.searchCompanies({ keywords }, { start: 20, count: 10 }, live);
    const beyond = await source.searchCompanies({ keywords }, { start: 500, count: 10 }, live);
    expect(first.total).toBeGreaterThan(25);
    expect(first.items).toHaveLength(10);
    expect(third.items).toEqual(
      (await all()).slice(20, 30).map((company) => expect.objectContaining({ slug: company.slug })),
    );
    expect(beyond).toEqual({ items: [], total: first.total });
  });

  it('ranks the exact name first, then a name prefix (despite fewer followers), then weaker matches', async () => {
    const { keywords: query, slug, prefixSlug } = fx.exactCompanyName;
    const { items } = await source.searchCompanies({ keywords: query }, everything, live);
    expect(items.slice(0, 2).map((item) => item.slug)).toEqual([slug, prefixSlug]);
    expect(companyOf(prefixSlug).followerCount).toBeGreaterThan(companyOf(slug).followerCount);
    const scores = items.map((item) => {
      const company = companyOf(item.slug);
      const texts = [company.description, company.summary, ...company.specialties];
      return relevance(query, { names: [company.name, company.slug], texts, weight: 0, key: '' });
    });
    expect(scores.slice(0, 3)).toEqual([Relevance.exactName, Relevance.namePrefix, Relevance.text]);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});

describe('company domain search', () => {
  const { domain, companyCount, subdomainCount } = fx.sharedDomain;

  it('pages past ten companies on one domain, its own companies before its subdomains', async () => {
    const first = await source.searchCompaniesByDomain(domain, { start: 0, count: 10 }, live);
    const second = await source.searchCompaniesByDomain(domain, { start: 10, count: 10 }, live);
    expect([first.total, first.items.length, second.items.length]).toEqual([
      companyCount,
      10,
      companyCount - 10,
    ]);
    const domains = [...first.items, ...second.items].map((item) => companyOf(item.slug).domain);
    expect(domains.slice(0, companyCount - subdomainCount)).toEqual(
      Array(companyCount - subdomainCount).fill(domain),
    );
    for (const other of domains.slice(companyCount - subdomainCount))
      expect(other?.endsWith(`.${domain}`)).toBe(true);
  });

  it.each([
    ['uppercase and www', `www.${domain.toUpperCase()}`, companyCount],
    ['a URL', `https://${domain}/about`, companyCount],
    ['one subdomain', `labs.${domain}`, 1],
    ['a suffix that is not a label boundary', domain.slice(5), 0],
  ])('reads %s', async (_, given, total) => {
    expect((await source.searchCompaniesByDomain(given, everything, live)).total).toBe(total);
  });
});

describe('people search', () => {
  const { keywords, currentCompany, pastCompany } = fx.peopleNarrowing;
  const workedAt = (username: string, publicId: string, current: boolean) =>
    personOf(username).positions.some(
      (position) => position.companyPublicId === publicId && position.isCurrent === current,
    );

  it('narrows with currentCompany and pastCompany together', async () => {
    const both = await source.searchPeople({ keywords, currentCompany, pastCompany }, live);
    const current = await source.searchPeople({ keywords, currentCompany }, live);
    const past = await source.searchPeople({ keywords, pastCompany }, live);
    expect(both.length).toBeGreaterThan(0);
    for (const person of both) {
      expect(workedAt(person.username, currentCompany, true)).toBe(true);
      expect(workedAt(person.username, pastCompany, false)).toBe(true);
    }
    for (const person of current) expect(workedAt(person.username, currentCompany, true)).toBe(true);
    for (const person of past) expect(workedAt(person.username, pastCompany, false)).toBe(true);
    expect(current.some((person) => !workedAt(person.username, pastCompany, false))).toBe(true);
    expect(past.some((person) => !workedAt(person.username, currentCompany, true))).toBe(true);
  });

  it('matches names, headlines and places by keyword', async () => {
    expect((await source.searchPeople({ keywords: fx.richProfile.fullName }, live))[0]?.username).toBe(
      fx.richProfile.username,
    );
    expect((await source.searchPeople({ keywords: 'мария' }, live))[0]?.username).toBe('мария-иванова');
    for (const person of await source.searchPeople({ keywords }, live))
      expect(person.headline?.toLowerCase()).toContain(keywords);
  });
});

describe('profile activity', () => {
  it('walks the reactions to the end, through an empty page, never returning a reaction to a comment', async () => {
    const pages = await walk(source, fx.richProfile.username, 'reactions');
    const reactions = dataset.reactions.filter(
      (reaction) => reaction.reactorUsername === fx.richProfile.username,
    );
    const toPosts = reactions.filter((reaction) => reaction.commentId === null);
    const returned = pages.flatMap((page) => page.items.map((item) => item.internalId));
    expect(reactions.length).toBeGreaterThanOrEqual(40);
    expect(returned).toEqual(toPosts.map((reaction) => reaction.internalId));
    expect(pages.some((page) => page.items.length === 0 && page.next !== null)).toBe(true);
    expect(pages.find((page) => page.position === fx.richProfile.emptyReactionsPosition)).toMatchObject({
      items: [],
      next: '20',
    });
    expect(pages.filter((page) => page.items.length > 0 && page.items.length < 10).length).toBeGreaterThan(0);
    expect(pages.at(-1)?.next).toBeNull();
  });

  it.each(['posts', 'comments'] as const)(
    'walks more than 25 %s, newest first, ten per page',
    async (kind) => {
      const pages = await walk(source, fx.richProfile.username, kind);
      expect(pages.slice(0, -1).every((page) => page.items.length === 10)).toBe(true);
      const items = pages.flatMap((page) => page.items) as ({ postedAt: string } | { commentedAt: string })[];
      expect(items.length).toBeGreaterThan(25);
      const times = items.map((item) => Date.parse('postedAt' in item ? item.postedAt : item.commentedAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    },
  );

  it('reads the same window again for the same position', async () => {
    const once = await source.profileActivity(fx.richProfile.username, 'comments', '10', live);
    expect(await source.profileActivity(fx.richProfile.username, 'comments', '10', live)).toEqual(once);
  });

  it.each(['abc', '-1', '1e3', '999'])('refuses the position %s', async (position) => {
    await expect(
      source.profileActivity(fx.richProfile.username, 'posts', position, live),
    ).rejects.toBeInstanceOf(InvalidRequestError);
  });
});

describe('posts', () => {
  it('the fixture post has comments and reactions of several types, filterable by type', async () => {
    const post = await source.post(fx.post.slug, live);
    expect(post.commentCount).toBeGreaterThan(0);
    expect(await source.postComments(fx.post.slug, live)).not.toEqual([]);
    const all = await source.postReactions(fx.post.slug, 'ALL', live);
    expect(new Set(all.map((reaction) => reaction.reactionType)).size).toBeGreaterThan(2);
    for (const type of reactionTypes) {
      const typed = await source.postReactions(fx.post.slug, type, live);
      expect(typed.length).toBeGreaterThan(0);
      for (const reaction of typed)
        expect(reaction).toMatchObject({ reactionType: type, postSlug: fx.post.slug });
    }
  });

  it('finds posts by hashtag, with or without "#" and in any case', async () => {
    const plain = await source.searchPostsByHashtag(fx.hashtag, live);
    expect(await source.searchPostsByHashtag(`#${fx.hashtag.toUpperCase()}`, live)).toEqual(plain);
    for (const post of plain) expect(post.hashtags).toContain(fx.hashtag);
  });
});

describe('mixed searches', () => {
  it('typeahead mixes types, each with its id kind', async () => {
    const items = await source.typeahead(fx.locationKeyword, live);
    expect(items[0]).toMatchObject({ type: 'location', id: fx.branchLocation.locationId });
    expect(new Set(items.map((item) => item.type)).size).toBeGreaterThan(2);
    for (const item of items) {
      if (item.type === 'person') expect(personByUsername.has(item.id)).toBe(true);
      if (item.type === 'company') expect(companyBySlug.has(item.id)).toBe(true);
      if (item.type === 'school')
        expect(dataset.schools.some((school) => school.slug === item.id)).toBe(true);
      if (item.type === 'location') expect(item.id).toMatch(/^\d+$/);
    }
  });

  it('search-all mixes tagged people, companies and jobs by relevance', async () => {
    const items = await source.searchAll(fx.richCompany.name, live);
    expect(items[0]).toMatchObject({ type: 'company', slug: fx.richCompany.slug });
    expect(new Set(items.map((item) => item.type)).size).toBeGreaterThan(1);
  });

  it.each([
    ['an exact name', 'Berlin', ['Berlin'], [], Relevance.exactName],
    ['a name prefix', 'soft', ['Software Development'], [], Relevance.namePrefix],
    ['name words in any order', 'development software', ['Software Development'], [], Relevance.nameWords],
    ['text only', 'london', ['Northwind'], ['Software Development · London'], Relevance.text],
    ['accents and case ignored', 'CAFE MUNCHEN', ['Café München'], [], Relevance.exactName],
    ['a term matching nothing', 'berlin tokyo', ['Berlin'], [], Relevance.none],
  ])('scores %s', (_, query, names, texts, expected) => {
    expect(relevance(query, { names, texts, weight: 0, key: '' })).toBe(expected);
  });
});
