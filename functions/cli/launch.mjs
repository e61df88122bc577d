/**
 * `npm run admin` and `npm run data` (`node functions/cli/launch.mjs <admin|data> …`): runs the
 * operator or data CLI from its bundle in dist/cli/ (functions/local/local-bundle.mjs), built again
 * only when a source is newer than the bundle, so a command always runs the checkout as it is.
 *
 * Why not tsx, as they ran before: a command spent most of its time in tsx, which starts a second
 * Node process and loads and compiles every source through its hooks: `accounts list` took 0.91–0.98
 * s (1.2 s of CPU) under tsx, 0.37–0.44 s from the bundle (docs/benchmarks.md). Operators wait for
 * every command, and the tests run hundreds. Code splitting keeps what one command group imports on
 * its own path (the OAuth commands' authorization server) out of every other command's start.
 */

import { join } from 'node:path';
import { isCurrent } from '../local/bundle-staleness.mjs';
import { bundleOrExit, root, runBundle } from '../local/local-bundle.mjs';

const clis = new Map([
  ['admin', 'functions/cli/admin.ts'],
  ['data', 'functions/cli/data.ts'],
]);
/** What the bundles are made from: a change to any of these makes them stale. */
const SOURCES = ['schemas', 'shared', 'functions', 'package-lock.json'];
const outdir = join(root, 'dist', 'cli');

// The CLI reads its own arguments from process.argv, as when it was started directly.
const [name] = process.argv.splice(2, 1);
if (!clis.has(name)) {
  process.stderr.write(`Usage: node functions/cli/launch.mjs <${[...clis.keys()].join('|')}> [arguments]\n`);
  process.exit(2);
}
const bundle = join(outdir, `${name}.mjs`);
if (!isCurrent(bundle, root, SOURCES)) {
  await bundleOrExit(`npm run ${name}`, { entryPoints: Object.fromEntries(clis), outdir, splitting: true });
}
process.argv[1] = bundle;
await runBundle(bundle);
