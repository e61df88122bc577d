/**
 * `npm start`: bundles the local server (server.ts) and its threads (dataset readers, the store's
 * checkpoints) with esbuild into dist/local/ (local-bundle.mjs), then runs the server's bundle in
 * this process. Plain JavaScript, so that no loader runs the service.
 *
 * Why not tsx, as `npm start` ran before: tsx loads each module through its loader hooks and compiles
 * it with esbuild's keepNames, which wraps every function and class the code creates, each request's
 * closures too, in a call that defines its `name`. Bundled, a start takes 2.4 s instead of 3.0 s;
 * requests per second moved within the noise (docs/benchmarks.md, "npm start as a bundle").
 *
 * The build takes about half a second and runs at every start, so a start always runs the checkout
 * as it is. One limit of sharing dist/local/: a server starts its threads when it first needs them,
 * from the thread bundles there at that moment, so a checkout edited and started again while an
 * older server still runs hands that server the newer thread code.
 */

import { join } from 'node:path';
import { bundleOrExit, root, runBundle } from './local-bundle.mjs';

const outdir = join(root, 'dist', 'local');

await bundleOrExit('npm start', {
  entryPoints: {
    server: 'functions/local/server.ts',
    // READER_THREAD_BUNDLE of shared/sources/dataset/reader-pool.ts.
    'reader-thread': 'shared/sources/dataset/reader-thread.ts',
    // CHECKPOINT_THREAD_BUNDLE of shared/store/sqlite/wal-checkpointer.ts.
    'checkpoint-thread': 'shared/store/sqlite/checkpoint-thread.ts',
  },
  outdir,
});
await runBundle(join(outdir, 'server.mjs'));
