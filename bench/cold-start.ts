/**
 * Benchmark (`npm run bench`, last part): the cold start of every bundle `npm run build` makes, against
 * four baselines bundled the same way (esbuild, ESM, Node 24), in one run: a bare Hono handler, one
 * that also reads an item with the AWS SDK's DynamoDB client, one that also validates its query with
 * zod, and one that reads the item with the store's own client. Each start is a fresh Node process on a copy of
 * the function's directory alone (test/support's Lambda stand-in): *init* is the import of index.mjs,
 * *first event* the first event of its kind — for an operation an authenticated request without its
 * parameters (400 after the key check in DynamoDB, on an in-process dynalite), for pages GET
 * /openapi.json, for /mcp an initialize, for a tool group a ToolCall without arguments, for reconcile
 * a scheduled event, for batches a batch of two lookups created (its items sent to a loopback SQS
 * stand-in), for the baselines GET /. Every answer is streamed as on AWS. Rounds interleave
 * the functions so machine noise hits all alike; the median of the rounds is kept. Node's own boot is
 * left out (the same for every bundle). Prints medians per family, ratios to both baselines and
 * bundle sizes (from the build report), issue 29's two `ROW ` lines (data functions, and the worst of
 * /mcp, tool groups, pages and websites, each against Hono + DynamoDB), then a JSON summary.
 * With BENCH_COLD_INSTRUCTIONS=1 (below) the same starts are counted in instructions instead.
 * Results: docs/benchmarks.md.
 */
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { LambdaInstanceOptions } from '../local-aws/lambda-instance.js';
import { catalog, v2Routes } from '../schemas/catalog.js';
import {
  batchGroupMembers,
  batchQueueUrlVariable,
  DATA_FAMILIES,
  deployedFunctions,
  toolGroupFunctionVariable,
  toolGroups,
} from '../schemas/functions.js';
import type { Family, OperationDefinition } from '../schemas/operation-definition.js';
import { lambdaBundleOptions } from '../scripts/lambda-bundle-options.js';
import { provisionAccount } from '../shared/accounts/provisioning.js';
import { Authenticator } from '../shared/auth/authenticator.js';
import { systemClock } from '../shared/clock.js';
import { createRepositories } from '../shared/service.js';
import { createDynamoStore } from '../shared/store/dynamodb/dynamodb-store.js';
import { startEmbeddedDynamo } from '../shared/store/dynamodb/embedded-dynamodb.js';
import { createDynamoTable, ensureTable } from '../shared/store/dynamodb/table.js';
import { type BuildReport, builtFunctions, FUNCTIONS_DIR } from '../test/support/built-functions.js';
import { type LambdaProcess, restRequest, startLambda } from '../test/support/lambda-process.js';
import { mcpInitialize } from '../test/support/mcp-initialize.js';
import { ROOT } from '../test/support/process-group.js';
import { startSqsEndpoint } from '../test/support/sqs-endpoint.js';
import { describeMachine, printRow } from './measure.js';

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 3);
/** BENCH_COLD_FUNCTIONS=pages,mcp,…: only these functions (and the baselines). */
const only = process.env.BENCH_COLD_FUNCTIONS
  ? new Set(process.env.BENCH_COLD_FUNCTIONS.split(','))
  : undefined;
/**
 * BENCH_COLD_COMPARE=DIR: another checkout's dist/functions (after its `npm run build`); each function
 * is also started from there, in the same rounds, and reported as `<name>-compared` (family `<family> (compared)`).
 */
const compareDirectory = process.env.BENCH_COLD_COMPARE;
/** BENCH_COLD_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=DIR': Node options of every started function, to profile a start. */
const nodeOptions = process.env.BENCH_COLD_NODE_OPTIONS;
/**
 * BENCH_COLD_INSTRUCTIONS=1: every start runs under valgrind's callgrind, V8 single-threaded (Node's
 * `--predictable`: no compiler or GC threads deciding the order of work), and the table and the rows
 * give the instructions each start executed (init, the first event, exit) instead of milliseconds.
 * The same build counts the same to ~0.01 % whatever else the machine is doing, where its times move
 * by a quarter, so one round shows a change's effect (with BENCH_COLD_COMPARE); each start takes
 * ~25 s. Needs valgrind (Debian's package).
 */
