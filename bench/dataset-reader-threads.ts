/**
 * Benchmark (`npm run bench`): does a broad dataset search hold up unrelated requests in `npm start`?
 * One dataset, three `npm start` servers side by side: DATASET_READER_THREADS=0 (every query on the
 * event loop, as before reader threads), 1, and one per core. For each, in rounds that
 * rotate the order of the servers:
 *
 * - *alone*: the broad search one request at a time, nothing else running (its own latency);
 * - *contended*: BENCH_READER_IN_FLIGHT broad searches always in flight while a cheap unrelated
 *   request (GET /healthz) is sent one after another, BENCH_READER_PROBE_GAP_MS apart: the cheap
 *   request's p50/p99 (how long it is held up), the searches' p50/p99 and their throughput.
 *
 * The dataset is the generated sample plus BENCH_READER_EXTRA_JOBS (default 10,000) cloned engineering
 * jobs, and the broad search GET /api/v2/jobs/search/filters?keywords=engineer, which counts every
 * matching job (test/support/broad-jobs-dataset.ts: tens of ms of SQLite work, as broad searches cost at
 * 100k–1M generated profiles, built in seconds). With BENCH_READER_DATASET=FILE (an imported dataset,
 * e.g. 100k generated profiles) the broad search is GET /v1/search/all?keywords=engineer instead.
 *
 * Then, in this process, what a reader thread would cost a Lambda function (one request per
 * environment): a pool's start-up (creation to first answer, with tsx as under `npm start`, and a bare
 * worker that only opens the database with node:sqlite, the floor of a bundled one), and a cheap lookup
 * (profile details) in-thread and through a one-thread pool, one call at a time.
 *
 * Prints tables and a JSON summary. Results: docs/benchmarks.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { DatabaseDatasetReader } from '../shared/sources/dataset/database/database-reader.js';
import { DatasetSource } from '../shared/sources/dataset/dataset-source.js';
import { datasetFixtures as fx } from '../shared/sources/dataset/fixtures.js';
import { pooledDataSource, ReaderPool } from '../shared/sources/dataset/reader-pool.js';
import { BROAD_JOB_KEYWORD, buildBroadJobsDataset } from '../test/support/broad-jobs-dataset.js';
import {
  cleanUpProcesses,
  freshDataDir,
  type RunningServer,
  startServer,
} from '../test/support/processes.js';
import { describeMachine, pad, percentile, round } from './measure.js';

const EXTRA_JOBS = Number(process.env.BENCH_READER_EXTRA_JOBS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_READER_ROUNDS ?? 3);
const IN_FLIGHT = Number(process.env.BENCH_READER_IN_FLIGHT ?? 4);
const PROBES = Number(process.env.BENCH_READER_PROBES ?? 100);
const PROBE_GAP_MS = Number(process.env.BENCH_READER_PROBE_GAP_MS ?? 10);
const ALONE = Number(process.env.BENCH_READER_ALONE ?? 10);
const CHEAP_CALLS = 2_000;
const STARTS = 5;

interface BroadSearch {
  path: string;
  headers(server: RunningServer): Record<string, string>;
}

const modes = [
  { name: 'in-thread (0)', threads: '0' },
  { name: '1 reader thread', threads: '1' },
  { name: `${availableParallelism()} reader threads`, threads: String(availableParallelism()) },
] as const;

interface Samples {
  alone: number[];
  cheap: number[];
  contended: number[];
  contendedSeconds: number;
  failures: number;
}

async function timed(server: RunningServer, path: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, { headers });
  await response.arrayBuffer();
  return { ok: response.status === 200, ms: performance.now() - started };
}

async function measureRound(server: RunningServer, search: BroadSearch, into: Samples): Promise<void> {
  const broad = () => timed(server, search.path, search.headers(server));
  for (let i = 0; i < ALONE; i += 1) {
    const { ok, ms } = await broad();
    into.alone.push(ms);
    if (!ok) into.failures += 1;
  }
  let searching = true;
  const started = performance.now();
  const load = Array.from({ length: IN_FLIGHT }, async () => {
    while (searching) {
      const { ok, ms } = await broad();
      into.contended.push(ms);
      if (!ok) into.failures += 1;
    }
  });
  await sleep(100);
  for (let i = 0; i < Math.ceil(PROBES / ROUNDS); i += 1) {
    const { ok, ms } = await timed(server, '/healthz');
    into.cheap.push(ms);
    if (!ok) into.failures += 1;
    await sleep(PROBE_GAP_MS);
  }
  searching = false;
  await Promise.all(load);
  into.contendedSeconds += (performance.now() - started) / 1000;
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 0.5), 1), p99: round(percentile(sorted, 0.99), 1) };
};

/** A pool's start-up, from creation to the first answer. */
async function poolStartUp(file: string): Promise<number> {
  const started = performance.now();
  const pool = new ReaderPool(file, { threads: 1 });
  await pooledDataSource(pool).profileDetails(
    { username: fx.richProfile.username },
    new AbortController().signal,
  );
  const ms = performance.now() - started;
  await pool.close();
  return ms;
}

