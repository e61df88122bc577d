/**
 * Benchmark (`npm run bench`, first part): the service over real HTTP as `npm start` runs it, beside
 * a bare Hono route served the same way, loaded by autocannon at 16 connections from this process.
 * Rows: the bare route; the free disposable check and a billed profile lookup on the SQLite store
 * (the default) and on the DynamoDB adapter over the embedded dynalite. Then one more SQLite run
 * under `--cpu-prof`, summarized by where the server's CPU time went. Prints a table and a one-line
 * JSON summary. Results: docs/benchmarks.md.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BARE_PATH,
  BILLED_PATH,
  FREE_PATH,
  loadWithAutocannon,
  ROOT,
  startBareRoute,
  startService,
} from './http-servers.js';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 3;

interface Row {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

async function load(name: string, url: string, key?: string, seconds = SECONDS): Promise<Row> {
  await loadWithAutocannon({ url, key }, CONNECTIONS, WARMUP_SECONDS);
  const result = await loadWithAutocannon({ url, key }, CONNECTIONS, seconds);
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Busy self time of CPU profiles by where the code lives (a package, Node, this project), in %. */
async function profileSummary(dir: string): Promise<Record<string, number>> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.cpuprofile'));
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as {
      nodes: { id: number; callFrame: { url: string; functionName: string } }[];
      samples: number[];
      timeDeltas: number[];
    };
    const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    profile.samples.forEach((id, index) => {
      const frame = nodes.get(id);
      const place = placeOf(frame?.url ?? '', frame?.functionName ?? '');
      // Idle time is the process waiting (start-up, between loads), not work.
      if (place === '(idle)') return;
      const delta = profile.timeDeltas[index] ?? 0;
      total += delta;
      byPlace.set(place, (byPlace.get(place) ?? 0) + delta);
    });
  }
  return Object.fromEntries(
    [...byPlace.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([place, time]) => [place, Math.round((1000 * time) / total) / 10]),
  );
}

function placeOf(url: string, functionName: string): string {
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (packageName) return packageName;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.includes(ROOT))
    return `project ${url
      .slice(url.indexOf(ROOT) + ROOT.length)
      .split('/')
      .slice(0, 2)
      .join('/')}`;
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(idle)' || functionName === '(program)') return functionName;
  return url === '' ? `native ${functionName || '(anonymous)'}` : url;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const bare = await startBareRoute(ROOT);
  try {
    rows.push(await load('bare Hono route', `${bare.url}${BARE_PATH}`));
  } finally {
    await bare.stop();
  }
  for (const store of ['sqlite', 'dynamodb'] as const) {
    const service = await startService(ROOT, store);
    try {
      rows.push(await load(`free check (${store})`, `${service.url}${FREE_PATH}`, service.key));
      rows.push(await load(`billed lookup (${store})`, `${service.url}${BILLED_PATH}`, service.key));
    } finally {
      await service.stop();
    }
  }

  const profileDir = await mkdtemp(join(tmpdir(), 'bench-profile-'));
  const profiled = await startService(ROOT, 'sqlite', `--cpu-prof --cpu-prof-dir=${profileDir}`);
  try {
    await load('profiled billed lookup', `${profiled.url}${BILLED_PATH}`, profiled.key);
  } finally {
    await profiled.stop();
  }
  const profile = await profileSummary(profileDir);
  await rm(profileDir, { recursive: true, force: true });

  const bareRate = rows[0]?.requestsPerSecond ?? Number.NaN;
  console.log(
    `HTTP load: autocannon, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per row, ` +
      `node ${process.version}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ''}\n`,
  );
  console.log('row                        req/s    p50 ms  p99 ms  vs bare  non-2xx');
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(26)} ${row.requestsPerSecond.toFixed(0).padStart(7)} ${String(row.p50Ms).padStart(8)} ` +
        `${String(row.p99Ms).padStart(7)} ${(row.requestsPerSecond / bareRate).toFixed(3).padStart(8)} ${String(row.non2xx + row.errors).padStart(8)}`,
    );
  }
  console.log('\nServer CPU profile under the billed lookup (SQLite), share of busy self time by place, %:');
  for (const [place, share] of Object.entries(profile))
    console.log(`  ${String(share).padStart(5)}  ${place}`);
  console.log(`\n${JSON.stringify({ rows, profile })}`);
  if (rows.some((row) => row.non2xx + row.errors > 0)) process.exitCode = 1;
}

await main();
