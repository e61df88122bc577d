/**
 * `npm run build`: one Lambda code asset per entry of `deployedFunctions()` (schemas/functions.ts),
 * in dist/functions/<name>/: the esbuild bundle index.mjs (handler `index.handler`) and its chunks/
 * (code splitting: what it imports only on some paths, and code those share with it), its metafile,
 * and what the function carries beside it: data functions the generated sample's database as
 * dataset.sqlite, website functions Chromium's brotli archives (chromium/), the pages function the
 * /docs assets (docs-assets/) and what it serves from the catalog (pages-documents.json), the /mcp
 * function the tools it serves (mcp-tools.json). Each
 * directory is self-contained: no node_modules at run time.
 * Operation, tool-group and batch-consumer entries are generated (.build/entries/<name>.ts) from the
 * catalog; the others (/mcp, pages, reconcile, batches…) are modules of functions/lambda/. The build fails when a
 * local-only package, or Chromium/Puppeteer outside a website function, gets into a bundle, and
 * writes dist/functions/build-report.json (sizes; docs/benchmarks.md and the tests read it).
 */
import { copyFile, link, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { buildMcpTools } from '../functions/lambda/mcp-tools.js';
import { buildPagesDocuments } from '../functions/lambda/pages-documents.js';
import { catalog } from '../schemas/catalog.js';
import {
  BUNDLE_CHUNKS_DIRECTORY,
  BUNDLED_CHROMIUM_DIRECTORY,
  BUNDLED_CONSOLE_FILES,
  BUNDLED_DATASET_FILE,
  BUNDLED_DOCS_DIRECTORY,
  BUNDLED_MCP_TOOLS_FILE,
  BUNDLED_PAGES_DOCUMENTS_FILE,
  deployedFunctions,
  type FunctionSpec,
  implementationModulesOf,
} from '../schemas/functions.js';
import type { OperationDefinition } from '../schemas/operation-definition.js';
import { consoleStylesheetSource } from '../shared/console/console-assets.js';
import { bundleConsoleScript } from '../shared/console/console-script-bundle.js';
import { swaggerAssets, swaggerUiDirectory } from '../shared/http/documentation-pages.js';
import { ensureSampleDatabase } from '../shared/sources/dataset/sample-database.js';
import { initInputs, initOutputs } from './bundle-start.js';
import { lambdaBundleOptions } from './lambda-bundle-options.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entriesDir = join(root, '.build', 'entries');
export const FUNCTIONS_DIR = join(root, 'dist', 'functions');
const REPORT_FILE = join(FUNCTIONS_DIR, 'build-report.json');
/**
 * Local-only packages: the embedded DynamoDB (dynalite and its LevelDB binding), the /docs assets
 * package and esbuild (which bundles the console's script locally). Their presence means the Lambda
 * path imports shared/store/embedded-dynamodb.ts, open-store.ts, the console's bundler or the assets
 * themselves, which would ship a native addon and megabytes for nothing.
 */
const localOnly = /(?:^|\/)node_modules\/(dynalite|classic-level|swagger-ui-dist|esbuild)\//;
/**
 * The browser stack: only website functions may carry it (megabytes, and a binary of x86_64 only),
 * and none loads it at start (shared/websites/chromium-launch.ts is imported at a first launch).
 */
export const browserPackages = /(?:^|\/)node_modules\/(@sparticuz\/chromium|puppeteer-core|puppeteer)\//;

/**
 * The whole catalog: a function running operations of its own loads only their families' entries
 * (the account family excepted: an account's view prices every operation), so that its cold start
 * constructs no other operation's schemas. The build refuses a bundle that takes it in again, and a
 * pages or /mcp bundle that loads it at start (they serve what they need of it from
 * pages-documents.json and mcp-tools.json).
 */
const wholeCatalog = /(?:^|\/)schemas\/catalog\.ts$/;
const slicedKinds: ReadonlySet<FunctionSpec['kind']> = new Set(['operation', 'tool-group', 'batch-consumer']);
const needsWholeCatalog = (spec: FunctionSpec) => spec.operations.some((id) => familyOf(id) === 'account');

/**
 * The WebAuthn server library and the X.509 and ASN.1 parsers it brings: the console loads them at
 * its first passkey ceremony (mount-console.ts), never at start.
 */
const webAuthnServer = /(?:^|\/)node_modules\/(@simplewebauthn\/server|@peculiar\/[^/]+|asn1js)\//;

/** The DynamoDB client: pages loads it at its first /healthz only (pages-handler.ts). */
const storeClient = /(?:^|\/)shared\/store\/dynamodb\/dynamo-client\.ts$/;

/**
 * The OAuth authorization server (oidc-provider and Koa, over 800 KiB): loaded at start by the oauth
 * function alone. /mcp checks tokens without it, and the console imports it only for a connect page.
 */
const authorizationServer = /(?:^|\/)node_modules\/(oidc-provider|koa)\//;

/**
 * The OpenAPI document's generator: no function loads it at start. Serving routes needs none of it
 * (the REST app is a plain Hono app), and the pages function serves the document made at build time,
 * importing the generator only when PRICE_OVERRIDES changes a price.
 */
const documentGenerator = /(?:^|\/)node_modules\/@asteasolutions\/zod-to-openapi\//;

/** What the swaps keep out; the build checks it (a new import path to either would not be swapped). */
const swappedOut =
  /(?:^|\/)(shared\/sources\/dataset\/(generate[^/]*|sample-database|database\/build-database)\.ts|shared\/console\/console-script-bundle\.ts|node_modules\/zod\/v4\/locales\/(?!en\.js$)[^/]+|node_modules\/@modelcontextprotocol\/server\/dist\/ajvProvider-[^/]+)$/;

const byId = new Map<string, OperationDefinition>(catalog.map((operation) => [operation.id, operation]));
const familyOf = (id: string) => byId.get(id)?.family ?? '';

/** The entry module of a function: generated for operations and tool groups, a module otherwise. */
async function entryOf(spec: FunctionSpec): Promise<string> {
  if (spec.kind !== 'operation' && spec.kind !== 'tool-group' && spec.kind !== 'batch-consumer') {
    return join(root, 'functions', 'lambda', `${spec.kind}-handler.ts`);
  }
  // Each family's module is shared/operations/<family>.ts, and an operation listed in
  // OPERATIONS_WITH_OWN_MODULE has its own, shared/operations/<function name>.ts; each exports its
  // catalog entries and its run functions (shared/operations/index.ts makes tsc check both): the
  // entry reads its operations from there, never from the catalog, so it constructs no other
  // operation's schemas.
  const modules = implementationModulesOf(spec.operations.map((id) => byId.get(id) as OperationDefinition));
  const imports = modules.map(
    (module, index) => `import * as family${index} from '../../shared/operations/${module}.js';`,
  );
  const factories = modules.map((_, index) => `family${index}`).join(', ');
  // A tool group's and a batch group's entries differ only by their handler's factory.
  const factory = spec.kind === 'batch-consumer' ? 'createBatchConsumerHandler' : 'createToolGroupHandler';
  const body =
    spec.kind === 'operation'
      ? [
          "import { createOperationHandler } from '../../functions/lambda/operation-handler.js';",
          ...imports,
          '',
          `export const handler = await createOperationHandler('${spec.operations[0]}', ${factories});`,
        ]
      : [
          `import { ${factory} } from '../../functions/lambda/${spec.kind}-handler.js';`,
          ...imports,
          '',
          `export const handler = await ${factory}('${byId.get(spec.operations[0] ?? '')?.group}', [${factories}]);`,
        ];
  const entry = join(entriesDir, `${spec.name}.ts`);
  await writeFile(
    entry,
    ['// Generated by scripts/build-functions.ts from the catalog; do not edit.', ...body, ''].join('\n'),
  );
  return entry;
}

interface BuiltFunction {
  name: string;
  kind: FunctionSpec['kind'];
  /** The code every cold start reads: index.mjs and the chunks it imports statically. */
  bundleBytes: number;
  /** The whole directory Lambda gets (index.mjs, chunks/, source maps excluded, and what it carries). */
  assetBytes: number;
}

async function buildFunction(spec: FunctionSpec, sampleDatabase: string): Promise<BuiltFunction> {
  const directory = join(FUNCTIONS_DIR, spec.name);
  const outfile = join(directory, 'index.mjs');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [await entryOf(spec)],
    ...lambdaBundleOptions,
    outdir: directory,
    entryNames: 'index',
    outExtension: { '.js': '.mjs' },
    // What a function imports only on some paths (the S3 client for a dataset in S3, the Secrets
    // Manager client) goes to chunks/ beside index.mjs, read only when imported: a function that
    // never takes the path neither parses nor compiles it at cold start.
    splitting: true,
    chunkNames: `${BUNDLE_CHUNKS_DIRECTORY}/[name]-[hash]`,
    sourcemap: 'external',
    // Nothing is external but Node's built-ins. In particular @aws-sdk/* is bundled although the
    // Lambda runtime ships an SDK: that one's version is AWS's choice and changes under us, while
    // the bundled one is the version our lockfile pins and our tests ran against.
    external: [],
    metafile: true,
    // Written below, once checked: a refused bundle never lands in dist/.
    write: false,
    logLevel: 'warning',
  });

  const inputs = Object.keys(result.metafile.inputs);
  const sliced = slicedKinds.has(spec.kind) && !needsWholeCatalog(spec);
  const offending = inputs.filter(
    (input) =>
      localOnly.test(input) ||
      swappedOut.test(input) ||
      (!spec.browser && browserPackages.test(input)) ||
      (sliced && wholeCatalog.test(input)),
  );
  const loadedAtStart = initInputs(result.metafile, relative(root, outfile));
  if (spec.kind === 'pages' || spec.kind === 'mcp')
    offending.push(...loadedAtStart.filter((input) => wholeCatalog.test(input)));
  if (spec.kind === 'pages') offending.push(...loadedAtStart.filter((input) => storeClient.test(input)));
  if (spec.kind !== 'oauth')
    offending.push(...loadedAtStart.filter((input) => authorizationServer.test(input)));
  offending.push(
    ...loadedAtStart.filter(
      (input) => documentGenerator.test(input) || browserPackages.test(input) || webAuthnServer.test(input),
    ),
  );
  if (offending.length > 0) {
    throw new Error(`${spec.name}: modules that must not be in this bundle:\n  ${offending.join('\n  ')}`);
  }
  await mkdir(directory, { recursive: true });
  for (const file of result.outputFiles) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.contents);
  }
  await writeFile(join(directory, 'metafile.json'), JSON.stringify(result.metafile));
  const carried: string[] = [];
  if (spec.dataset) {
    await carry(sampleDatabase, join(directory, BUNDLED_DATASET_FILE));
    carried.push(BUNDLED_DATASET_FILE);
  }
  if (spec.browser) {
    const bin = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', 'bin');
    await carry(bin, join(directory, BUNDLED_CHROMIUM_DIRECTORY));
    carried.push(BUNDLED_CHROMIUM_DIRECTORY);
  }
  if (spec.kind === 'pages') {
    const docs = join(directory, BUNDLED_DOCS_DIRECTORY);
    await mkdir(docs);
    for (const file of swaggerAssets.keys())
      await copyFile(join(swaggerUiDirectory(), file), join(docs, file));
    carried.push(BUNDLED_DOCS_DIRECTORY);
    await writeFile(join(directory, BUNDLED_PAGES_DOCUMENTS_FILE), JSON.stringify(buildPagesDocuments({})));
    carried.push(BUNDLED_PAGES_DOCUMENTS_FILE);
  }
  if (spec.kind === 'mcp') {
    await writeFile(join(directory, BUNDLED_MCP_TOOLS_FILE), JSON.stringify(buildMcpTools({})));
    carried.push(BUNDLED_MCP_TOOLS_FILE);
  }
  if (spec.kind === 'pages' || spec.kind === 'console') {
    const [script, stylesheet] = BUNDLED_CONSOLE_FILES;
    await writeFile(join(directory, script), await bundleConsoleScript());
    await copyFile(consoleStylesheetSource, join(directory, stylesheet));
    carried.push(...BUNDLED_CONSOLE_FILES);
  }
  const bundleBytes = initCodeBytes(result.metafile, relative(root, outfile));
  let assetBytes = result.outputFiles
    .filter((file) => file.path.endsWith('.mjs'))
    .reduce((total, file) => total + file.contents.byteLength, 0);
  for (const name of carried) assetBytes += await sizeOf(join(directory, name));
  return { name: spec.name, kind: spec.kind, bundleBytes, assetBytes };
}

