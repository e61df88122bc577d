/**
 * The dataset database answers exactly what the in-memory reference answers, through the DataSource
 * port: every method, over every person, company, post and job of the sample and over keyword,
 * filter and domain tables chosen to reach every ranking tier (exact names, prefixes, name words,
 * text hits, accents, other scripts, punctuation, nothing). Also: the database refuses a file that
 * is not one, and a running reader moves to a re-imported file.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactionTypes } from '../../schemas/parameters.js';
import type { ActivityKind, DataSource, ProfileListName } from '../../shared/sources/data-source.js';
import { buildDatabaseFromDataset } from '../../shared/sources/dataset/database/build-database.js';
import { DatabaseDatasetReader } from '../../shared/sources/dataset/database/database-reader.js';
import { DatasetFileError } from '../../shared/sources/dataset/database/dataset-connection.js';
import { DatasetSource } from '../../shared/sources/dataset/dataset-source.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';
import { DatabaseSync } from '../../shared/store/sqlite/node-sqlite.js';
import { memoryDatasetReader } from '../support/memory-reader.js';

const dataset = generateDataset();
const reference = new DatasetSource(memoryDatasetReader(dataset));
const directory = mkdtempSync(join(tmpdir(), 'dataset-database-'));
const file = join(directory, 'sample.sqlite');
let database: DatabaseDatasetReader;
let tested: DatasetSource;
const live = new AbortController().signal;

beforeAll(() => {
  buildDatabaseFromDataset(dataset, file, 'test');
  database = new DatabaseDatasetReader(file);
  tested = new DatasetSource(database);
});
afterAll(() => {
  database.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Both sources' answer, or the error each threw (class and message). */
