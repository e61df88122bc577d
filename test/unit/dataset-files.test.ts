/**
 * Dataset directories on disk: the sample written and read back is the sample; the line reader
 * validates every line and reports a bad one by number and field without stopping; the manifest is
 * checked first and an unknown format or version refused; a directory whose writing never finished
 * reads as unfinished.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../schemas/dataset-format.js';
import {
  DatasetFormatError,
  type DatasetLine,
  DatasetWriter,
  loadDataset,
  readDatasetLines,
  readManifest,
  writeDatasetFiles,
} from '../../shared/sources/dataset/dataset-files.js';
import { DATASET_FETCHED_AT, DEFAULT_SEED } from '../../shared/sources/dataset/fixtures.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';

const sample = generateDataset();
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function freshFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'dataset-files-'));
  folders.push(folder);
  return folder;
}

const manifest = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'lookup-service-dataset',
    version: 1,
    fetchedAt: DATASET_FETCHED_AT,
    seed: null,
    profiles: 1,
    ...fields,
  });

async function collect<T>(lines: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

const person = sample.people[0];
if (!person) throw new Error('test setup: the sample has no people');

describe('writing and loading', () => {
  it('writes the sample and loads it back equal, with the manifest describing it', async () => {
    const dir = await freshFolder();
    const counts = await writeDatasetFiles(dir, sample);
    expect(counts['people.jsonl']).toBe(300);
    expect(counts['reactions.jsonl']).toBe(sample.reactions.length);
    expect(await readManifest(dir)).toEqual({
      format: 'lookup-service-dataset',
      version: 1,
      fetchedAt: DATASET_FETCHED_AT,
      seed: DEFAULT_SEED,
      profiles: 300,
    });
    expect(await loadDataset(dir)).toEqual(sample);
  });

  it('writes one record per line, UTF-8, each line ending in \\n', async () => {
    const dir = await freshFolder();
    await writeDatasetFiles(dir, sample);
    const text = await readFile(join(dir, 'people.jsonl'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(300);
    expect(lines.map((line) => JSON.parse(line).username)).toEqual(sample.people.map((p) => p.username));
    expect(text).toContain('"username":"мария-иванова"');
  });

  it('orders activity and jobs newest first on load, whatever the order of the files', async () => {
    const dir = await freshFolder();
    const reversed = {
      ...sample,
      posts: [...sample.posts].reverse(),
      comments: [...sample.comments].reverse(),
      reactions: [...sample.reactions].reverse(),
      jobs: [...sample.jobs].reverse(),
    };
    await writeDatasetFiles(dir, reversed);
    expect(await loadDataset(dir)).toEqual(sample);
  });

  it('refuses to load a directory with a bad line, naming the file and line', async () => {
    const dir = await freshFolder();
    await writeDatasetFiles(dir, sample);
    const path = join(dir, 'comments.jsonl');
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[4] = '{"commentId": 1}';
    await writeFile(path, lines.join('\n'));
    await expect(loadDataset(dir)).rejects.toThrow(/^comments\.jsonl line 5: commentId: .*expected string/);
  });

  it('refuses a people file shorter than the manifest promises', async () => {
    const dir = await freshFolder();
    await writeDatasetFiles(dir, sample);
    await writeFile(join(dir, 'people.jsonl'), `${JSON.stringify(person)}\n`);
    await expect(loadDataset(dir)).rejects.toThrow(
      'people.jsonl holds 1 profiles; manifest.json promises 300.',
    );
  });

  it('leaves a directory whose writing stopped without a manifest, so it is refused', async () => {
    const dir = await freshFolder();
    await writeDatasetFiles(dir, sample);
    const writer = await DatasetWriter.create(dir);
    await writer.write('people.jsonl', sample.people.slice(0, 10));
    await writer.abandon();
    await expect(readManifest(dir)).rejects.toThrow(
      /manifest\.json is missing: .* its writing never finished/,
    );
  });
});

describe('reading lines', () => {
  it('yields every line numbered from 1, a bad one with its problem, and carries on', async () => {
    const dir = await freshFolder();
    const good = JSON.stringify(person);
    const misspelt = JSON.stringify({ ...person, positions: [{ ...person.positions[0], titel: 'CEO' }] });
    const wrongType = JSON.stringify({ ...person, followerCount: '12' });
    const notAnInstant = JSON.stringify({ ...sample.posts[0], postedAt: 'yesterday' });
    await writeFile(
      join(dir, 'people.jsonl'),
      [`\uFEFF${good}`, '{"username": ', misspelt, '', wrongType, `${good}\r`, '[]'].join('\n'),
    );
    await writeFile(join(dir, 'posts.jsonl'), `${notAnInstant}\n`);
    const lines = await collect(readDatasetLines(dir, 'people.jsonl'));
    const problems = lines.map((line) => ('problem' in line ? [line.line, line.problem] : [line.line, 'ok']));
    expect(problems).toEqual([
      [1, 'ok'],
      [2, expect.stringMatching(/^not JSON: /)],
      [3, 'positions.0: Unrecognized key: "titel"'],
      [5, 'followerCount: Invalid input: expected number, received string'],
      [6, 'ok'],
      [7, 'record: Invalid input: expected object, received array'],
    ]);
    expect((lines[0] as Extract<DatasetLine<unknown>, { record: unknown }>).record).toEqual(person);
    const [post] = await collect(readDatasetLines(dir, 'posts.jsonl'));
    expect(post).toEqual({
      line: 1,
      problem: 'postedAt: Invalid ISO datetime',
      bytes: notAnInstant.length + 1,
    });
  });

  it('lists at most three issues of a line and counts the rest', async () => {
    const dir = await freshFolder();
    await writeFile(join(dir, 'locations.jsonl'), '{"a": 1}\n');
    const [line] = await collect(readDatasetLines(dir, 'locations.jsonl'));
    expect(line).toEqual({
      line: 1,
      bytes: 9,
      problem: expect.stringMatching(
        /^(\w+: Invalid input: expected string, received undefined; ){3}and 3 more$/,
      ),
    });
  });

  it('reads a missing file as empty', async () => {
    const dir = await freshFolder();
    expect(await collect(readDatasetLines(dir, 'reactions.jsonl'))).toEqual([]);
  });

  it('reads a line of any length', async () => {
    const dir = await freshFolder();
    const long = { ...person, summary: 'x'.repeat(5_000_000) };
    const text = `${JSON.stringify(long)}\n`;
    await writeFile(join(dir, 'people.jsonl'), text);
    expect(await collect(readDatasetLines(dir, 'people.jsonl'))).toEqual([
      { line: 1, record: long, bytes: Buffer.byteLength(text) },
    ]);
  });
});

describe('the manifest', () => {
  async function refusal(text: string | null): Promise<string> {
    const dir = await freshFolder();
    if (text !== null) await writeFile(join(dir, MANIFEST_FILE), text);
    const error = await readManifest(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatasetFormatError);
    return (error as Error).message;
  }

  it('is required', async () => {
    expect(await refusal(null)).toMatch(/manifest\.json is missing: .* is not a dataset/);
  });

  it('must be JSON', async () => {
    expect(await refusal('{format')).toMatch(/manifest\.json is not JSON: /);
  });

  it('must name this format', async () => {
    expect(await refusal(manifest({ format: 'other-dataset' }))).toMatch(
      /names the format "other-dataset"; this reader reads "lookup-service-dataset" only\.$/,
    );
    expect(await refusal('[]')).toMatch(/names the format undefined/);
  });

  it('must be a version this reader knows, checked before any other field', async () => {
    expect(await refusal(manifest({ version: 2, fetchedAt: 'later', extra: true }))).toMatch(
      /is version 2 of the dataset format; this reader reads version 1 only\.$/,
    );
  });

  it('must have valid fields and no others', async () => {
    expect(await refusal(manifest({ fetchedAt: '2026-11-23' }))).toMatch(
      /: fetchedAt: Invalid ISO datetime$/,
    );
    expect(await refusal(manifest({ profile: 3 }))).toMatch(/: record: Unrecognized key: "profile"$/);
  });
});
