/**
 * Whether a bundle is older than what it is made from: the rule that decides when the operator
 * CLIs' bundle (functions/cli/launch.mjs) and the tests' Lambda bundles
 * (test/support/built-functions.ts) are built again. Plain JavaScript, as launch.mjs runs without a
 * loader.
 */

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of `path` or anything under it, in ms. */
function newestChange(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(path).reduce(
    (latest, entry) => Math.max(latest, newestChange(join(path, entry))),
    info.mtimeMs,
  );
}

/**
 * True when `built` exists and nothing under `sources` (paths relative to `root`) changed after it;
 * false when it is missing.
 */
export function isCurrent(built, root, sources) {
  let builtAt;
  try {
    builtAt = statSync(built).mtimeMs;
  } catch {
    return false;
  }
  return sources.every((source) => newestChange(join(root, source)) <= builtAt);
}
