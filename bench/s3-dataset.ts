/**
 * Benchmark (`npm run bench`): the cold start of one data function (`profiles-details`, its bundle
 * started as bench/cold-start.ts starts them) with its dataset database bundled in the task root vs
 * copied at init from S3 (DATASET=s3://..., a loopback GetObject endpoint, test/support/s3-endpoint.ts),
 * for the generated sample and for a larger imported database (BENCH_S3_PROFILES profiles, default
 * 20000, built with `npm run data -- generate/import`; BENCH_S3_DATABASE=FILE reuses one). *Init* is
 * the import of index.mjs (the copy happens there), *first event* one lookup of a profile the
 * database has; rounds interleave the variants and the median is kept. Prints the extra cold-start
 * time of S3 over bundled and the rate it implies (MB/s of the object), then a JSON summary.
 * Loopback is not S3: see docs/benchmarks.md for what differs on AWS.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { BUNDLED_DATASET_FILE } from '../schemas/functions.js';
import { provisionAccount } from '../shared/accounts/provisioning.js';
import { createRepositories } from '../shared/service.js';
import { createDynamoStore } from '../shared/store/dynamodb/dynamodb-store.js';
import { startEmbeddedDynamo } from '../shared/store/dynamodb/embedded-dynamodb.js';
import { createDynamoTable, ensureTable } from '../shared/store/dynamodb/table.js';
import { DatabaseSync } from '../shared/store/sqlite/node-sqlite.js';
import { builtFunctions } from '../test/support/built-functions.js';
import { restRequest, startLambda } from '../test/support/lambda-process.js';
import { ROOT } from '../test/support/process-group.js';
import { startS3 } from '../test/support/s3-endpoint.js';
import { describeMachine } from './measure.js';

const FUNCTION = 'profiles-details';
const ROUNDS = Number(process.env.BENCH_S3_ROUNDS ?? 3);
const PROFILES = Number(process.env.BENCH_S3_PROFILES ?? 20_000);
const MB = 1e6;

type Delivery = 'bundled' | 's3';

interface Database {
  label: string;
  file: string;
  bytes: number;
  username: string;
  uri: string;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A username the database has (its first profile). */
function firstUsername(file: string): string {
  const db = new DatabaseSync(file, { readOnly: true });
  const row = db.prepare('SELECT body FROM people ORDER BY seq LIMIT 1').get() as { body: string };
  db.close();
  return JSON.parse(row.body).username as string;
}