const countInstructions = process.env.BENCH_COLD_INSTRUCTIONS === '1';
const BARE = 'bare-hono';
const BARE_DYNAMO = 'hono-dynamodb';
const BARE_DYNAMO_ZOD = 'hono-dynamodb-zod';
const BARE_STORE_CLIENT = 'hono-store-client';
const baselinesDirectory = join(ROOT, '.build', 'cold-start-baselines');
const callgrindDirectory = join(ROOT, '.build', 'cold-start-callgrind');
/** A valgrinded process ends slower than the stand-in's usual grace allows; its count is written at exit. */
const CALLGRIND_STOP_GRACE_MS = 60_000;

/** The program the stand-in runtime starts Node with when counting: valgrind on this Node. */
async function callgrindLauncher(): Promise<NonNullable<LambdaInstanceOptions['launcher']>> {
  await rm(callgrindDirectory, { recursive: true, force: true });
  await mkdir(callgrindDirectory, { recursive: true });
  const execPath = join(callgrindDirectory, 'node');
  await writeFile(
    execPath,
    `#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=${callgrindDirectory}/callgrind.%p -q ${process.execPath} --predictable "$@"\n`,
  );
  await chmod(execPath, 0o755);
  return { execPath, stopGraceMs: CALLGRIND_STOP_GRACE_MS };
}

/** The instructions a counted start executed, in millions, from callgrind's file of that process. */
async function countedInstructions(pid: number): Promise<number> {
  const text = await readFile(join(callgrindDirectory, `callgrind.${pid}`), 'utf8');
  const total = /^(?:summary|totals):\s+(\d+)/m.exec(text)?.[1];
  if (total === undefined) throw new Error(`callgrind wrote no total for process ${pid}`);
  return Number(total) / 1e6;
}

interface Subject {
  name: string;
  family: string;
  codeDirectory: string;
  dataset: boolean;
  env?: Record<string, string>;
  /** Sends the first event; answers how long the function took with it. */
  firstEvent(lambda: LambdaProcess): Promise<number>;
}

/**
 * The baselines, bundled as the functions are: a bare Hono route, the same route reading one item
 * with the DynamoDB client (the floor of any function that checks a key), and that one also
 * validating its query with zod, imported as the service imports it (the floor of any function that
 * validates with the library this service validates with: zod's own load is most of the
 * difference), all behind Hono's response-streaming Lambda adapter, as the functions stream. The
 * rows compare against the route with the AWS SDK's client, the issue's floor; the fourth baseline
 * reads the same item with the store's own client (dynamo-client.ts), the floor of what the
 * functions load, so that what a function adds beyond its client is shown apart.
 */
const dynamoClient = [
  "import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';",
  'const client = new DynamoDBClient({ region: process.env.AWS_REGION, endpoint: process.env.DYNAMODB_ENDPOINT });',
  "const getItem = () => client.send(new GetItemCommand({ TableName: process.env.DYNAMODB_TABLE, Key: { pk: { S: 'KEY#none' }, sk: { S: 'KEY' } } }));",
];
const baselines = {
  [BARE]: ["app.get('*', (c) => c.json({ data: { ok: true } }));"],
  [BARE_DYNAMO]: [...dynamoClient, "app.get('*', async (c) => c.json({ data: await getItem() }));"],
  [BARE_DYNAMO_ZOD]: [
    ...dynamoClient,
    "import * as z from 'zod';",
    'const query = z.object({ username: z.string().min(1).max(100).optional() });',
    "app.get('*', async (c) => c.json({ data: await getItem(), query: query.safeParse(c.req.query()).success }));",
  ],
  [BARE_STORE_CLIENT]: [
    "import { DynamoClient } from './shared/store/dynamodb/dynamo-client.ts';",
    "const client = new DynamoClient({ region: process.env.AWS_REGION ?? 'us-east-1', endpoint: process.env.DYNAMODB_ENDPOINT, credentials: 'environment', maxAttempts: 2 });",
    "app.get('*', async (c) => c.json({ data: await client.get({ TableName: process.env.DYNAMODB_TABLE, Key: { pk: 'KEY#none', sk: 'KEY' } }) }));",
  ],
};

