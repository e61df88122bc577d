/**
 * Benchmark (`npm run bench`, last part): the synthesized AWS app served locally (`npm run
 * start:synth`) against `npm start`, both over real HTTP in one run, each on a fresh DATA_DIR. A
 * third server, `npm start` with STORE=dynamodb (the embedded dynalite in the server's process),
 * splits the store's share of the difference from the function-process hop.
 *
 * - Cold: the first request to one function of each family (and /mcp initialize, and the pages
 *   function's /openapi.json) on start:synth and on `npm start`, minus the median of a few requests
 *   right after it; on start:synth that is the function's process start and init, on `npm start`
 *   its own lazy costs.
 * - Warm: a billed lookup (profile details by username), one request at a time, after a warm-up, in
 *   rounds that interleave the servers so machine noise hits all alike; p50, p90, p99 and the ratio
 *   start:synth / `npm start`.
 *
 * Prints tables and a one-line JSON summary. Results: docs/benchmarks.md.
 */

import { disposableCheck } from '../schemas/operations/emails.js';
import { peopleSearch } from '../schemas/operations/search.js';
import { datasetFixtures as fx } from '../shared/sources/dataset/fixtures.js';
import { builtFunctions } from '../test/support/built-functions.js';
import { MCP_INITIALIZE_VERSION, mcpInitialize } from '../test/support/mcp-initialize.js';
import {
  cleanUpProcesses,
  freshDataDir,
  type RunningServer,
  startServer,
} from '../test/support/processes.js';
import { identifierValues, otherParameters } from '../test/support/sample-inputs.js';
import { startWebServer } from '../test/support/web-servers.js';
import { describeMachine, pad, percentile, round, runBatch, type Sample, type Target } from './measure.js';

const REQUESTS = Number(process.env.BENCH_SYNTH_REQUESTS ?? 1_000);
const ROUNDS = 10;
const WARMUP = 20;
/** Requests after the first one whose median is the function's warm time in the cold phase. */
const WARM_AFTER_FIRST = 5;
const NPM_START = 'npm start';
const NPM_START_DYNAMO = 'npm start, STORE=dynamodb';
const SYNTH = 'npm run start:synth';

interface Probe {
  /** The operation (or endpoint) whose function answers. */
  name: string;
  path: string;
  init?: RequestInit;
}

const query = (parameters: Record<string, string>) => new URLSearchParams(parameters).toString();

/** One request per function family: the warm lookup first, then every other family. */
function probes(siteOrigin: string): Probe[] {
  return [
    {
      name: 'profiles.details',
      path: `/v1/profiles/details/by-username?${query({ username: fx.richProfile.username })}`,
    },
    {
      name: 'companies.details',
      path: `/v1/companies/details/by-slug?${query({ slug: fx.richCompany.slug })}`,
    },
    { name: 'posts.details', path: `/v1/posts/details/by-slug?${query({ slug: fx.post.slug })}` },
    {
      name: 'jobs.details',
      path: `/v1/jobs/details/by-url?${query({ url: identifierValues.jobs?.url as string })}`,
    },
    {
      name: 'search.people',
      path: `/v1/search/people?${query(otherParameters(peopleSearch))}`,
    },
    {
      name: 'emails.disposable',
      path: `/v1/emails/disposable?${query(otherParameters(disposableCheck))}`,
    },
    { name: 'websites.text', path: `/v1/websites/text?${query({ url: `${siteOrigin}/page` })}` },
    {
      name: 'mcp initialize',
      path: '/mcp',
      init: mcpInitialize('bench-start-synth', { 'MCP-Protocol-Version': MCP_INITIALIZE_VERSION }),
    },
    { name: 'pages /openapi.json', path: '/openapi.json' },
  ];
}

