/**
 * How every Lambda code asset is bundled (scripts/build-functions.ts), shared with the cold-start
 * benchmark's baselines so they are bundled exactly the same way: ESM for Node 24 (the functions'
 * runtime, nodejs24.x), minified, with the swaps below.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * ESM output has no `require`, yet bundled CommonJS dependencies still require Node built-ins (pino
 * requires node:os at load): without this the bundle dies with `Dynamic require of "node:os"`.
 */
const requireShim =
  "import { createRequire as __bannerCreateRequire } from 'node:module';" +
  'const require = __bannerCreateRequire(import.meta.url);';

/**
 * zod without its JIT: at an object schema's first parse, zod generates and compiles a parser for
 * its shape, which pays only over many parses. A function parses its configuration once and each
 * schema a few times per cold start, and that compiling was 15 ms of a data function's init
 * (docs/benchmarks.md). zod reads the setting from this global when each schema is constructed, so
 * it must be set before any module of the bundle runs: the banner opens every output file. The
 * embedded server, which parses the same schemas millions of times, keeps the JIT.
 */
const zodWithoutJit = '(globalThis.__zod_globalConfig ??= {}).jitless = true;';

/**
 * Modules every Lambda bundle takes in another shape: the sample's builder becomes its Lambda
 * stand-in (functions/lambda/no-sample-database.ts: the generator never ships, and a function without
 * DATASET says so at init), the console script's bundler its stand-in (the script ships prebuilt,
 * esbuild never: functions/lambda/no-console-script-bundle.ts), zod's table of locales English alone
 * (functions/lambda/zod-english-locale.ts: −258 KiB a bundle, less to compile at each cold start),
 * and the MCP SDK's Node shims without Ajv (functions/lambda/mcp-sdk-shims.ts).
 */
const lambdaSwaps: Plugin = {
  name: 'lambda-swaps',
  setup(esbuild) {
    esbuild.onResolve({ filter: /\/sample-database\.js$/ }, () => ({
      path: join(root, 'functions', 'lambda', 'no-sample-database.ts'),
    }));
    esbuild.onResolve({ filter: /\/console-script-bundle\.js$/ }, () => ({
      path: join(root, 'functions', 'lambda', 'no-console-script-bundle.ts'),
    }));
    esbuild.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: join(root, 'functions', 'lambda', 'mcp-sdk-shims.ts'),
    }));
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /\/node_modules\/zod\/v4\//.test(importer)
        ? { path: join(root, 'functions', 'lambda', 'zod-english-locale.ts') }
        : undefined,
    );
  },
};

export const lambdaBundleOptions = {
  platform: 'node',
  target: 'node24',
  format: 'esm',
  bundle: true,
  minify: true,
  // Minified but named: oidc-provider tells its models apart by `constructor.name` (AccessToken,
  // Grant…); renamed classes would issue tokens without their lifetime and store records by the
  // minifier's names.
  keepNames: true,
  // Prefer the ESM builds of dependencies (the AWS SDK ships both): they tree-shake (~20% smaller).
  mainFields: ['module', 'main'],
  banner: { js: requireShim + zodWithoutJit },
  plugins: [lambdaSwaps],
} satisfies BuildOptions;
