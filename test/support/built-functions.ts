/**
 * The Lambda bundles for tests and benchmarks, built once: `npm run build` runs only when
 * dist/functions/build-report.json is missing or older than any source the bundles are made from
 * (schemas/, shared/, functions/, the build script and its esbuild options, the lockfile). Of test
 * files running side by side, one builds and the others wait for its output (scripts/make-once.ts).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { isCurrent } from '../../functions/local/bundle-staleness.mjs';
import { lockOf, makeOnce } from '../../scripts/make-once.js';
import { ROOT } from './process-group.js';

export const FUNCTIONS_DIR = join(ROOT, 'dist', 'functions');
const REPORT = join(FUNCTIONS_DIR, 'build-report.json');
const SOURCES = [
  'schemas',
  'shared',
  'functions',
  'scripts/build-functions.ts',
  'scripts/bundle-start.ts',
  'scripts/lambda-bundle-options.ts',
  'package-lock.json',
];

export interface BuildReport {
  builtAt: string;
  functions: { name: string; kind: string; bundleBytes: number; assetBytes: number }[];
}

/** Builds the bundles unless current ones exist; answers dist/functions. */
export async function builtFunctions(): Promise<string> {
  await makeOnce(
    lockOf(ROOT, 'build'),
    () => isCurrent(REPORT, ROOT, SOURCES),
    () =>
      execFileSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/build-functions.ts'], {
        cwd: ROOT,
        stdio: 'pipe',
      }),
  );
  return FUNCTIONS_DIR;
}