/** Sends the probe with the demo key and reads the whole answer; its status. */
async function send(server: RunningServer, probe: Probe): Promise<number> {
  const response = await fetch(`${server.url}${probe.path}`, {
    ...probe.init,
    headers: { ...probe.init?.headers, Authorization: `Bearer ${server.demoKey}` },
  });
  await response.arrayBuffer();
  return response.status;
}

async function timed(server: RunningServer, probe: Probe): Promise<{ ms: number; status: number }> {
  const begin = performance.now();
  const status = await send(server, probe);
  return { ms: performance.now() - begin, status };
}

interface ColdStart {
  firstMs: number;
  warmMedianMs: number;
  penaltyMs: number;
  failures: number;
}

/** The first request of a function, and the median of the few right after it. */
async function coldStart(server: RunningServer, probe: Probe): Promise<ColdStart> {
  const first = await timed(server, probe);
  const after: number[] = [];
  let failures = first.status === 200 ? 0 : 1;
  for (let index = 0; index < WARM_AFTER_FIRST; index += 1) {
    const { ms, status } = await timed(server, probe);
    after.push(ms);
    if (status !== 200) failures += 1;
  }
  const warmMedianMs = percentile(
    after.sort((a, b) => a - b),
    0.5,
  );
  return { firstMs: first.ms, warmMedianMs, penaltyMs: first.ms - warmMedianMs, failures };
}

/** The targets one request at a time, interleaved in rounds, their order rotating each round. */
async function interleaved(targets: readonly Target[], perTarget: number): Promise<Map<string, Sample>> {
  const samples = new Map<string, Sample>(
    targets.map((target) => [target.name, { latenciesMs: [], elapsedMs: 0, failures: 0 }]),
  );
  for (let round = 0; round < ROUNDS; round += 1) {
    const count = Math.floor(perTarget / ROUNDS) + (round < perTarget % ROUNDS ? 1 : 0);
    for (let index = 0; index < targets.length; index += 1) {
      const target = targets[(round + index) % targets.length] as Target;
      await runBatch(target, count, 1, samples.get(target.name) as Sample);
    }
  }
  return samples;
}

function latencies(sample: Sample) {
  const sorted = [...sample.latenciesMs].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50Ms: round(percentile(sorted, 0.5), 2),
    p90Ms: round(percentile(sorted, 0.9), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
    meanMs: round(sorted.reduce((sum, value) => sum + value, 0) / sorted.length, 2),
    failures: sample.failures,
  };
}