/** The bytes every cold start reads. */
function initCodeBytes(metafile: Metafile, entry: string): number {
  return initOutputs(metafile, entry).reduce(
    (total, output) => total + (metafile.outputs[output]?.bytes ?? 0),
    0,
  );
}

/**
 * Places a file, or a directory's files, that a function carries unchanged: as hard links where the
 * file system allows (a copy otherwise). Sixty data functions carry the 6 MB sample database and
 * nine website functions Chromium's 67 MB: copied, 1.2 GB were written at every build (on this
 * 2-core machine the build took 80 s with copies, 70 s with links). Nothing writes to these files
 * (the dataset opens read-only, Chromium unpacks its archives into /tmp), and CDK copies each
 * function's directory into an asset of its own.
 */
async function carry(source: string, destination: string): Promise<void> {
  if ((await stat(source)).isDirectory()) {
    await mkdir(destination, { recursive: true });
    for (const entry of await readdir(source)) await carry(join(source, entry), join(destination, entry));
    return;
  }
  try {
    await link(source, destination);
  } catch (error) {
    if (!['EXDEV', 'EPERM', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await copyFile(source, destination);
  }
}

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await sizeOf(join(path, entry));
  return total;
}

// Stale entries and bundles of removed functions must not survive a build.
await rm(entriesDir, { recursive: true, force: true });
await rm(FUNCTIONS_DIR, { recursive: true, force: true });
await mkdir(entriesDir, { recursive: true });

const sampleDatabase = ensureSampleDatabase();
const built = await Promise.all(deployedFunctions().map((spec) => buildFunction(spec, sampleDatabase)));
await writeFile(
  REPORT_FILE,
  `${JSON.stringify({ builtAt: new Date().toISOString(), functions: built }, null, 2)}\n`,
);

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1).padStart(9)} KiB`;
for (const { name, bundleBytes, assetBytes } of built) {
  process.stdout.write(
    `${name.padEnd(32)} ${kib(bundleBytes)} ${kib(assetBytes)}  dist/functions/${name}/\n`,
  );
}
process.stdout.write(`sample dataset database          ${sampleDatabase.slice(root.length + 1)}\n`);
