/**
 * Benchmark (`npm run bench:batches`): bulk lookups on `npm start` (issue 28). A 10,000-item batch of
 * profile lookups, run by the server's worker pool, against the same 10,000 lookups sent one by one
 * by a client holding 16 connections, in the same run and on the same server, as items per second.
 *
 * The pool runs with its defaults (BATCH_WORKERS 8, BATCH_ACCOUNT_CONCURRENCY 4: one account may
 * take half of the workers) and again on a second server whose one account may take 16, the
 * client's own concurrency, to separate the fairness bound from the cost of a batch item itself.
 * Prints a table and a one-line JSON summary. Results: docs/benchmarks.md.
 */
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  startServer,
} from '../test/support/processes.js';
import { knownUsernames } from '../test/support/sample-inputs.js';
import { describeMachine, pad, round, runBatch, type Sample } from './measure.js';

const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 10_000);
const CLIENT_CONNECTIONS = 16;
const usernameAt = (index: number) => knownUsernames[index % knownUsernames.length] as string;

interface Setup {
  name: string;
  env: Record<string, string>;
}

const SETUPS: Setup[] = [
  { name: 'pool defaults (8 workers, 4 per account)', env: {} },
  { name: 'pool, 16 per account', env: { BATCH_WORKERS: '16', BATCH_ACCOUNT_CONCURRENCY: '16' } },
];

interface Measured {
  setup: string;
  oneByOnePerSecond: number;
  batchPerSecond: number;
  ratio: number;
}

async function measure(setup: Setup): Promise<Measured> {
  const dataDir = await freshDataDir();
  const account = await cli<{ apiKey: string }>(
    dataDir,
    ...['accounts', 'create', '--name', 'Bench', '--credits', String(ITEMS * 10), '--rate-limit', '1000000'],
  );
  const server = await startServer(dataDir, {
    ...setup.env,
    ACCOUNT_RATE_LIMIT: '1000000',
    BATCH_POLL_MS: '50',
  });
  const headers = { Authorization: `Bearer ${account.apiKey}` };
  try {
    let next = 0;
    const sample: Sample = { latenciesMs: [], elapsedMs: 0, failures: 0 };
    const started = performance.now();
    await runBatch(
      {
        name: 'one by one',
        async send() {
          const username = usernameAt(next++);
          const response = await fetch(
            `${server.url}/v1/profiles/details/by-username?username=${encodeURIComponent(username)}`,
            { headers },
          );
          await response.arrayBuffer();
          return response.status;
        },
      },
      ITEMS,
      CLIENT_CONNECTIONS,
      sample,
    );
    const oneByOneMs = performance.now() - started;
    if (sample.failures > 0) throw new Error(`${sample.failures} single calls failed`);

    const batchMs = await runOneBatch(server, headers);
    const oneByOnePerSecond = round(ITEMS / (oneByOneMs / 1000), 0);
    const batchPerSecond = round(ITEMS / (batchMs / 1000), 0);
    return {
      setup: setup.name,
      oneByOnePerSecond,
      batchPerSecond,
      ratio: round(batchPerSecond / oneByOnePerSecond, 2),
    };
  } finally {
    await server.stop();
  }
}

/** Creates the batch and polls it to completion: milliseconds from the POST to `completed`. */
async function runOneBatch(server: RunningServer, headers: Record<string, string>): Promise<number> {
  const body = Array.from({ length: ITEMS }, (_, index) =>
    JSON.stringify({ username: usernameAt(index) }),
  ).join('\n');
  const started = performance.now();
  const created = await fetch(`${server.url}/v1/batches?operation=profiles.details`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/jsonl' },
    body,
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
  const { id } = ((await created.json()) as { data: { id: string } }).data;
  for (const deadline = Date.now() + 600_000; Date.now() < deadline; ) {
    const state = (await (await fetch(`${server.url}/v1/batches/${id}`, { headers })).json()) as {
      data: { state: string; items: { succeeded: number; failed: number } };
    };
    if (state.data.state === 'completed') {
      if (state.data.items.failed > 0) throw new Error(`${state.data.items.failed} batch items failed`);
      return performance.now() - started;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('The batch did not complete within 10 minutes.');
}

async function main(): Promise<void> {
  const machine = describeMachine();
  const results: Measured[] = [];
  try {
    for (const setup of SETUPS) results.push(await measure(setup));
  } finally {
    await cleanUpProcesses();
  }
  const widths = [44, 22, 18, 14];
  console.log(pad(['setup', `one by one (${CLIENT_CONNECTIONS} conn.)`, 'batch', 'batch / one'], widths));
  for (const result of results)
    console.log(
      pad(
        [
          result.setup,
          `${result.oneByOnePerSecond} items/s`,
          `${result.batchPerSecond} items/s`,
          `×${result.ratio}`,
        ],
        widths,
      ),
    );
  console.log(JSON.stringify({ machine, items: ITEMS, results }));
}

await main();