async function main(): Promise<void> {
  const machineAtStart = describeMachine();
  await builtFunctions();
  const site = await startWebServer({
    routes: { '/page': '<!doctype html><html><body><p>Plain text for the benchmark.</p></body></html>' },
  });
  const settings = {
    DEMO_ACCOUNT_CREDITS: '1000000000',
    // The demo account's rate limit is set from this when the server provisions it, also in start:synth.
    DEFAULT_RATE_LIMIT: '1000000',
    UNSAFE_WEBSITE_ALLOW_HOSTS: site.hostPort,
  };
  const servers = new Map<string, RunningServer>();
  try {
    servers.set(NPM_START, await startServer(await freshDataDir(), settings));
    servers.set(
      NPM_START_DYNAMO,
      await startServer(await freshDataDir(), { ...settings, STORE: 'dynamodb' }),
    );
    // start:synth may build and synthesize before its banner.
    servers.set(
      SYNTH,
      await startServer(await freshDataDir(), settings, 'functions/local/start-synth.ts', 600_000),
    );
    const synth = servers.get(SYNTH) as RunningServer;
    const local = servers.get(NPM_START) as RunningServer;

    const list = probes(site.origin);
    const cold = [];
    for (const probe of list) {
      cold.push({
        function: probe.name,
        synth: await coldStart(synth, probe),
        npmStart: await coldStart(local, probe),
      });
    }

    const lookup = list[0] as Probe;
    const targets: Target[] = [...servers].map(([name, server]) => ({
      name,
      send: () => send(server, lookup),
    }));
    const warmup = new Map<string, Sample>();
    for (const target of targets) {
      const sample = { latenciesMs: [], elapsedMs: 0, failures: 0 };
      await runBatch(target, WARMUP, 1, sample);
      warmup.set(target.name, sample);
    }
    const measured = await interleaved(targets, REQUESTS);

    const warm = Object.fromEntries([...measured].map(([name, sample]) => [name, latencies(sample)]));
    const ratioTo = (baseline: string) => {
      const base = warm[baseline] as ReturnType<typeof latencies>;
      const other = warm[SYNTH] as ReturnType<typeof latencies>;
      return {
        p50: round(other.p50Ms / base.p50Ms, 2),
        p90: round(other.p90Ms / base.p90Ms, 2),
        p99: round(other.p99Ms / base.p99Ms, 2),
      };
    };
    const ratio = ratioTo(NPM_START);
    const ratioToDynamo = ratioTo(NPM_START_DYNAMO);

    console.log(
      `Warm billed lookup (GET /v1/profiles/details/by-username), one request at a time: ${WARMUP} warm-up, ` +
        `then ${REQUESTS} per server in ${ROUNDS} interleaved rounds\n`,
    );
    const widths = [27, 8, 8, 8, 8, 8];
    console.log(pad(['server', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms', 'failures'], widths));
    for (const [name, row] of Object.entries(warm)) {
      console.log(
        pad(
          [name, row.p50Ms, row.p90Ms, row.p99Ms, row.meanMs, row.failures].map((cell) => String(cell)),
          widths,
        ),
      );
    }
    console.log(`\nstart:synth / npm start: p50 ×${ratio.p50}, p90 ×${ratio.p90}, p99 ×${ratio.p99}`);
    console.log(
      `start:synth / npm start (STORE=dynamodb): p50 ×${ratioToDynamo.p50}, p90 ×${ratioToDynamo.p90}, p99 ×${ratioToDynamo.p99}`,
    );

    console.log(
      `\nFirst request per function, ms (penalty = first − median of the ${WARM_AFTER_FIRST} requests after it)\n`,
    );
    const coldWidths = [20, 11, 11, 14, 11, 11, 14];
    console.log(
      pad(
        ['function', 'synth 1st', 'synth warm', 'synth penalty', 'start 1st', 'start warm', 'start penalty'],
        coldWidths,
      ),
    );
    const ms = (value: number) => String(round(value, 1));
    for (const row of cold) {
      console.log(
        pad(
          [
            row.function,
            ms(row.synth.firstMs),
            ms(row.synth.warmMedianMs),
            ms(row.synth.penaltyMs),
            ms(row.npmStart.firstMs),
            ms(row.npmStart.warmMedianMs),
            ms(row.npmStart.penaltyMs),
          ],
          coldWidths,
        ),
      );
    }
    const roundCold = (value: ColdStart) => ({
      firstMs: round(value.firstMs, 1),
      warmMedianMs: round(value.warmMedianMs, 1),
      penaltyMs: round(value.penaltyMs, 1),
      failures: value.failures,
    });
    console.log(
      `\n${JSON.stringify({
        machine: { ...machineAtStart, loadAverageAtEnd: describeMachine().loadAverage },
        warm,
        ratio,
        ratioToDynamo,
        cold: cold.map((row) => ({
          function: row.function,
          synth: roundCold(row.synth),
          npmStart: roundCold(row.npmStart),
        })),
      })}`,
    );
    const failures =
      Object.values(warm).reduce((sum, row) => sum + row.failures, 0) +
      [...warmup.values()].reduce((sum, sample) => sum + sample.failures, 0) +
      cold.reduce((sum, row) => sum + row.synth.failures + row.npmStart.failures, 0);
    if (failures > 0) {
      console.error(`${failures} requests did not answer 200`);
      process.exitCode = 1;
    }
  } finally {
    for (const server of servers.values()) await server.stop();
    await cleanUpProcesses();
    await site.close();
  }
}

await main();
