/**
 * `npm start`: bundles the local server (server.ts) and its threads (dataset readers, the store's
 * checkpoints) with esbuild into dist/local/, then runs the server's bundle in this process. Plain
 * JavaScript, so that no loader runs the service.
 *
 * Why not tsx, as `npm start` ran before: tsx loads each module through its loader hooks and compiles
 * it with esbuild's keepNames, which wraps every function and class the code creates, each request's
 * closures too, in a call that defines its `name`. Bundled, a start takes 2.4 s instead of 3.0 s;
 * requests per second moved within the noise (docs/benchmarks.md, "npm start as a bundle").
 *
 * The bundle behaves module by module as the sources do: each module's `import.meta.url` is its
 * source file's URL, so files found beside a module (the console's browser script and stylesheet)
 * are found where they are in the checkout, and packages stay in
 * node_modules (`packages: 'external'`). The one exception is shared/bundle-assets.ts, whose purpose
 * is to find what sits beside the running bundle: here, the threads' own bundles. The build
 * takes about half a second and runs at every start, so a start always runs the checkout as it is;
 * each file is written under a temporary name and renamed, so starts that overlap (the tests start
 * many servers) never read a half-written bundle. One limit of sharing dist/local/: a server starts
 * its threads when it first needs them, from the thread bundles there at that moment,
 * so a checkout edited and started again while an older server still runs hands that server the
 * newer thread code.
 */

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outdir = join(root, 'dist', 'local');
/** Finds the running bundle; the reader pool and the checkpointer ask it for their threads' bundles. */
const bundleLocator = join(root, 'shared', 'bundle-assets.ts');

/** Each project module's `import.meta.url` as its source file's, as under tsx. */
const sourceLocations = {
  name: 'source-locations',
  setup(bundler) {
    bundler.onLoad({ filter: /\.tsx?$/ }, async ({ path }) => {
      if (path === bundleLocator || relative(root, path).startsWith('node_modules')) return undefined;
      const source = await readFile(path, 'utf8');
      return {
        contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
        loader: path.endsWith('x') ? 'tsx' : 'ts',
      };
    });
  },
};

let result;
try {
  result = await build({
    absWorkingDir: root,
    entryPoints: {
      server: 'functions/local/server.ts',
      // READER_THREAD_BUNDLE of shared/sources/dataset/reader-pool.ts.
      'reader-thread': 'shared/sources/dataset/reader-thread.ts',
      // CHECKPOINT_THREAD_BUNDLE of shared/store/sqlite/wal-checkpointer.ts.
      'checkpoint-thread': 'shared/store/sqlite/checkpoint-thread.ts',
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    sourcemap: 'linked',
    plugins: [sourceLocations],
    write: false,
    logLevel: 'silent',
  });
} catch (error) {
  // esbuild's own report names each file, line and problem.
  process.stderr.write(`npm start could not bundle the server: ${error.message}\n`);
  process.exit(1);
}

await mkdir(outdir, { recursive: true });
await Promise.all(
  result.outputFiles.map(async (file) => {
    const partial = `${file.path}.${process.pid}.partial`;
    await writeFile(partial, file.contents);
    await rename(partial, file.path);
  }),
);
// Stack traces name the TypeScript sources, as they did under tsx.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(outdir, 'server.mjs')).href);
