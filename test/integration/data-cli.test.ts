/**
 * The data CLI as operators run it, one child process per command: `generate` writes a dataset that
 * reads back as the built-in sample and prints a JSON summary; a bad argument is one JSON line on
 * stderr with exit code 1, and nothing is written.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { datasetFiles } from '../../schemas/dataset-format.js';
import { loadDataset } from '../../shared/sources/dataset/dataset-files.js';
import { DEFAULT_SEED } from '../../shared/sources/dataset/fixtures.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';
import { type CliResult, cleanUpProcesses, runDataCli } from '../support/processes.js';

const folders: string[] = [];
afterAll(async () => {
  await cleanUpProcesses();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function freshFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'data-cli-'));
  folders.push(folder);
  return folder;
}

/** The error a failed command printed: the whole of stderr is one line of JSON. */
function cliError(result: CliResult) {
  expect(result).toMatchObject({ code: 1, stdout: '' });
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
  return (JSON.parse(result.stderr) as { error: { code: string; message: string } }).error;
}

describe('npm run data -- generate', () => {
  it('writes the built-in sample for --profiles 300 and prints a summary with counts per file', async () => {
    const out = join(await freshFolder(), 'sample');
    const result = await runDataCli(['generate', '--profiles', '300', '--out', out]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const summary = JSON.parse(result.stdout);
    const sample = generateDataset();
    expect(summary).toEqual({
      out,
      profiles: 300,
      seed: DEFAULT_SEED,
      files: Object.fromEntries(
        datasetFiles.map(({ file, collection }) => [file, sample[collection].length]),
      ),
      seconds: expect.any(Number),
    });
    expect(await loadDataset(out)).toEqual(sample);
  });

  it('takes another seed', async () => {
    const out = await freshFolder();
    const result = await runDataCli(['generate', '--profiles', '40', '--seed', '7', '--out', out]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toMatchObject({ profiles: 40, seed: 7 });
    expect(await loadDataset(out)).toEqual(generateDataset(7, 40));
  });

  it.each([
    [
      'a size that is not a number',
      ['--profiles', 'many'],
      /^option '--profiles <count>' argument 'many' is invalid\. Expected a whole number from 17 to 2000000/,
    ],
    ['fewer profiles than the planted ones', ['--profiles', '16'], /Expected a whole number from 17 to/],
    [
      'a seed beyond 32 bits',
      ['--profiles', '300', '--seed', '4294967296'],
      /Expected a whole number from 0 to 4294967295/,
    ],
    ['no size', [], /required option '--profiles <count>' not specified/],
    ['an unknown option', ['--profiles', '300', '--rows', '3'], /unknown option '--rows'/],
  ])('refuses %s with one JSON line on stderr and exit code 1', async (_, args, message) => {
    const out = join(await freshFolder(), 'never');
    const result = await runDataCli(['generate', '--out', out, ...args]);
    expect(cliError(result)).toEqual({ code: 'invalid_argument', message: expect.stringMatching(message) });
    await expect(access(out)).rejects.toThrow();
  });

  it('refuses a missing or unknown command', async () => {
    expect(cliError(await runDataCli([]))).toMatchObject({ code: 'invalid_argument' });
    expect(cliError(await runDataCli(['regenerate']))).toEqual({
      code: 'invalid_argument',
      message: expect.stringMatching(/unknown command 'regenerate'/),
    });
  });
});