async function outcome(source: DataSource, call: (source: DataSource) => Promise<unknown>) {
  try {
    return { value: await call(source) };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

async function expectSame(call: (source: DataSource) => Promise<unknown>) {
  const [expected, actual] = await Promise.all([outcome(reference, call), outcome(tested, call)]);
  expect(actual).toEqual(expected);
  return expected;
}

const lists: ProfileListName[] = [
  'positions',
  'education',
  'certifications',
  'courses',
  'volunteerExperience',
  'languages',
  'honors',
  'organizations',
];
const streams: ActivityKind[] = ['posts', 'comments', 'reactions'];

/** Words that reach every tier: names whole and in part, describing text, other scripts, noise. */
const keywords = [
  ...new Set([
    fx.broadCompanyKeyword,
    fx.exactCompanyName.keywords,
    'helix',
    'Helix Gr',
    'group helix',
    fx.schoolKeyword,
    fx.locationKeyword,
    fx.industryQuery,
    fx.hashtag,
    fx.richProfile.fullName,
    'amelia',
    'AMELIA hart',
    'engineer',
    'eng',
    'soft dev',
    'data platform',
    'Café München',
    'cafe',
    'münchen',
    'мария',
    'प्रिया',
    '王',
    'สมชาย',
    'senior manager london',
    'a',
    'z',
    'zz',
    '',
    '   ',
    '!!!',
    'no-such-word-anywhere',
    'C++ & Go',
    'ß',
    ...dataset.companies.slice(0, 12).map((company) => company.name),
    ...dataset.people.slice(0, 12).map((person) => person.fullName.split(' ')[0] ?? ''),
    ...dataset.jobs.slice(0, 6).map((job) => job.title),
    ...dataset.locations.slice(0, 6).map((location) => location.city),
  ]),
];

/**
 * Broad keywords: frequent words, short prefixes (read from FTS5's prefix index), words that also
 * start others (the exact word must not jump ahead of better-ranked longer words), longer prefixes
 * (written out as the words they start), several terms, another script's short prefix.
 */
const broadKeywords = [
  'engineer',
  'engineering',
  'engine',
  'leadership',
  'lead',
  'lea',
  'le',
  'manag',
  'senior eng',
  'eng senior',
  'the',
  'and',
  'Мар',
];

/** Every keyword search of the port for one query (companies on two pages, and filtered). */
async function everySearch(words: string, same: (call: (source: DataSource) => Promise<unknown>) => unknown) {
  for (const window of [
    { start: 0, count: 10 },
    { start: 10, count: 10 },
  ])
    await same((source) => source.searchCompanies({ keywords: words }, window, live));
  await same((source) =>
    source.searchCompanies({ keywords: words, hasJobs: true }, { start: 10, count: 10 }, live),
  );
  await same((source) => source.searchPeople({ keywords: words }, live));
  await same((source) => source.searchSchools(words, live));
  await same((source) => source.searchAll(words, live));
  await same((source) => source.searchPosts(words, live));
  await same((source) => source.searchLocations(words, live));
  await same((source) => source.searchIndustries(words, live));
  await same((source) => source.typeahead(words, live));
  await same((source) => source.searchJobs(words, live));
  await same((source) => source.jobSearchFacets(words, live));
}

describe('the dataset database answers what the in-memory reference answers', () => {
  it('for every profile: details, contact, every list, windows, activity pages and similar profiles', async () => {
    for (const person of dataset.people) {
      const username = person.username;
      for (const ref of [{ username }, { username: username.toUpperCase() }, { publicId: person.publicId }])
        await expectSame((source) => source.profileDetails(ref, live));
      await expectSame((source) => source.profileContact({ username }, live));
      for (const list of lists) await expectSame((source) => source.profileList({ username }, list, live));
      for (const window of [
        { start: 0, count: 10 },
        { start: 5, count: 3 },
        { start: 30, count: 10 },
      ]) {
        await expectSame((source) => source.profileSkills({ username }, window, live));
        await expectSame((source) => source.profileCompanyInterests({ username }, window, live));
      }
      for (const kind of streams) {
        let position: string | null = null;
        do {
          const page = (await expectSame((source) =>
            source.profileActivity(username, kind, position, live),
          )) as { value?: { next: string | null } };
          position = page.value?.next ?? null;
        } while (position !== null);
      }
      await expectSame((source) => source.similarProfiles(username, live));
    }
  });

  it('for every company: details, lists, totals, staff counts and similar companies', async () => {
    for (const company of dataset.companies) {
      const slug = company.slug;
      for (const ref of [{ slug }, { slug: slug.toUpperCase() }, { publicId: company.publicId }])
        await expectSame((source) => source.companyDetails(ref, live));
      await expectSame((source) => source.companyPosts(slug, live));
      await expectSame((source) => source.similarCompanies(slug, live));
      await expectSame((source) => source.companyPeople(slug, live));
      await expectSame((source) => source.companyProducts(slug, live));
      await expectSame((source) => source.companyJobs(slug, live));
      await expectSame((source) => source.companyTotals(slug, live));
      await expectSame((source) => source.companyStaffCounts(slug, live));
    }
  });

  it('for every post and job, and for unknown identifiers', async () => {
    for (const post of dataset.posts) {
      await expectSame((source) => source.post(post.slug, live));
      await expectSame((source) => source.postComments(post.slug, live));
      for (const type of ['ALL', ...reactionTypes] as const)
        await expectSame((source) => source.postReactions(post.slug, type, live));
    }
    for (const job of dataset.jobs) await expectSame((source) => source.job(job.jobId, live));
    const unknown = await expectSame((source) => source.profileDetails({ username: 'nobody-at-all' }, live));
    expect(unknown).toHaveProperty('error');
    await expectSame((source) => source.companyDetails({ publicId: '999' }, live));
    await expectSame((source) => source.post('nobody_nothing-activity-1', live));
    await expectSame((source) => source.job('1', live));
    await expectSame((source) => source.profileActivity(fx.richProfile.username, 'posts', '99999', live));
    await expectSame((source) => source.profileActivity(fx.richProfile.username, 'posts', 'x', live));
  });

  it('for every keyword search', async () => {
    for (const words of keywords) await everySearch(words, expectSame);
  });

  it('for broad keywords', async () => {
    for (const words of broadKeywords) await everySearch(words, expectSame);
  });

  it('for every company search filter and their combinations', async () => {
    const { locationId, headquartersId } = fx.branchLocation;
    const filterTable = [
      {},
      { locationIds: [locationId] },
      { locationIds: [locationId, headquartersId] },
      { locationIds: [] },
      { industryIds: [fx.industryId] },
      { industryIds: [fx.industryId, '999999'] },
      { companySizes: ['B' as const, 'C' as const] },
      { hasJobs: true },
      { hasJobs: false },
      {
        locationIds: [headquartersId],
        industryIds: [fx.industryId],
        companySizes: ['D' as const],
        hasJobs: true,
      },
    ];
    for (const filters of filterTable)
      for (const words of [fx.broadCompanyKeyword, 'group', 'a', ''])
        for (const window of [
          { start: 0, count: 10 },
          { start: 3, count: 25 },
        ])
          await expectSame((source) => source.searchCompanies({ keywords: words, ...filters }, window, live));
  });

  // Each search has two ways, chosen by size: a company's staff scored directly or read through the
  // index; a name prefix sorted from the names index or found walking the ranks; a long query term
  // written out as the words it starts or left to FTS5's merging prefix form. Both ways, always.
  describe.each([
    ["the sample's sizes", undefined],
    ['the other ways', { directlyScored: 0, sortedPrefixes: 0, expandedWords: 0 }],
  ])('with %s', (_, limits) => {
    let narrowing: DatabaseDatasetReader;
    let source: DatasetSource;
    beforeAll(() => {
      narrowing = new DatabaseDatasetReader(file, limits);
      source = new DatasetSource(narrowing);
    });
    afterAll(() => narrowing.close());
    const same = async (call: (source: DataSource) => Promise<unknown>) =>
      expect(await call(source)).toEqual(await call(reference));

    it('people search narrowed by current and past company', async () => {
      const { keywords: words, currentCompany, pastCompany } = fx.peopleNarrowing;
      const companies = [
        currentCompany,
        pastCompany,
        ...dataset.companies.slice(0, 8).map((c) => c.publicId),
      ];
      for (const current of [undefined, ...companies])
        for (const past of [undefined, pastCompany, currentCompany])
          for (const query of [words, 'a', 'manager', fx.richProfile.fullName, ''])
            await same((s) =>
              s.searchPeople({ keywords: query, currentCompany: current, pastCompany: past }, live),
            );
    });

    it('every keyword search', async () => {
      for (const words of keywords) {
        await same((s) =>
          s.searchCompanies({ keywords: words, hasJobs: true }, { start: 0, count: 10 }, live),
        );
        await same((s) => s.searchPeople({ keywords: words }, live));
        await same((s) => s.searchAll(words, live));
        await same((s) => s.typeahead(words, live));
      }
    });

    it('broad keywords', async () => {
      for (const words of broadKeywords) await everySearch(words, same);
    });
  });

  it('for domains, hashtags, service categories and filter values', async () => {
    const domains = new Set<string>();
    for (const company of dataset.companies)
      if (company.domain) {
        domains.add(company.domain);
        domains.add(company.domain.split('.').slice(1).join('.'));
      }
    for (const domain of [
      ...domains,
      `https://www.${fx.sharedDomain.domain}/about`,
      'HELIXGROUP.COM.',
      '',
      'com',
    ])
      for (const window of [
        { start: 0, count: 10 },
        { start: 10, count: 10 },
      ])
        await expectSame((source) => source.searchCompaniesByDomain(domain, window, live));
    const hashtags = new Set(dataset.posts.flatMap((post) => post.hashtags));
    for (const tag of [...hashtags, '#Leadership', 'nothing'])
      await expectSame((source) => source.searchPostsByHashtag(tag, live));
    await expectSame((source) => source.serviceCategories(live));
    await expectSame((source) => source.companySearchFilterValues(live));
  });
});

/** Changes everything an answer holds, as a careless caller might: every field, every list. */
function vandalize(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) vandalize(item);
    value.push('changed');
  } else if (typeof value === 'object' && value !== null) {
    for (const [name, field] of Object.entries(value)) {
      vandalize(field);
      (value as Record<string, unknown>)[name] =
        typeof field === 'object' && field !== null ? field : 'changed';
    }
  }
}