/** A worker without tsx that opens the database and reads one row: the floor of a bundled reader thread. */
async function bareWorkerStartUp(file: string): Promise<number> {
  const started = performance.now();
  const worker = new Worker(
    `const { DatabaseSync } = require('node:sqlite');
     const db = new DatabaseSync(require('node:worker_threads').workerData, { readOnly: true });
     require('node:worker_threads').parentPort.postMessage(db.prepare('SELECT count(*) AS n FROM meta').get().n);`,
    { eval: true, workerData: file, stderr: true },
  );
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const ms = performance.now() - started;
  await worker.terminate();
  return ms;
}

async function cheapLookups(file: string) {
  const signal = new AbortController().signal;
  const rich = { username: fx.richProfile.username };
  const inThread = new DatasetSource(new DatabaseDatasetReader(file));
  const pool = new ReaderPool(file, { threads: 1 });
  const pooled = pooledDataSource(pool);
  const times = { inThread: [] as number[], pooled: [] as number[] };
  for (let i = 0; i < CHEAP_CALLS; i += 1) {
    for (const [name, source] of [
      ['inThread', inThread],
      ['pooled', pooled],
    ] as const) {
      const started = performance.now();
      await source.profileDetails(rich, signal);
      times[name].push(performance.now() - started);
    }
  }
  await pool.close();
  return { inThread: summary(times.inThread), pooled: summary(times.pooled) };
}

async function main(): Promise<void> {
  const machineAtStart = describeMachine();
  const folder = await mkdtemp(join(tmpdir(), 'bench-reader-'));
  let file = process.env.BENCH_READER_DATASET;
  let search: BroadSearch;
  if (file) {
    search = {
      path: '/v1/search/all?keywords=engineer',
      headers: (server) => ({ authorization: `Bearer ${server.demoKey}` }),
    };
  } else {
    file = join(folder, 'broad-jobs.sqlite');
    buildBroadJobsDataset(file, EXTRA_JOBS);
    search = {
      path: `/api/v2/jobs/search/filters?keywords=${BROAD_JOB_KEYWORD}`,
      headers: (server) => ({ 'x-api-key': server.demoKey }),
    };
  }
  const servers: RunningServer[] = [];
  try {
    for (const mode of modes) {
      servers.push(
        await startServer(await freshDataDir(), {
          DATASET: file,
          DATASET_READER_THREADS: mode.threads,
          DEMO_ACCOUNT_CREDITS: '1000000000',
          DEFAULT_RATE_LIMIT: '1000000',
        }),
      );
    }
    const samples: Samples[] = modes.map(() => ({
      alone: [],
      cheap: [],
      contended: [],
      contendedSeconds: 0,
      failures: 0,
    }));
    // Warm-up: every reader thread loaded and the file in the page cache.
    for (const server of servers)
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, () => timed(server, search.path, search.headers(server))),
      );
    for (let r = 0; r < ROUNDS; r += 1) {
      for (let i = 0; i < modes.length; i += 1) {
        const index = (r + i) % modes.length;
        await measureRound(servers[index] as RunningServer, search, samples[index] as Samples);
      }
    }
    const results = modes.map((mode, index) => {
      const sample = samples[index] as Samples;
      return {
        mode: mode.name,
        cheap: summary(sample.cheap),
        searchAlone: summary(sample.alone),
        searchContended: summary(sample.contended),
        searchesPerSecond: round(sample.contended.length / sample.contendedSeconds, 1),
        failures: sample.failures,
      };
    });

    const starts = { pool: [] as number[], bareWorker: [] as number[] };
    for (let i = 0; i < STARTS; i += 1) {
      starts.pool.push(await poolStartUp(file));
      starts.bareWorker.push(await bareWorkerStartUp(file));
    }
    const lambda = {
      poolStartUpMs: summary(starts.pool),
      bareWorkerStartUpMs: summary(starts.bareWorker),
      profileDetailsMs: await cheapLookups(file),
    };

    console.log(
      `Broad search ${search.path}, ${IN_FLIGHT} in flight; cheap request GET /healthz one at a time ` +
        `${PROBE_GAP_MS} ms apart; ${ROUNDS} rounds (ms)`,
    );
    const widths = [18, 16, 16, 16, 10, 9];
    console.log(
      pad(['mode', 'healthz p50/p99', 'alone p50/p99', 'loaded p50/p99', 'search/s', 'failures'], widths),
    );
    for (const result of results) {
      console.log(
        pad(
          [
            result.mode,
            `${result.cheap.p50} / ${result.cheap.p99}`,
            `${result.searchAlone.p50} / ${result.searchAlone.p99}`,
            `${result.searchContended.p50} / ${result.searchContended.p99}`,
            String(result.searchesPerSecond),
            String(result.failures),
          ],
          widths,
        ),
      );
    }
    console.log(
      `Reader thread start-up p50: ${lambda.poolStartUpMs.p50} ms with tsx, ${lambda.bareWorkerStartUpMs.p50} ms bare; ` +
        `profile details p50 ${lambda.profileDetailsMs.inThread.p50} ms in-thread, ${lambda.profileDetailsMs.pooled.p50} ms through a thread`,
    );
    console.log(
      JSON.stringify({
        benchmark: 'dataset-reader-threads',
        machineAtStart,
        machineAtEnd: describeMachine(),
        dataset: process.env.BENCH_READER_DATASET ?? `sample + ${EXTRA_JOBS} jobs`,
        results,
        lambda,
      }),
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await cleanUpProcesses();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
