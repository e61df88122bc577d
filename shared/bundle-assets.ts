/**
 * Files a Lambda bundle carries beside itself (scripts/build-functions.ts copies them next to
 * index.mjs, which has no node_modules to resolve packages from). In a bundle `import.meta.url` is
 * the bundle's own URL; run from source the folder is absent and callers use the installed package.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_CHUNKS_DIRECTORY } from '../schemas/function-conventions.js';

/** The path of `name` beside the running bundle, or undefined when not bundled. */
export function besideBundle(name: string): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  // Code splitting may put this module in a chunk, one folder below index.mjs.
  const bundle = basename(here) === BUNDLE_CHUNKS_DIRECTORY ? dirname(here) : here;
  const path = join(bundle, name);
  return existsSync(path) ? path : undefined;
}
