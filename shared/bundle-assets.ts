/**
 * Files a Lambda bundle carries beside itself (scripts/build-functions.ts copies them next to
 * index.mjs, which has no node_modules to resolve packages from). In a bundle `import.meta.url` is
 * the bundle's own URL; run from source the folder is absent and callers use the installed package.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLE_CHUNKS_DIRECTORY } from '../schemas/function-conventions.js';

/** The path of `name` beside the running bundle, or undefined when not bundled. */
export function besideBundle(name: string): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  // Code splitting may put this module in a chunk, one folder below index.mjs.
  const bundle = basename(here) === BUNDLE_CHUNKS_DIRECTORY ? dirname(here) : here;
  const path = join(bundle, name);
  return existsSync(path) ? path : undefined;
}

/**
 * How to start a worker thread whose entry is the TypeScript module `source`: beside the bundle
 * `npm start` runs, the thread's own bundle `bundleName` (functions/local/start.mjs writes it);
 * run from source (the tests, tsx), the module itself through tsx's loader, which a worker does not
 * inherit under vitest.
 */
export function threadEntry(bundleName: string, source: URL): { url: URL; execArgv: string[] } {
  const bundled = besideBundle(bundleName);
  if (bundled) return { url: pathToFileURL(bundled), execArgv: [] };
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { url: source, execArgv: ['--import', loader] };
}
