/**
 * Benchmark (`npm run bench`, first part): the service over real HTTP as `npm start` runs it, beside
 * a bare Hono route served the same way, loaded by autocannon at 16 connections from this process.
 * Targets: the bare route; the bare route plus one ledger row committed by the store's group commit
 * before it answers (bench/durable-route-server.ts: what durability alone costs a metered call); the
 * free disposable check and a billed profile lookup on the SQLite store (the default) and on the
 * DynamoDB adapter over the embedded dynalite. Every target runs in each of several rounds, their
 * order rotating, so a machine shared with other work disturbs them alike; the figures to compare
 * are ratios to the bare route of the same run. Then one more SQLite server under
 * `--cpu-prof`, loaded with each path in turn, summarized by where its main thread's time went
 * during each load. Prints a table, the issue-29 `ROW ` lines (each `npm start` ratio followed by
 * the same ratio within each round: its median and range) and a one-line JSON summary.
 * Results: docs/benchmarks.md.
 *
 * Settings (environment): BENCH_ROUNDS (4), BENCH_SECONDS per target and round (3), BENCH_STORES
 * (`sqlite,dynamodb`), BENCH_PROFILE=0 to skip the profile, and BENCH_COMPARE=<another checkout>
 * to add that checkout's `npm start` (its node_modules installed) as a second subject, for before
 * and after figures of one run. When comparing, every round runs on servers started for it: two
 * servers of the same code differ by up to a fifth on this machine however long they are loaded
 * (an A/A run, docs/benchmarks.md), so one server per side would compare two processes' luck.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import {
  BARE_PATH,
  BILLED_PATH,
  DURABLE_PATH,
  FREE_PATH,
  loadWithAutocannon,
  ROOT,
  type Started,
  startBareRoute,
  startDurableRoute,
  startService,
} from './http-servers.js';
import { describeMachine, printRow, round } from './measure.js';

const CONNECTIONS = 16;
const BARE_ROUTE = 'bare Hono route';
/** bench/durable-route-server.ts: the bare route plus what durability alone costs a call. */
const DURABLE_ROUTE = 'Hono + one durable row';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WARMUP_SECONDS = 2;
const PROFILE_SECONDS = 5;
const STORES = (process.env.BENCH_STORES ?? 'sqlite,dynamodb').split(',') as Array<'sqlite' | 'dynamodb'>;
const COMPARE_ROOT = process.env.BENCH_COMPARE ? resolve(process.env.BENCH_COMPARE) : undefined;

interface Target {
  name: string;
  url: string;
  key?: string;
  /** The process group serving it, whose CPU time is counted. */
  group: number;
}

/** What a target served over all its rounds. */
interface Totals {
  requests: number;
  seconds: number;
  p50Ms: number[];
  p99Ms: number[];
  failures: number;
  /** CPU time the serving processes used, ms. */
  cpuMs: number;
  /** Requests per second in each round, in the order run. */
  roundRates: number[];
}

function load(target: Target, seconds: number): Promise<autocannon.Result> {
  return loadWithAutocannon(target, CONNECTIONS, seconds);
}

/** The targets of servers started for them, and how to stop those servers. */
interface Servers {
  targets: Target[];
  stop(): Promise<void>;
}

/**
 * Warms every target up, then runs them in rounds, rotating their order each round. `services`
 * starts the servers of every target but the bench's own `routes` (started once by the caller):
 * once, or again for each round when `freshServers` (each round's servers are warmed up before it).
 */
async function runRounds(
  routes: readonly Target[],
  services: () => Promise<Servers>,
  freshServers: boolean,
): Promise<{ names: string[]; totals: Map<string, Totals> }> {
  const warmedUp = async () => {
    const started = await services();
    for (const target of started.targets) await load(target, WARMUP_SECONDS);
    return started;
  };
  for (const route of routes) await load(route, WARMUP_SECONDS);
  let servers = await warmedUp();
  const names = [...routes, ...servers.targets].map((target) => target.name);
  const totals = new Map<string, Totals>(
    names.map((name) => [
      name,
      { requests: 0, seconds: 0, p50Ms: [], p99Ms: [], failures: 0, cpuMs: 0, roundRates: [] },
    ]),
  );
  try {
    for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex += 1) {
      if (roundIndex > 0 && freshServers) {
        await servers.stop();
        servers = await warmedUp();
      }
      await runRound([...routes, ...servers.targets], roundIndex, totals);
    }
  } finally {
    await servers.stop();
  }
  return { names, totals };
}