/** An imported database of PROFILES profiles, built with the project's data CLI. */
function importedDatabase(folder: string): string {
  const dataset = join(folder, 'dataset');
  const file = join(folder, 'imported.sqlite');
  const data = (args: string[]) =>
    execFileSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['functions/cli/data.ts', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  data(['generate', '--profiles', String(PROFILES), '--out', dataset]);
  data(['import', dataset, '--out', file]);
  return file;
}

async function main(): Promise<void> {
  const bundle = join(await builtFunctions(), FUNCTION);
  const work = await mkdtemp(join(tmpdir(), 'bench-s3-dataset-'));
  try {
    const given = process.env.BENCH_S3_DATABASE;
    const databases: Database[] = [];
    for (const [label, file] of [
      ['sample', join(bundle, BUNDLED_DATASET_FILE)],
      given
        ? [`imported (${basename(given)})`, given]
        : [`imported (${PROFILES.toLocaleString('en')} profiles)`, importedDatabase(work)],
    ] as const) {
      databases.push({
        label,
        file,
        bytes: (await stat(file)).size,
        username: firstUsername(file),
        uri: `s3://bench-datasets/${databases.length}/dataset.sqlite`,
      });
    }
    const s3 = await startS3(new Map(databases.map((database) => [database.uri, { file: database.file }])));
    const dynamo = await startEmbeddedDynamo();
    const table = `s3-dataset-${randomUUID()}`;
    const dynamoTable = createDynamoTable({ endpoint: dynamo.endpoint, region: 'us-east-1', table });
    await ensureTable(dynamoTable);
    const store = createDynamoStore(dynamoTable, () => dynamo.close());
    const { apiKey } = await provisionAccount(createRepositories(store), {
      name: 'bench s3 dataset',
      credits: 1_000_000,
      rateLimit: { limit: 1_000_000, windowSeconds: 60 },
    });

    // Code directories: without a database (S3), and with each database as the bundled file.
    const withoutDatabase = join(work, 'code-s3');
    await cp(bundle, withoutDatabase, {
      recursive: true,
      filter: (source) => !source.endsWith(BUNDLED_DATASET_FILE),
    });
    const bundledCode = new Map<Database, string>();
    for (const [index, database] of databases.entries()) {
      const directory = join(work, `code-bundled-${index}`);
      await cp(withoutDatabase, directory, { recursive: true });
      await copyFile(database.file, join(directory, BUNDLED_DATASET_FILE));
      bundledCode.set(database, directory);
    }

    const variants = databases.flatMap((database) =>
      (['bundled', 's3'] as const).map((delivery) => ({ database, delivery })),
    );
    const keyOf = (database: Database, delivery: Delivery) => `${database.uri} ${delivery}`;
    const samples = new Map<string, { initMs: number; firstMs: number }[]>(
      variants.map((variant) => [keyOf(variant.database, variant.delivery), []]),
    );
    for (let r = 0; r < ROUNDS; r++) {
      for (const variant of r % 2 === 0 ? variants : [...variants].reverse()) {
        const { database, delivery } = variant;
        const lambda = await startLambda(
          FUNCTION,
          (taskRoot) => ({
            DYNAMODB_ENDPOINT: dynamo.endpoint,
            DYNAMODB_TABLE: table,
            ...(delivery === 's3'
              ? { DATASET: database.uri, AWS_ENDPOINT_URL_S3: s3.url }
              : { DATASET: join(taskRoot, BUNDLED_DATASET_FILE) }),
          }),
          delivery === 's3' ? withoutDatabase : (bundledCode.get(database) as string),
        );
        try {
          const { status, ms } = await restRequest(lambda, {
            method: 'GET',
            path: '/v1/profiles/details/by-username',
            query: [['username', database.username]],
            headers: { Authorization: `Bearer ${apiKey}` },
          });
          if (status !== 200) throw new Error(`${database.label} ${delivery}: ${status}`);
          samples.get(keyOf(database, delivery))?.push({ initMs: lambda.initMs, firstMs: ms });
        } finally {
          await lambda.stop();
        }
      }
    }
    await store.close();
    await s3.close();

    const results = databases.map((database) => {
      const of = (delivery: Delivery) => {
        const runs = samples.get(keyOf(database, delivery)) ?? [];
        const initMs = median(runs.map((run) => run.initMs));
        const firstEventMs = median(runs.map((run) => run.firstMs));
        return {
          initMs: round(initMs),
          firstEventMs: round(firstEventMs),
          coldMs: round(initMs + firstEventMs),
        };
      };
      const bundled = of('bundled');
      const s3Delivered = of('s3');
      const extraMs = round(s3Delivered.coldMs - bundled.coldMs);
      return {
        database: database.label,
        megabytes: round(database.bytes / MB),
        bundled,
        s3: s3Delivered,
        extraMs,
        megabytesPerSecond: extraMs > 0 ? round(database.bytes / MB / (extraMs / 1000), 0) : null,
      };
    });
    console.log(
      'database                         MB   bundled cold ms   S3 cold ms (init + first event)   extra ms   MB/s',
    );
    for (const result of results) {
      console.log(
        `${result.database.padEnd(28)} ${String(result.megabytes).padStart(7)}   ${String(result.bundled.coldMs).padStart(15)}   ${`${result.s3.coldMs} (${result.s3.initMs} + ${result.s3.firstEventMs})`.padStart(31)}   ${String(result.extraMs).padStart(8)}   ${String(result.megabytesPerSecond ?? '—').padStart(4)}`,
      );
    }
    console.log(
      JSON.stringify({ benchmark: 's3-dataset', rounds: ROUNDS, machine: describeMachine(), results }),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
