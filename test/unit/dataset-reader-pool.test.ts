/**
 * The dataset source on reader threads (what `npm start` serves) against the same source in-thread
 * (what Lambda and the in-process apps serve), over the sample's database: every port method answers
 * the same records and refuses with the same error classes, messages and details; the abort signal is
 * honoured although it cannot cross threads; a re-import renamed over the file is picked up, and a file
 * that is not a dataset database is reported as the in-thread reader reports it.
 */
import { copyFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidRequestError, ResourceNotFoundError } from '../../shared/errors.js';
import type { DataSource } from '../../shared/sources/data-source.js';
import { DatabaseDatasetReader } from '../../shared/sources/dataset/database/database-reader.js';
import { DatasetFileError } from '../../shared/sources/dataset/database/dataset-connection.js';
import { DatasetSource } from '../../shared/sources/dataset/dataset-source.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import type { PortMethod } from '../../shared/sources/dataset/reader-messages.js';
import { pooledDataSource, ReaderPool } from '../../shared/sources/dataset/reader-pool.js';
import { ensureSampleDatabase } from '../../shared/sources/dataset/sample-database.js';
import { BROAD_JOB_KEYWORD, buildBroadJobsDataset } from '../support/broad-jobs-dataset.js';

const sample = ensureSampleDatabase();
const inThread = new DatasetSource(new DatabaseDatasetReader(sample));
const pools: ReaderPool[] = [];
const folders: string[] = [];

function poolOver(path: string, options: { threads: number; abandonedGraceMs?: number }) {
  const pool = new ReaderPool(path, options);
  pools.push(pool);
  return { pool, source: pooledDataSource(pool) };
}

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

const live = new AbortController().signal;
const first = { start: 0, count: 10 };
const rich = { username: fx.richProfile.username };

/** One call of every port method (the type asks for all of them), plus the refusals. */
const calls: Record<PortMethod, (source: DataSource) => Promise<unknown>> = {
  profileDetails: (s) => s.profileDetails(rich, live),
  profileContact: (s) => s.profileContact({ publicId: fx.richProfile.publicId }, live),
  profileList: (s) => s.profileList(rich, 'certifications', live),
  profileSkills: (s) => s.profileSkills(rich, { start: 5, count: 10 }, live),
  profileCompanyInterests: (s) => s.profileCompanyInterests(rich, first, live),
  profileActivity: (s) => s.profileActivity(fx.richProfile.username, 'comments', '10', live),
  similarProfiles: (s) => s.similarProfiles(fx.richProfile.username, live),
  companyDetails: (s) => s.companyDetails({ slug: fx.richCompany.slug }, live),
  companyPosts: (s) => s.companyPosts(fx.richCompany.slug, live),
  similarCompanies: (s) => s.similarCompanies(fx.richCompany.slug, live),
  companyPeople: (s) => s.companyPeople(fx.richCompany.slug, live),
  companyProducts: (s) => s.companyProducts(fx.richCompany.slug, live),
  companyJobs: (s) => s.companyJobs(fx.richCompany.slug, live),
  companyTotals: (s) => s.companyTotals(fx.richCompany.slug, live),
  companyStaffCounts: (s) => s.companyStaffCounts(fx.richCompany.slug, live),
  searchCompanies: (s) =>
    s.searchCompanies({ keywords: fx.broadCompanyKeyword, hasJobs: true }, { start: 10, count: 10 }, live),
  searchCompaniesByDomain: (s) => s.searchCompaniesByDomain(fx.sharedDomain.domain, first, live),
  post: (s) => s.post(fx.post.slug, live),
  postComments: (s) => s.postComments(fx.post.slug, live),
  postReactions: (s) => s.postReactions(fx.post.slug, 'LIKE', live),
  searchSchools: (s) => s.searchSchools(fx.schoolKeyword, live),
  searchPeople: (s) => s.searchPeople(fx.peopleNarrowing, live),
  searchAll: (s) => s.searchAll('engineer', live),
  searchPostsByHashtag: (s) => s.searchPostsByHashtag(`#${fx.hashtag}`, live),
  searchPosts: (s) => s.searchPosts(fx.hashtag, live),
  searchLocations: (s) => s.searchLocations(fx.locationKeyword, live),
  searchIndustries: (s) => s.searchIndustries(fx.industryQuery, live),
  serviceCategories: (s) => s.serviceCategories(live),
  companySearchFilterValues: (s) => s.companySearchFilterValues(live),
  typeahead: (s) => s.typeahead('nor', live),
  searchJobs: (s) => s.searchJobs('engineer', live),
  jobSearchFacets: (s) => s.jobSearchFacets('engineer', live),
  job: (s) => s.job(fx.jobId, live),
};

const refusals: [string, (source: DataSource) => Promise<unknown>][] = [
  ['an unknown username', (s) => s.profileDetails({ username: 'nobody-at-all' }, live)],
  ['an unknown company publicId', (s) => s.companyDetails({ publicId: '1' }, live)],
  ['an unknown job', (s) => s.job('1', live)],
  [
    'a stream position past the end',
    (s) => s.profileActivity(fx.richProfile.username, 'posts', '9999', live),
  ],
];

/** A call's outcome, with an error's class and what the client sees of it. */
async function outcome(call: Promise<unknown>) {
  try {
    return { value: await call };
  } catch (error) {
    const { name, message, details } = error as InvalidRequestError;
    return { error: { class: (error as object).constructor, name, message, details } };
  }
}

