/**
 * The Lambda bundles for tests and benchmarks, built once: `npm run build` runs only when
 * dist/functions/build-report.json is missing or older than any source the bundles are made from
 * (schemas/, shared/, functions/, the build script and its esbuild options, the lockfile). Of test
 * files running side by side, one builds and the others wait for its output (scripts/make-once.ts).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

function newestSource(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(info.mtimeMs, ...readdirSync(path).map((entry) => newestSource(join(path, entry))));
}

function isCurrent(): boolean {
  try {
    return statSync(REPORT).mtimeMs >= Math.max(...SOURCES.map((source) => newestSource(join(ROOT, source))));
  } catch {
    return false;
  }
}

/** Builds the bundles unless current ones exist; answers dist/functions. */
export async function builtFunctions(): Promise<string> {
  await makeOnce(lockOf(ROOT, 'build'), isCurrent, () =>
    execFileSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/build-functions.ts'], {
      cwd: ROOT,
      stdio: 'pipe',
    }),
  );
  return FUNCTIONS_DIR;
}
