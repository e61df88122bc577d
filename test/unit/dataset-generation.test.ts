/**
 * Generating datasets of any size: the same size and seed give the same bytes and another seed other
 * bytes; `--profiles 300` is exactly the built-in sample; a larger dataset, generated in batches, is
 * consistent (every line valid, identifiers unique, every reference resolving, planted records once,
 * internal ids numbered in creation order); and the sample has multi-page activity on many profiles.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetFiles } from '../../schemas/dataset-format.js';
import { idWidthFor } from '../../shared/sources/dataset/context.js';
import {
  loadDataset,
  readDatasetLines,
  writeDatasetFiles,
} from '../../shared/sources/dataset/dataset-files.js';
import { STREAM_WINDOW } from '../../shared/sources/dataset/dataset-source.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import {
  BATCH_PROFILES,
  generateDataset,
  SAMPLE_PROFILES,
  startGeneration,
} from '../../shared/sources/dataset/generate.js';
import { companyCount } from '../../shared/sources/dataset/generate-companies.js';
import { generateDatasetFiles } from '../../shared/sources/dataset/generate-files.js';
import type { Dataset } from '../../shared/sources/dataset/model.js';
import { createRandom, SHUFFLE_LIMIT } from '../../shared/sources/dataset/random.js';
import { identifierKey } from '../../shared/sources/dataset/reader-rules.js';

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function generated(profiles: number, seed?: number): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), 'dataset-generation-'));
  folders.push(out);
  await generateDatasetFiles({ profiles, seed, out });
  return out;
}

const files = ['manifest.json', ...datasetFiles.map(({ file }) => file)];
const contents = (dir: string) => Promise.all(files.map((file) => readFile(join(dir, file))));

describe('determinism', () => {
  // Three batches: the random stream runs on from one batch to the next.
  const profiles = 2 * BATCH_PROFILES + 100;

  it('writes the same bytes for the same size and seed, and other bytes for another seed', async () => {
    const [first, second, other] = await Promise.all([
      generated(profiles, 5),
      generated(profiles, 5),
      generated(profiles, 6),
    ]);
    const [a, b, c] = await Promise.all([contents(first), contents(second), contents(other)]);
    files.forEach((file, index) => {
      expect(a[index]?.equals(b[index] as Buffer), file).toBe(true);
    });
    for (const file of ['people.jsonl', 'posts.jsonl', 'comments.jsonl', 'reactions.jsonl']) {
      const index = files.indexOf(file);
      expect(a[index]?.equals(c[index] as Buffer), file).toBe(false);
    }
  });

  it('writes exactly the built-in sample for --profiles 300 and the default seed', async () => {
    const out = await generated(SAMPLE_PROFILES);
    const sample = generateDataset();
    expect(await loadDataset(out)).toEqual(sample);
    // Same records in the same order, byte for byte, as the in-memory sample written out.
    const written = await mkdtemp(join(tmpdir(), 'dataset-sample-'));
    folders.push(written);
    await writeDatasetFiles(written, sample);
    for (const { file } of datasetFiles) {
      expect((await readFile(join(out, file))).equals(await readFile(join(written, file))), file).toBe(true);
    }
  });
});

describe('a dataset of 3,000 profiles', () => {
  const profiles = 3_000;
  let dataset: Dataset;
  const problems: string[] = [];

  beforeAll(async () => {
    const out = await generated(profiles);
    // Every line through the reader the importer uses: none may be refused.
    for (const { file } of datasetFiles) {
      for await (const line of readDatasetLines(out, file)) {
        if ('problem' in line) problems.push(`${file}:${line.line}: ${line.problem}`);
      }
    }
    dataset = await loadDataset(out);
  });

  it('validates on every line and holds the expected counts', () => {
    expect(problems).toEqual([]);
    expect(dataset.people).toHaveLength(profiles);
    expect(dataset.companies).toHaveLength(companyCount(profiles));
    expect(dataset.posts.length).toBeGreaterThan(2 * profiles);
  });

  it('gives every record unique identifiers', () => {
    const unique = (values: string[], what: string) => expect(new Set(values).size, what).toBe(values.length);
    for (const { collection } of datasetFiles) {
      unique(
        dataset[collection].map((record) => record.internalId),
        `${collection} internalId`,
      );
    }
    unique(
      dataset.people.map((person) => identifierKey(person.username)),
      'username',
    );
    unique(
      dataset.people.map((person) => person.publicId),
      'profile publicId',
    );
    unique(
      dataset.companies.map((company) => identifierKey(company.slug)),
      'company slug',
    );
    unique(
      dataset.companies.map((company) => company.publicId),
      'company publicId',
    );
    unique(
      dataset.posts.map((post) => post.slug),
      'post slug',
    );
    unique(
      dataset.comments.map((comment) => comment.commentId),
      'commentId',
    );
    unique(
      dataset.jobs.map((job) => job.jobId),
      'jobId',
    );
  });

  it('numbers internal ids in creation order, all of one width', () => {
    const width = idWidthFor(profiles);
    const numbered = (kind: string, count: number) =>
      Array.from({ length: count }, (_, index) => `${kind}-${String(index + 1).padStart(width, '0')}`);
    // People and companies are written in creation order: their ids already sort.
    expect(dataset.people.map((person) => person.internalId)).toEqual(numbered('person', profiles));
    expect(dataset.companies.map((company) => company.internalId)).toEqual(
      numbered('company', dataset.companies.length),
    );
    for (const [kind, records] of [
      ['post', dataset.posts],
      ['comment', dataset.comments],
      ['reaction', dataset.reactions],
      ['job', dataset.jobs],
    ] as const) {
      expect(records.map((record) => record.internalId).sort(), kind).toEqual(numbered(kind, records.length));
    }
  });

  it('resolves every reference', () => {
    const people = new Set(dataset.people.map((person) => person.username));
    const companies = new Map(dataset.companies.map((company) => [company.slug, company]));
    const companyIds = new Set(dataset.companies.map((company) => company.publicId));
    const posts = new Map(dataset.posts.map((post) => [post.slug, post]));
    const comments = new Map(dataset.comments.map((comment) => [comment.commentId, comment]));
    const locations = new Set(dataset.locations.map((location) => location.id));
    const industries = new Set(dataset.industries.map((industry) => industry.id));
    const schools = new Set(dataset.schools.map((school) => school.slug));
    const missing: string[] = [];
    const check = (found: boolean, what: string) => {
      if (!found) missing.push(what);
    };

    for (const company of dataset.companies) {
      check(industries.has(company.industryId), `industry of ${company.slug}`);
      for (const id of [company.headquartersId, ...company.locationIds])
        check(locations.has(id), `location ${id}`);
      check(
        company.hasJobs === dataset.jobs.some((job) => job.companySlug === company.slug),
        `jobs of ${company.slug}`,
      );
    }
    for (const person of dataset.people) {
      for (const position of person.positions) {
        if (position.companySlug === null) continue;
        check(
          companies.get(position.companySlug)?.publicId === position.companyPublicId,
          `position at ${position.companySlug}`,
        );
      }
      for (const entry of person.education)
        check(entry.schoolSlug === null || schools.has(entry.schoolSlug), 'school');
      for (const publicId of person.interests) check(companyIds.has(publicId), `interest ${publicId}`);
    }
    for (const post of dataset.posts) {
      const byPerson = post.authorUsername !== null && people.has(post.authorUsername);
      const byCompany = post.authorCompanySlug !== null && companies.has(post.authorCompanySlug);
      check(byPerson !== byCompany, `author of ${post.slug}`);
    }
    for (const comment of dataset.comments) {
      check(posts.get(comment.postSlug)?.url === comment.postUrl, `post of comment ${comment.commentId}`);
      check(people.has(comment.authorUsername), `author of comment ${comment.commentId}`);
    }
    for (const reaction of dataset.reactions) {
      check(posts.get(reaction.postSlug)?.url === reaction.postUrl, `post of ${reaction.internalId}`);
      check(people.has(reaction.reactorUsername), `reactor of ${reaction.internalId}`);
      if (reaction.commentId !== null) {
        check(
          comments.get(reaction.commentId)?.postSlug === reaction.postSlug,
          `comment of ${reaction.internalId}`,
        );
      }
    }
    for (const job of dataset.jobs)
      check(job.companySlug !== null && companies.has(job.companySlug), `company of ${job.jobId}`);
    expect(missing).toEqual([]);
  });

  it('counts each post’s comments and reactions as the dataset holds them', () => {
    const tally = (keys: string[]) =>
      keys.reduce((counts, key) => counts.set(key, (counts.get(key) ?? 0) + 1), new Map<string, number>());
    const comments = tally(dataset.comments.map((comment) => comment.postSlug));
    const reactions = tally(
      dataset.reactions
        .filter((reaction) => reaction.commentId === null)
        .map((reaction) => reaction.postSlug),
    );
    for (const post of dataset.posts) {
      expect([post.commentCount, post.reactionCount]).toEqual([
        comments.get(post.slug) ?? 0,
        reactions.get(post.slug) ?? 0,
      ]);
    }
  });

  it('plants the fixture records once', () => {
    const times = (values: string[], value: string) =>
      values.filter((candidate) => candidate === value).length;
    expect(
      times(
        dataset.people.map((person) => person.username),
        fx.richProfile.username,
      ),
    ).toBe(1);
    expect(
      times(
        dataset.companies.map((company) => company.slug),
        fx.richCompany.slug,
      ),
    ).toBe(1);
    expect(
      times(
        dataset.posts.map((post) => post.slug),
        fx.post.slug,
      ),
    ).toBe(1);
    expect(
      times(
        dataset.jobs.map((job) => job.jobId),
        fx.jobId,
      ),
    ).toBe(1);
  });
});

describe('scaling', () => {
  it('keeps the sample at five-digit internal ids and widens them for larger datasets', () => {
    expect([300, 999, 1_000, 1_000_000].map(idWidthFor)).toEqual([5, 5, 6, 9]);
  });

  it('scales companies with profiles: 80 for the sample, one per 50 profiles beyond 4,000', () => {
    expect([300, 4_000, 10_000, 1_000_000].map(companyCount)).toEqual([80, 80, 200, 20_000]);
    const { companies, jobs } = startGeneration({ profiles: 1_000_000 });
    expect(companies).toHaveLength(20_000);
    expect(new Set(companies.map((company) => identifierKey(company.slug))).size).toBe(20_000);
    expect(companies.at(-1)?.internalId).toBe('company-000020000');
    expect(jobs.length).toBeGreaterThan(10_000);
  });

  it('samples long lists without shuffling them: distinct members, in a seeded order', () => {
    const long = Array.from({ length: SHUFFLE_LIMIT * 4 }, (_, index) => index);
    const picked = createRandom(3).sample(long, 40);
    expect(new Set(picked).size).toBe(40);
    expect(picked.every((item) => long.includes(item))).toBe(true);
    expect(createRandom(3).sample(long, 40)).toEqual(picked);
    expect(createRandom(3).sample(long.slice(0, 5), 40)).toHaveLength(5);
  });
});

describe('the built-in sample', () => {
  it('has more than one page of posts, comments and reactions on at least 15 profiles each', () => {
    const sample = generateDataset();
    const multiPage = (authors: string[]) => {
      const counts = new Map<string, number>();
      for (const author of authors) counts.set(author, (counts.get(author) ?? 0) + 1);
      return [...counts.values()].filter((count) => count > STREAM_WINDOW).length;
    };
    expect(multiPage(sample.posts.flatMap((post) => post.authorUsername ?? []))).toBeGreaterThanOrEqual(15);
    expect(multiPage(sample.comments.map((comment) => comment.authorUsername))).toBeGreaterThanOrEqual(15);
    expect(multiPage(sample.reactions.map((reaction) => reaction.reactorUsername))).toBeGreaterThanOrEqual(
      15,
    );
  });
});
