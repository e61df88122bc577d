/**
 * How the programs run on one machine (`npm start`, `npm run admin`, `npm run data`) are bundled
 * with esbuild into dist/: plain JavaScript, so that no loader runs the service, and module by
 * module as the sources behave. Each project module's `import.meta.url` is its source file's URL,
 * so files found beside a module (the console's browser script and stylesheet) are found where they
 * are in the checkout, and packages stay in node_modules (`packages: 'external'`). The one exception
 * is shared/bundle-assets.ts, whose purpose is to find what sits beside the running bundle: the
 * threads' own bundles.
 *
 * Each file is written under a temporary name and renamed, the entry points last, so processes that
 * build and start at once (the tests start many) never read a half-written bundle, nor an entry
 * whose chunks are not there yet (chunk names carry their content's hash).
 */

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
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

/**
 * Bundles `entryPoints` (name → source, relative to the checkout) into `outdir` as `<name>.mjs`.
 * `splitting`: what the entries import only on some paths (`await import(…)`) goes to chunks/,
 * read only when imported. Throws esbuild's error, which names each file, line and problem.
 */
export async function bundleLocal({ entryPoints, outdir, splitting = false }) {
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    sourcemap: 'linked',
    plugins: [sourceLocations],
    write: false,
    logLevel: 'silent',
  });
  const entries = new Set(Object.keys(entryPoints).map((name) => `${name}.mjs`));
  const isEntry = (file) => entries.has(basename(file.path)) && dirname(file.path) === outdir;
  const place = async (file) => {
    await mkdir(dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    await writeFile(partial, file.contents);
    await rename(partial, file.path);
  };
  await Promise.all(result.outputFiles.filter((file) => !isEntry(file)).map(place));
  await Promise.all(result.outputFiles.filter(isEntry).map(place));
}

/**
 * `bundleLocal` for the program `program` (`npm start`, `npm run admin`): when the sources do not
 * bundle, esbuild's report (each file, line and problem) goes to stderr and the process exits 1.
 */
export async function bundleOrExit(program, options) {
  try {
    await bundleLocal(options);
  } catch (error) {
    process.stderr.write(`${program} could not bundle its sources: ${error.message}\n`);
    process.exit(1);
  }
}

/** Runs the bundle `file` in this process, its stack traces naming the TypeScript sources, as under tsx. */
export async function runBundle(file) {
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(file).href);
}
