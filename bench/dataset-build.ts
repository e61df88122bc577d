/**
 * Builds a generated dataset database for the benchmarks that need one of a given size, the way an
 * operator would: `npm run data -- generate` (default seed) into a folder, then `npm run data --
 * import` into one database file. Shared by `bench:dataset` and `bench:mcp-sizes`.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { npmScriptCommand, ROOT as root } from '../test/support/process-group.js';

/** `npm run data`, as package.json states it, with Node 22 from node_modules/.bin as npm runs it. */
const [runner = 'node', ...dataCli] = npmScriptCommand(root, 'data');

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Runs the data CLI to its end; answers the seconds it took. */
function runDataCli(args: string[]): number {
  const begin = performance.now();
  execFileSync(join(root, 'node_modules', '.bin', runner), [...dataCli, ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return round((performance.now() - begin) / 1000, 1);
}

export interface BuiltDataset {
  /** The generated dataset files (the import's input). */
  dir: string;
  /** The dataset database `DATASET=FILE` serves. */
  file: string;
  generateSeconds: number;
  importSeconds: number;
}

/** Generates `profiles` profiles under `base` and imports them into `base/dataset-<profiles>.sqlite`. */
export function buildDataset(profiles: number, base: string): BuiltDataset {
  const dir = join(base, `dataset-${profiles}`);
  const file = join(base, `dataset-${profiles}.sqlite`);
  rmSync(dir, { recursive: true, force: true });
  const generateSeconds = runDataCli(['generate', '--profiles', String(profiles), '--out', dir]);
  const importSeconds = runDataCli(['import', dir, '--out', file]);
  return { dir, file, generateSeconds, importSeconds };
}