/** One load of each target, the order rotated by the round's index. */
async function runRound(targets: readonly Target[], roundIndex: number, totals: Map<string, Totals>) {
  for (let index = 0; index < targets.length; index += 1) {
    const target = targets[(roundIndex + index) % targets.length] as Target;
    const cpuBefore = await groupCpuMs(target.group);
    const result = await load(target, SECONDS);
    const total = totals.get(target.name) as Totals;
    total.cpuMs += (await groupCpuMs(target.group)) - cpuBefore;
    total.requests += result.requests.total;
    total.seconds += result.duration;
    total.roundRates.push(result.requests.total / result.duration);
    total.p50Ms.push(result.latency.p50);
    total.p99Ms.push(result.latency.p99);
    total.failures += result.non2xx + result.errors;
  }
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user and system) of the processes of a group so far, in ms, from /proc: on a machine
 * shared with other work, a server's CPU time per request tells its cost apart from how much of
 * the CPU it was given.
 */
async function groupCpuMs(group: number): Promise<number> {
  let ticks = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The fields after the command name (in parentheses): state, ppid, pgrp, … utime (14), stime (15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Self time of a profile's samples taken within `window` (µs of the monotonic clock), by place. */
function timeByPlace(
  profile: CpuProfile,
  window: { from: number; to: number },
): { busyMs: number; byPlace: Map<string, number> } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byPlace = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < window.from || at > window.to) return;
    const frame = nodes.get(id);
    const place = frame ? placeOf(sourceOf(frame), frame.functionName) : '';
    // Idle time is the thread waiting, not work.
    if (place === '(idle)') return;
    busy += delta;
    byPlace.set(place, (byPlace.get(place) ?? 0) + delta);
  });
  return { busyMs: busy / 1000, byPlace };
}

interface CallFrame {
  url: string;
  functionName: string;
  lineNumber: number;
  columnNumber: number;
}

interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface ProfileSummary {
  /** Busy time of the main thread during the load, ms. */
  mainBusyMs: number;
  /** Busy time of the other threads (the dataset readers) in the same window, ms. */
  otherThreadsBusyMs: number;
  /** The main thread's busy self time by place, %. */
  mainByPlace: Record<string, number>;
}

/** The profiles Node wrote (one per thread; the main thread's has thread id 0), read over one window. */
async function summarizeProfiles(dir: string, window: { from: number; to: number }): Promise<ProfileSummary> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.cpuprofile'));
  let main = { busyMs: 0, byPlace: new Map<string, number>() };
  let otherThreadsBusyMs = 0;
  for (const file of files) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    const summary = timeByPlace(profile, window);
    // CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile
    if (file.split('.')[4] === '0') main = summary;
    else otherThreadsBusyMs += summary.busyMs;
  }
  const total = main.busyMs * 1000;
  return {
    mainBusyMs: Math.round(main.busyMs),
    otherThreadsBusyMs: Math.round(otherThreadsBusyMs),
    mainByPlace: Object.fromEntries(
      [...main.byPlace.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 14)
        .map(([place, time]) => [place, Math.round((1000 * time) / total) / 10]),
    ),
  };
}

/** Each bundle's source map (`npm start` runs one), by the bundle's URL; undefined: none. */
const sourceMaps = new Map<string, SourceMap | undefined>();

/**
 * The URL of the code a frame ran: in a bundle with a source map beside it, its source module's
 * (V8 profiles name the generated file), so places are modules whether the server ran sources or a
 * bundle.
 */
