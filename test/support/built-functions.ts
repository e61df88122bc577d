/**
 * The Lambda bundles for tests and benchmarks, built once: `npm run build` runs only when
 * dist/functions/build-report.json is missing or older than any source the bundles are made from
 * (schemas/, shared/, functions/, the build script and its esbuild options, the lockfile). Test files running in parallel
 * wait on one lock directory, so one of them builds and the others reuse its output.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT } from './process-group.js';

export const FUNCTIONS_DIR = join(ROOT, 'dist', 'functions');
const REPORT = join(FUNCTIONS_DIR, 'build-report.json');
const LOCK = join(ROOT, '.build', 'functions.lock');
const SOURCES = [
  'schemas',
  'shared',
  'functions',
  'scripts/build-functions.ts',
  'scripts/bundle-start.ts',
  'scripts/lambda-bundle-options.ts',
  'package-lock.json',
];
/** A lock older than this belongs to a build that died. */
const STALE_LOCK_MS = 10 * 60_000;

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

function tryLock(): boolean {
  try {
    mkdirSync(LOCK, { recursive: false });
    return true;
  } catch {
    const held = statSync(LOCK, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmdirSync(LOCK);
    return false;
  }
}

/** Builds the bundles unless current ones exist; answers dist/functions. */
export async function builtFunctions(): Promise<string> {
  mkdirSync(join(ROOT, '.build'), { recursive: true });
  while (!isCurrent()) {
    if (!tryLock()) {
      await sleep(500);
      continue;
    }
    try {
      if (!isCurrent()) {
        execFileSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/build-functions.ts'], {
          cwd: ROOT,
          stdio: 'pipe',
        });
      }
    } finally {
      rmdirSync(LOCK);
    }
  }
  return FUNCTIONS_DIR;
}
