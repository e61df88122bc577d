/**
 * Files a Lambda bundle carries beside itself (scripts/build-functions.ts copies them next to
 * index.mjs, which has no node_modules to resolve packages from). In a bundle `import.meta.url` is
 * the bundle's own URL; run from source the folder is absent and callers use the installed package.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The path of `name` beside the running bundle, or undefined when not bundled. */
export function besideBundle(name: string): string | undefined {
  const path = join(dirname(fileURLToPath(import.meta.url)), name);
  return existsSync(path) ? path : undefined;
}
