/**
 * `npm run data -- <command>`: datasets in the dataset format (docs/dataset-format.md).
 * `generate --profiles N [--seed S] --out DIR` writes a deterministic synthetic dataset: the same
 * size and seed give the same bytes, and `--profiles 300` is the built-in sample.
 * `import DIR --out FILE` validates every line and builds the dataset database `DATASET=FILE npm
 * start` serves (docs/datasets.md), replacing FILE atomically. Needs no store and no settings.
 * Prints a JSON summary on stdout (progress and skipped lines on stderr); a failure is one JSON line
 * on stderr (`{"error":{"code","message"}}`) and exit code 1, as with the admin CLI.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { importDataset } from '../../shared/sources/dataset/database/import-dataset.js';
import type { DatasetCounts } from '../../shared/sources/dataset/dataset-files.js';
import { DEFAULT_SEED } from '../../shared/sources/dataset/fixtures.js';
import { MAX_PROFILES, SAMPLE_PROFILES } from '../../shared/sources/dataset/generate.js';
import { generateDatasetFiles } from '../../shared/sources/dataset/generate-files.js';
import { PLANTED_PEOPLE } from '../../shared/sources/dataset/generate-people.js';
import { integer, text } from './arguments.js';
import { importProgress } from './import-progress.js';
import { printResult, reportFailure } from './run-command.js';

/** The largest seed that differs from every other: the generator's PRNG keeps 32 bits of it. */
const MAX_SEED = 2 ** 32 - 1;

interface GenerateOptions {
  profiles: number;
  seed: number;
  out: string;
}

/** npm runs scripts in the package folder: a relative --out means the folder the command was typed in. */
const fromCallerFolder = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);

/** A progress line on a terminal only: scripts read the summary, not a stream of updates. */
function progressLine(total: number): ((written: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  const of = ` / ${total.toLocaleString('en')} profiles`;
  return (written) => {
    process.stderr.write(`\r${written.toLocaleString('en')}${of}${written === total ? '\r\x1b[K' : ''}`);
  };
}

async function generate({ profiles, seed, out }: GenerateOptions) {
  const started = performance.now();
  const dir = fromCallerFolder(out);
  const files: DatasetCounts = await generateDatasetFiles({
    profiles,
    seed,
    out: dir,
    onProgress: progressLine(profiles),
  });
  return {
    out: dir,
    profiles,
    seed,
    files,
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  };
}

// Settings made before the commands are added are inherited by every subcommand: errors are thrown
// to reportFailure instead of printed by commander, so they come out as JSON.
const program = new Command('data')
  .description('Generate and import datasets in the dataset format (docs/dataset-format.md).')
  .exitOverride()
  .configureOutput({ writeErr: () => undefined, outputError: () => undefined });

program
  .command('generate')
  .description('Write a deterministic synthetic dataset: the same profiles and seed give the same bytes.')
  .requiredOption(
    '--profiles <count>',
    `people to generate, ${PLANTED_PEOPLE} to ${MAX_PROFILES} (the built-in sample has ${SAMPLE_PROFILES})`,
    integer(PLANTED_PEOPLE, MAX_PROFILES),
  )
  .option('--seed <seed>', 'seed of every random draw', integer(0, MAX_SEED), DEFAULT_SEED)
  .requiredOption('--out <dir>', 'folder to write; created if missing, its dataset files replaced', text)
  .action(async (options: GenerateOptions) => printResult(await generate(options)));

program
  .command('import')
  .description('Validate a dataset directory and build the dataset database a server reads (DATASET).')
  .argument('<dir>', 'the dataset directory (manifest.json and the .jsonl files)', text)
  .requiredOption('--out <file>', 'the database to write; replaced only once complete', text)
  .action(async (dir: string, options: { out: string }) =>
    printResult(await importDataset(fromCallerFolder(dir), fromCallerFolder(options.out), importProgress())),
  );

await program.parseAsync().catch(reportFailure);