async function buildBaselines(): Promise<void> {
  for (const [name, lines] of Object.entries(baselines)) {
    await build({
      stdin: {
        contents: [
          "import { Hono } from 'hono';",
          "import { streamHandle } from 'hono/aws-lambda';",
          'const app = new Hono();',
          ...lines,
          'export const handler = streamHandle(app);',
        ].join('\n'),
        resolveDir: ROOT,
        loader: 'ts',
      },
      ...lambdaBundleOptions,
      outfile: join(baselinesDirectory, name, 'index.mjs'),
      logLevel: 'warning',
    });
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  await builtFunctions();
  await buildBaselines();
  const report = JSON.parse(await readFile(join(FUNCTIONS_DIR, 'build-report.json'), 'utf8')) as BuildReport;
  const dynamo = await startEmbeddedDynamo();
  const table = `cold-${randomUUID()}`;
  const dynamoTable = createDynamoTable({ endpoint: dynamo.endpoint, region: 'us-east-1', table });
  await ensureTable(dynamoTable);
  const store = createDynamoStore(dynamoTable, () => dynamo.close());
  const repositories = createRepositories(store);
  const { apiKey } = await provisionAccount(repositories, {
    name: 'cold start',
    credits: 1_000,
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
  });
  const operations = new Map(
    (catalog as readonly OperationDefinition[]).map((operation) => [operation.id, operation]),
  );
  const principal = await new Authenticator(
    repositories.keys,
    repositories.accounts,
    systemClock,
    0,
  ).authenticateBearer(`Bearer ${apiKey}`);
  const withKey = { Authorization: `Bearer ${apiKey}` };
  // The functions that send batch items get every queue's URL, as infra sets them, on a loopback SQS
  // stand-in that takes every message: the batches function's first event sends a batch's items.
  const sqs = await startSqsEndpoint();
  const batchQueueUrls = {
    SQS_ENDPOINT: sqs.url,
    ...Object.fromEntries(
      [...batchGroupMembers().keys()].map((group) => [
        batchQueueUrlVariable(group),
        `${sqs.url}/123456789012/batch-${group}`,
      ]),
    ),
  };
  const get =
    (path: string, headers: Record<string, string> = withKey) =>
    async (lambda: LambdaProcess) =>
      (await restRequest(lambda, { method: 'GET', path, headers })).ms;
  const subjects: Subject[] = [
    ...Object.keys(baselines).map((name) => ({
      name,
      family: name,
      codeDirectory: join(baselinesDirectory, name),
      dataset: false,
      firstEvent: get('/'),
    })),
    ...deployedFunctions()
      .filter((spec) => only === undefined || only.has(spec.name))
      .map((spec): Subject => {
        const subject = {
          name: spec.name,
          codeDirectory: join(FUNCTIONS_DIR, spec.name),
          dataset: spec.dataset,
        };
        const operation = operations.get(spec.operations[0] as string);
        switch (spec.kind) {
          case 'pages':
            return { ...subject, family: 'pages', firstEvent: get('/openapi.json') };
          case 'mcp':
            return {
              ...subject,
              family: 'mcp',
              // Its group functions' names, as infra sets them (initialize calls none).
              env: Object.fromEntries(
                [...toolGroups().keys()].map((group) => [
                  toolGroupFunctionVariable(group),
                  `lookup-${group}`,
                ]),
              ),
              firstEvent: async (lambda) =>
                (await restRequest(lambda, { path: '/mcp', ...mcpInitialize('bench', withKey) })).ms,
            };
          case 'tool-group':
            return {
              ...subject,
              family: 'tool groups',
              // A call without arguments: the tool's validation answers after the group's init.
              firstEvent: async (lambda) =>
                (
                  await lambda.invokeStreaming({
                    tool: operation?.mcpTool,
                    arguments: {},
                    principal: JSON.parse(JSON.stringify(principal)),
                    requestId: `req_cold_start_${spec.name.replace(/-/g, '_')}`,
                  })
                ).ms,
            };
          case 'batch-consumer':
            return {
              ...subject,
              family: 'batch consumers',
              env: batchQueueUrls,
              // An SQS delivery without records: the consumer's init, then an empty answer.
              firstEvent: async (lambda) => (await lambda.invoke({ Records: [] })).ms,
            };
          case 'batches':
            return {
              ...subject,
              family: 'batches',
              env: batchQueueUrls,
              // A batch of two lookups created: its items checked, stored and sent to their queue.
              firstEvent: async (lambda) =>
                (
                  await restRequest(lambda, {
                    method: 'POST',
                    path: '/v1/batches',
                    query: [['operation', 'profiles.details']],
                    headers: { ...withKey, 'Content-Type': 'application/json' },
                    body: JSON.stringify([{ username: 'amelia-hartmann' }, { username: 'someone-else' }]),
                  })
                ).ms,
            };
          case 'console':
            return { ...subject, family: 'console', firstEvent: get('/console/sign-in', {}) };
          case 'oauth':
            return {
              ...subject,
              family: 'oauth',
              firstEvent: get('/.well-known/oauth-authorization-server', {}),
            };
          case 'reconcile':
            return {
              ...subject,
              family: 'reconcile',
              env: batchQueueUrls,
              firstEvent: async (lambda) =>
                (await lambda.invoke({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} }))
                  .ms,
            };
          default: {
            // An operation function.
            const v1 = operation?.variants[0]?.path;
            const v2 = v2Routes
              .find((route) => route.operation.id === operation?.id)
              ?.path.replace(/\{[^}]+\}/g, 'x');
            return {
              ...subject,
              family: operation?.family ?? 'unknown',
              // An authenticated request without its parameters: a 400 after the key check.
              firstEvent: v1 ? get(v1) : get(v2 as string, { 'X-API-Key': apiKey }),
            };
          }
        }
      }),
  ];
  // The same functions as another checkout built them, started in the same rounds: before and after.
  if (compareDirectory) {
    for (const subject of subjects.filter((candidate) => !Object.hasOwn(baselines, candidate.name))) {
      subjects.push({
        ...subject,
        name: `${subject.name}-compared`,
        family: `${subject.family} (compared)`,
        codeDirectory: join(compareDirectory, subject.name),
      });
    }
  }
  const samples = new Map(
    subjects.map((subject) => [
      subject.name,
      [] as { initMs: number; firstMs: number; instructionsM: number }[],
    ]),
  );
  const launcher = countInstructions ? await callgrindLauncher() : undefined;
  for (let r = 0; r < ROUNDS; r++) {
    for (const subject of r % 2 === 0 ? subjects : [...subjects].reverse()) {
      const lambda = await startLambda(
        subject.name,
        (taskRoot) => ({
          DYNAMODB_ENDPOINT: dynamo.endpoint,
          DYNAMODB_TABLE: table,
          ...(subject.dataset ? { DATASET: join(taskRoot, 'dataset.sqlite') } : {}),
          ...subject.env,
          ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
        }),
        subject.codeDirectory,
        launcher,
      );
      let firstMs: number;
      try {
        firstMs = await subject.firstEvent(lambda);
      } finally {
        await lambda.stop();
      }
      const instructionsM = launcher ? await countedInstructions(lambda.pid) : 0;
      samples.get(subject.name)?.push({ initMs: lambda.initMs, firstMs, instructionsM });
    }
  }
  await store.close();
  await sqs.close();

  const results = subjects.map((subject) => {
    const runs = samples.get(subject.name) ?? [];
    const initMs = median(runs.map((run) => run.initMs));
    const firstMs = median(runs.map((run) => run.firstMs));
    const instructionsM = median(runs.map((run) => run.instructionsM));
    const built = report.functions.find((entry) => entry.name === subject.name);
    return {
      name: subject.name,
      family: subject.family,
      initMs: round(initMs),
      firstEventMs: round(firstMs),
      coldMs: round(initMs + firstMs),
      ...(launcher ? { instructionsM: round(instructionsM) } : {}),
      bundleKiB: built ? round(built.bundleBytes / 1024) : null,
      directoryKiB: built ? round(built.assetBytes / 1024) : null,
    };
  });
  // What the table and the rows compare: milliseconds, or instructions when counting them.
  const unit = launcher ? 'M instr.' : 'ms';
  const cost = (result: (typeof results)[number]) => (launcher ? (result.instructionsM ?? 0) : result.coldMs);
  const costOf = (name: string) => {
    const result = results.find((candidate) => candidate.name === name);
    return result ? cost(result) : 1;
  };
  const coldMsOf = (name: string) => results.find((result) => result.name === name)?.coldMs;
  const bare = costOf(BARE);
  const bareDynamo = costOf(BARE_DYNAMO);
  const bareStoreClient = costOf(BARE_STORE_CLIENT);
  const families = [...new Set(results.map((result) => result.family))];
  console.log(
    `family         functions  cold ${unit} (median, max)  × bare  × hono+dynamodb  × hono+store client  bundle KiB  directory KiB`,
  );
  for (const family of families) {
    const members = results.filter((result) => result.family === family);
    const cold = members.map(cost);
    console.log(
      `${family.padEnd(14)} ${String(members.length).padStart(9)}  ${String(median(cold)).padStart(8)} ${String(Math.max(...cold)).padStart(8)}     ${String(round(median(cold) / bare, 2)).padStart(5)}  ${String(round(median(cold) / bareDynamo, 2)).padStart(14)}  ${String(round(median(cold) / bareStoreClient, 2)).padStart(18)}  ${String(median(members.map((m) => m.bundleKiB ?? 0))).padStart(10)}  ${String(median(members.map((m) => m.directoryKiB ?? 0))).padStart(13)}`,
    );
  }
  // Issue 29's two cold-start rows, against the floor of any function that checks a key.
  const familyMedian = (family: string) =>
    median(results.filter((result) => result.family === family).map(cost));
  const dataCold = median(
    results.filter((result) => DATA_FAMILIES.includes(result.family as Family)).map(cost),
  );
  const others = ['mcp', 'tool groups', 'pages', 'websites'].map((family) => ({
    family,
    cold: familyMedian(family),
  }));
  const worst = others.reduce((a, b) => (b.cold > a.cold ? b : a));
  const counted = launcher ? ', in instructions' : '';
  const row = (name: string, cold: number) =>
    printRow(`${name}${counted}`, `${cold} ${unit}`, `${bareDynamo} ${unit}`, cold / bareDynamo);
  row('cold start, data function (median of the data families) / Hono + DynamoDB GetItem', dataCold);
  row(
    `cold start, worst of /mcp, tool groups, pages, websites (${others.map((o) => `${o.family} ${o.cold} ${unit}`).join(', ')}: ${worst.family}) / Hono + DynamoDB GetItem`,
    worst.cold,
  );
  console.log(
    JSON.stringify({
      benchmark: 'cold-start',
      rounds: ROUNDS,
      machine: describeMachine(),
      // Times even when counting (they are valgrind's then); the results carry the counts.
      bareColdMs: coldMsOf(BARE),
      honoDynamoColdMs: coldMsOf(BARE_DYNAMO),
      honoDynamoZodColdMs: coldMsOf(BARE_DYNAMO_ZOD),
      honoStoreClientColdMs: coldMsOf(BARE_STORE_CLIENT),
      results,
    }),
  );
}

await main();