function sourceOf({ url, lineNumber, columnNumber }: CallFrame): string {
  if (!url.startsWith('file:') || !url.endsWith('.mjs')) return url;
  if (!sourceMaps.has(url)) {
    const mapFile = `${fileURLToPath(url)}.map`;
    sourceMaps.set(
      url,
      existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined,
    );
  }
  const entry = sourceMaps.get(url)?.findEntry(lineNumber, columnNumber);
  return entry && 'originalSource' in entry ? new URL(entry.originalSource, url).href : url;
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

/** The monotonic clock V8 stamps profile samples with, in µs. */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** One SQLite server under --cpu-prof, loaded with each path in turn; a summary per path. */
async function profilePaths(): Promise<Record<string, ProfileSummary>> {
  const profileDir = await mkdtemp(join(tmpdir(), 'bench-profile-'));
  const profiled = await startService(ROOT, 'sqlite', `--cpu-prof --cpu-prof-dir=${profileDir}`);
  const windows: Record<string, { from: number; to: number }> = {};
  try {
    for (const [name, path] of [
      ['free', FREE_PATH],
      ['billed', BILLED_PATH],
    ] as const) {
      const target = { name, url: `${profiled.url}${path}`, key: profiled.key, group: profiled.group };
      await load(target, WARMUP_SECONDS);
      const from = monotonicMicros();
      await load(target, PROFILE_SECONDS);
      windows[name] = { from, to: monotonicMicros() };
    }
  } finally {
    await profiled.stop();
  }
  const summaries: Record<string, ProfileSummary> = {};
  for (const [name, window] of Object.entries(windows))
    summaries[name] = await summarizeProfiles(profileDir, window);
  await rm(profileDir, { recursive: true, force: true });
  return summaries;
}

/** An `npm start` per checkout and store, each serving a free and a billed target. */
async function startServices(): Promise<Servers> {
  const checkouts = COMPARE_ROOT
    ? [
        { root: ROOT, label: 'this checkout' },
        { root: COMPARE_ROOT, label: 'compared' },
      ]
    : [{ root: ROOT, label: '' }];
  const started: Started[] = [];
  const stop = async () => {
    for (const service of started) await service.stop();
  };
  const targets: Target[] = [];
  try {
    for (const { root, label } of checkouts) {
      for (const store of STORES) {
        const service = await startService(root, store);
        started.push(service);
        const suffix = label ? `${store}, ${label}` : store;
        const { url, key, group } = service;
        targets.push({ name: `free check (${suffix})`, url: `${url}${FREE_PATH}`, key, group });
        targets.push({ name: `billed lookup (${suffix})`, url: `${url}${BILLED_PATH}`, key, group });
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { targets, stop };
}

async function main(): Promise<void> {
  const machineBefore = describeMachine();
  const bare = await startBareRoute(ROOT);
  let names: string[];
  let totals: Map<string, Totals>;
  try {
    const durable = await startDurableRoute(ROOT);
    try {
      const routes = [
        { name: BARE_ROUTE, url: `${bare.url}${BARE_PATH}`, group: bare.group },
        { name: DURABLE_ROUTE, url: `${durable.url}${DURABLE_PATH}`, group: durable.group },
      ];
      ({ names, totals } = await runRounds(routes, startServices, COMPARE_ROOT !== undefined));
    } finally {
      await durable.stop();
    }
  } finally {
    await bare.stop();
  }
  const machineAfter = describeMachine();
  const profile = process.env.BENCH_PROFILE === '0' ? undefined : await profilePaths();

  const rate = (name: string) => {
    const total = totals.get(name);
    return total ? total.requests / total.seconds : Number.NaN;
  };
  const bareRate = rate(BARE_ROUTE);
  /** Server CPU time per request, µs. */
  const cpuPerRequest = (name: string) => {
    const total = totals.get(name);
    return total ? (1000 * total.cpuMs) / total.requests : Number.NaN;
  };
  const bareCpu = cpuPerRequest(BARE_ROUTE);
  /**
   * The ratio to bare Hono within each round (both loaded a few seconds apart): its median and range
   * show how far the machine moved the row during the run. On this shared machine, whole runs of the
   * same code put bare Hono at 51–69 µs a request and the billed lookup at 187–291 µs, not together
   * (docs/benchmarks.md, thirteenth pass).
   */
  const roundRatios = (name: string) => {
    const subject = totals.get(name)?.roundRates ?? [];
    const bare = totals.get(BARE_ROUTE)?.roundRates ?? [];
    const ratios = subject.map((value, index) => value / (bare[index] as number)).sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)] as number;
    return `median ${median.toFixed(3)}, ${(ratios[0] as number).toFixed(3)}–${(ratios.at(-1) as number).toFixed(3)} over ${ratios.length} rounds`;
  };
  const rows = names.map((name) => {
    const total = totals.get(name) as Totals;
    return {
      name,
      requestsPerSecond: round(rate(name), 0),
      vsBare: round(rate(name) / bareRate, 3),
      cpuMicrosPerRequest: round(cpuPerRequest(name), 0),
      /** The bare route's CPU time per request over this target's: the throughput ratio of an idle machine. */
      vsBareByCpu: round(bareCpu / cpuPerRequest(name), 3),
      /** Per round, in the order run. */
      p50Ms: total.p50Ms,
      p99Ms: total.p99Ms,
      failures: total.failures,
    };
  });
  console.log(
    `HTTP load: autocannon, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, then ${ROUNDS} rounds ` +
      `of ${SECONDS} s per target; load average ${machineBefore.loadAverage.join(' ')} before, ` +
      `${machineAfter.loadAverage.join(' ')} after; node ${process.version}, ${machineBefore.nproc} CPUs ${machineBefore.cpuModel}\n`,
  );
  console.log(
    'target                                  req/s  vs bare  CPU µs/req  by CPU  p50 ms (max)  p99 ms (max)  failures',
  );
  for (const row of rows) {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log(
      `${row.name.padEnd(36)} ${String(row.requestsPerSecond).padStart(8)} ${row.vsBare.toFixed(3).padStart(8)} ` +
        `${String(row.cpuMicrosPerRequest).padStart(11)} ${row.vsBareByCpu.toFixed(3).padStart(7)} ` +
        `${`${median(row.p50Ms)} (${Math.max(...row.p50Ms)})`.padStart(13)} ` +
        `${`${median(row.p99Ms)} (${Math.max(...row.p99Ms)})`.padStart(13)} ${String(row.failures).padStart(9)}`,
    );
  }
  if (profile) {
    for (const [name, summary] of Object.entries(profile)) {
      console.log(
        `\nServer CPU profile under the ${name} path (SQLite), main thread ${summary.mainBusyMs} ms busy ` +
          `in ${PROFILE_SECONDS} s (other threads ${summary.otherThreadsBusyMs} ms); share of its busy self time by place, %:`,
      );
      for (const [place, share] of Object.entries(summary.mainByPlace))
        console.log(`  ${String(share).padStart(5)}  ${place}`);
    }
  }
  // The issue's table: subject, baseline of the same run, ratio; by throughput, and by CPU time per
  // request (the server's cost, whatever share of a busy machine it was given).
  const subject = (kind: 'free check' | 'billed lookup') =>
    `${kind} (${COMPARE_ROOT ? 'sqlite, this checkout' : 'sqlite'})`;
  console.log('');
  for (const [row, name] of [
    ['npm start free disposable check / bare Hono, 16 connections', subject('free check')],
    ['npm start billed profile lookup / bare Hono, 16 connections', subject('billed lookup')],
  ] as const) {
    if (!totals.has(name)) continue;
    printRow(row, `${rate(name).toFixed(0)} req/s`, `${bareRate.toFixed(0)} req/s`, rate(name) / bareRate);
    console.log(`    per round: ${roundRatios(name)}`);
    printRow(
      `${row}, by server CPU per request`,
      `${cpuPerRequest(name).toFixed(0)} µs`,
      `${bareCpu.toFixed(0)} µs`,
      bareCpu / cpuPerRequest(name),
    );
  }
  // Not the issue's rows: how much of each gap a durable record of the call accounts for by itself.
  const durableCpu = cpuPerRequest(DURABLE_ROUTE);
  console.log(
    `\n${DURABLE_ROUTE} / bare Hono: ${(rate(DURABLE_ROUTE) / bareRate).toFixed(3)} by throughput, ` +
      `${(bareCpu / durableCpu).toFixed(3)} by CPU (${durableCpu.toFixed(0)} µs a request)`,
  );
  for (const kind of ['free check', 'billed lookup'] as const) {
    const name = subject(kind);
    if (!totals.has(name)) continue;
    console.log(
      `${kind} / ${DURABLE_ROUTE}: ${(rate(name) / rate(DURABLE_ROUTE)).toFixed(3)} by throughput, ` +
        `${(durableCpu / cpuPerRequest(name)).toFixed(3)} by CPU`,
    );
  }
  console.log(
    `\n${JSON.stringify({ machine: machineBefore, loadAfter: machineAfter.loadAverage, rows, profile })}`,
  );
  if (rows.some((row) => row.failures > 0)) process.exitCode = 1;
}

await main();