describe('the dataset database hands every caller answers of its own', () => {
  // DatasetSource passes the reader's answers on uncopied: each must be made afresh, so what one
  // caller does to its answer is never seen by the next (job facets and filter values included,
  // which come from what the reader keeps in memory).
  it.each<[string, (source: DataSource) => Promise<unknown>]>([
    ['profile details', (source) => source.profileDetails({ username: fx.richProfile.username }, live)],
    ['company details', (source) => source.companyDetails({ slug: fx.richCompany.slug }, live)],
    [
      'company search',
      (source) => source.searchCompanies({ keywords: 'helix' }, { start: 0, count: 10 }, live),
    ],
    ['job search facets', (source) => source.jobSearchFacets('engineer', live)],
    ['company filter values', (source) => source.companySearchFilterValues(live)],
    ['activity', (source) => source.profileActivity(fx.richProfile.username, 'posts', null, live)],
  ])('%s', async (_, call) => {
    vandalize(await call(tested));
    expect(await call(tested)).toEqual(await call(reference));
  });
});

describe('the dataset database file', () => {
  it('refuses a file that is not a dataset database, naming it', () => {
    const bogus = join(directory, 'not-a-dataset.sqlite');
    writeFileSync(bogus, 'plain text');
    expect(() => new DatabaseDatasetReader(bogus)).toThrow(DatasetFileError);
    expect(() => new DatabaseDatasetReader(join(directory, 'missing.sqlite'))).toThrow(/missing\.sqlite/);
  });

  it('refuses a database of the version before the details column, saying to import again', () => {
    const older = join(directory, 'version-2.sqlite');
    copyFileSync(file, older);
    const db = new DatabaseSync(older);
    db.prepare("UPDATE meta SET value = '2' WHERE key = 'version'").run();
    db.close();
    expect(() => new DatabaseDatasetReader(older)).toThrow(DatasetFileError);
    expect(() => new DatabaseDatasetReader(older)).toThrow(
      /version-2\.sqlite was built by another version of this service \(dataset database 2\/.*this one reads 3\/.*Import the dataset again/,
    );
  });

  it('moves a running reader to a file renamed over it', async () => {
    const moving = join(directory, 'moving.sqlite');
    copyFileSync(file, moving);
    const reader = new DatasetSource(new DatabaseDatasetReader(moving));
    try {
      const other = generateDataset(7);
      expect((await reader.job(fx.jobId, live)).title).toBe(
        dataset.jobs.find((job) => job.jobId === fx.jobId)?.title,
      );
      buildDatabaseFromDataset({ ...other, fetchedAt: '2027-01-01T00:00:00.000Z' }, moving, 'test');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await reader.job(fx.jobId, live)).fetchedAt).toBe('2027-01-01T00:00:00.000Z');
    } finally {
      rmSync(moving, { force: true });
    }
  });
});
