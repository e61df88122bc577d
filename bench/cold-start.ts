/**
 * Benchmark (`npm run bench`, last part): the cold start of every bundled operation function and of
 * `pages`, against a bare Hono handler bundled the same way (esbuild, ESM, Node 22), in one run. Each
 * start is a fresh Node process on a copy of the function's directory alone (test/support's Lambda
 * stand-in): *init* is the import of index.mjs, *first event* the first REST API proxy event — for an
 * operation an authenticated request without its parameters (400 after the key check in DynamoDB, on
 * an in-process dynalite), for pages GET /openapi.json, for the bare bundle GET /. Rounds interleave
 * the functions so machine noise hits all alike; the median of the rounds is kept. Node's own boot is
 * left out (the same for every bundle). Prints medians per family, ratios to the bare bundle and
 * bundle sizes (from the build report), then a JSON summary. Results: docs/benchmarks.md.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { catalog, type OperationDefinition } from '../schemas/catalog.js';
import { deployedFunctions, PAGES_FUNCTION } from '../schemas/functions.js';
import { provisionAccount } from '../shared/accounts/provisioning.js';
import { createRepositories } from '../shared/service.js';
import { createDynamoStore } from '../shared/store/dynamodb/dynamodb-store.js';
import { startEmbeddedDynamo } from '../shared/store/dynamodb/embedded-dynamodb.js';
import { createDynamoTable, ensureTable } from '../shared/store/dynamodb/table.js';
import { type BuildReport, builtFunctions, FUNCTIONS_DIR } from '../test/support/built-functions.js';
import { restRequest, startLambda } from '../test/support/lambda-process.js';
import { ROOT } from '../test/support/process-group.js';
import { describeMachine } from './measure.js';

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 3);
const BARE = 'bare-hono';
const bareDirectory = join(ROOT, '.build', 'bare-lambda');

interface Subject {
  name: string;
  family: string;
  codeDirectory: string;
  dataset: boolean;
  path: string;
}

/** The bare handler: one Hono route behind Hono's response-streaming Lambda adapter, as the functions stream. */
async function buildBare(): Promise<void> {
  await build({
    stdin: {
      contents: [
        "import { Hono } from 'hono';",
        "import { streamHandle } from 'hono/aws-lambda';",
        'const app = new Hono();',
        "app.get('*', (c) => c.json({ data: { ok: true } }));",
        'export const handler = streamHandle(app);',
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    outfile: join(bareDirectory, 'index.mjs'),
    logLevel: 'warning',
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  await builtFunctions();
  await buildBare();
  const report = JSON.parse(await readFile(join(FUNCTIONS_DIR, 'build-report.json'), 'utf8')) as BuildReport;
  const dynamo = await startEmbeddedDynamo();
  const table = `cold-${randomUUID()}`;
  const dynamoTable = createDynamoTable({ endpoint: dynamo.endpoint, region: 'us-east-1', table });
  await ensureTable(dynamoTable);
  const store = createDynamoStore(dynamoTable, () => dynamo.close());
  const { apiKey } = await provisionAccount(createRepositories(store), {
    name: 'cold start',
    credits: 1_000,
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
  });
  const operations = new Map(
    (catalog as readonly OperationDefinition[]).map((operation) => [operation.id, operation]),
  );
  const subjects: Subject[] = [
    { name: BARE, family: 'bare', codeDirectory: bareDirectory, dataset: false, path: '/' },
    ...deployedFunctions().flatMap((spec): Subject[] => {
      if (spec.name === PAGES_FUNCTION)
        return [
          {
            name: spec.name,
            family: 'pages',
            codeDirectory: join(FUNCTIONS_DIR, spec.name),
            dataset: false,
            path: '/openapi.json',
          },
        ];
      const operation = spec.kind === 'operation' ? operations.get(spec.operations[0] as string) : undefined;
      const path = operation?.variants[0]?.path;
      if (!operation || !path) return [];
      return [
        {
          name: spec.name,
          family: operation.family,
          codeDirectory: join(FUNCTIONS_DIR, spec.name),
          dataset: spec.dataset,
          path,
        },
      ];
    }),
  ];
  const samples = new Map(
    subjects.map((subject) => [subject.name, [] as { initMs: number; firstMs: number }[]]),
  );
  for (let r = 0; r < ROUNDS; r++) {
    for (const subject of r % 2 === 0 ? subjects : [...subjects].reverse()) {
      const lambda = await startLambda(
        subject.name,
        (taskRoot) => ({
          DYNAMODB_ENDPOINT: dynamo.endpoint,
          DYNAMODB_TABLE: table,
          ...(subject.dataset ? { DATASET: join(taskRoot, 'dataset.sqlite') } : {}),
        }),
        subject.codeDirectory,
      );
      try {
        const { ms } = await restRequest(lambda, {
          method: 'GET',
          path: subject.path,
          headers: { Authorization: `Bearer ${apiKey}` },
        });
        samples.get(subject.name)?.push({ initMs: lambda.initMs, firstMs: ms });
      } finally {
        await lambda.stop();
      }
    }
  }
  await store.close();

  const results = subjects.map((subject) => {
    const runs = samples.get(subject.name) ?? [];
    const initMs = median(runs.map((run) => run.initMs));
    const firstMs = median(runs.map((run) => run.firstMs));
    const built = report.functions.find((entry) => entry.name === subject.name);
    return {
      name: subject.name,
      family: subject.family,
      initMs: round(initMs),
      firstEventMs: round(firstMs),
      coldMs: round(initMs + firstMs),
      bundleKiB: built ? round(built.bundleBytes / 1024) : null,
      directoryKiB: built ? round(built.assetBytes / 1024) : null,
    };
  });
  const bare = results.find((result) => result.name === BARE)?.coldMs ?? 1;
  const families = [...new Set(results.map((result) => result.family))];
  console.log('family       functions  cold ms (median, max)  × bare   bundle KiB  directory KiB');
  for (const family of families) {
    const members = results.filter((result) => result.family === family);
    const cold = members.map((member) => member.coldMs);
    console.log(
      `${family.padEnd(12)} ${String(members.length).padStart(9)}  ${String(median(cold)).padStart(8)} ${String(Math.max(...cold)).padStart(8)}     ${String(round(median(cold) / bare, 2)).padStart(5)}  ${String(median(members.map((m) => m.bundleKiB ?? 0))).padStart(10)}  ${String(median(members.map((m) => m.directoryKiB ?? 0))).padStart(13)}`,
    );
  }
  console.log(
    JSON.stringify({
      benchmark: 'cold-start',
      rounds: ROUNDS,
      machine: describeMachine(),
      bareColdMs: bare,
      results,
    }),
  );
}

await main();