describe('dataset reads on reader threads', () => {
  const { source: pooled } = poolOver(sample, { threads: 2 });

  it.each(Object.entries(calls))('%s answers as in-thread', async (_, call) => {
    const expected = await outcome(call(inThread));
    expect(expected).toHaveProperty('value');
    expect(await outcome(call(pooled))).toEqual(expected);
  });

  it.each(refusals)('refuses %s with the in-thread error class and details', async (_, call) => {
    const expected = await outcome(call(inThread));
    expect([ResourceNotFoundError, InvalidRequestError]).toContain(expected.error?.class);
    expect(await outcome(call(pooled))).toEqual(expected);
  });

  it('answers calls in flight together, each with its own answer', async () => {
    const methods = Object.values(calls);
    const together = await Promise.all(methods.map((call) => outcome(call(pooled))));
    for (const [index, call] of methods.entries())
      expect(together[index]).toEqual(await outcome(call(inThread)));
  });
});

describe('the thread protocol', () => {
  const { pool, source } = poolOver(sample, { threads: 1 });

  it('forwards exactly the methods of the port', () => {
    expect(Object.keys(source).sort()).toEqual(Object.keys(calls).sort());
  });

  // A name from a message is checked before it picks a function: prototype members and the
  // source's own helpers are no port methods.
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'run', 'stamp', 'listItems'])(
    'refuses %s, which is no method of the port, with a clear error',
    async (name) => {
      await expect(pool.run(name as PortMethod, [], live)).rejects.toThrow(
        `${name} is not a method of the data source.`,
      );
    },
  );
});

describe('the abort signal', () => {
  it('refuses a call whose signal is already aborted, with its reason', async () => {
    const { source } = poolOver(sample, { threads: 1 });
    const reason = new Error('deadline passed');
    await expect(source.profileDetails(rich, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('answers a waiting call aborted by its caller at once, and the calls around it as usual', async () => {
    const { source } = poolOver(sample, { threads: 1 });
    const running = source.searchAll('engineer', live);
    const controller = new AbortController();
    const waiting = source.profileDetails(rich, controller.signal);
    const after = source.job(fx.jobId, live);
    const reason = new Error('deadline passed');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(await running).toEqual(await inThread.searchAll('engineer', live));
    expect(await after).toEqual(await inThread.job(fx.jobId, live));
  });

  it('answers a running call aborted by its caller at once, and replaces a thread that overruns its grace', async () => {
    // A search that takes tens of milliseconds, so the thread is still at it when its grace ends.
    const folder = await mkdtemp(join(tmpdir(), 'reader-pool-'));
    folders.push(folder);
    const broad = join(folder, 'broad-jobs.sqlite');
    buildBroadJobsDataset(broad, 10_000);
    const { pool, source } = poolOver(broad, { threads: 1, abandonedGraceMs: 0 });
    await source.job(fx.jobId, live);
    expect(pool.threadsStarted).toBe(1);
    const controller = new AbortController();
    const running = source.jobSearchFacets(BROAD_JOB_KEYWORD, controller.signal);
    const reason = new Error('deadline passed');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    // The abandoned call's thread is terminated; the next call starts a fresh one.
    await sleep(50);
    expect(await source.job(fx.jobId, live)).toEqual(await inThread.job(fx.jobId, live));
    expect(pool.threadsStarted).toBe(2);
  });
});

describe('the dataset file', () => {
  it('picks up a database renamed over the file, and reports a file that is not one as DatasetFileError', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'reader-pool-'));
    folders.push(folder);
    const served = join(folder, 'served.sqlite');
    await copyFile(sample, served);
    const { source } = poolOver(served, { threads: 1 });
    expect(await source.job(fx.jobId, live)).toMatchObject({ jobId: fx.jobId });

    const broken = join(folder, 'broken.sqlite');
    await writeFile(broken, 'not a database');
    await rename(broken, served);
    // The reader looks at the file at most once a second.
    await sleep(1_100);
    const refused = await outcome(source.job(fx.jobId, live));
    expect(refused.error?.class).toBe(DatasetFileError);
    expect(refused.error?.message).toMatch(/is not a dataset database|cannot be opened/);

    const fixed = join(folder, 'fixed.sqlite');
    await copyFile(sample, fixed);
    await rename(fixed, served);
    await sleep(1_100);
    expect(await source.job(fx.jobId, live)).toMatchObject({ jobId: fx.jobId });
  });

  it('counts job search filters on the file renamed over it, not on what it kept of the old one', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'reader-pool-'));
    folders.push(folder);
    const served = join(folder, 'served.sqlite');
    await copyFile(sample, served);
    // In-thread, where the job facets are kept per open file (database-reader.ts).
    const source = new DatasetSource(new DatabaseDatasetReader(served));
    const before = await source.jobSearchFacets(BROAD_JOB_KEYWORD, live);
    expect(before).toEqual(await inThread.jobSearchFacets(BROAD_JOB_KEYWORD, live));

    const broad = join(folder, 'broad.sqlite');
    buildBroadJobsDataset(broad, 500);
    const expected = await new DatasetSource(new DatabaseDatasetReader(broad)).jobSearchFacets(
      BROAD_JOB_KEYWORD,
      live,
    );
    await rename(broad, served);
    await sleep(1_100);
    const after = await source.jobSearchFacets(BROAD_JOB_KEYWORD, live);
    expect(after.matched).toBe(before.matched + 500);
    expect(after).toEqual(expected);
  });
});
