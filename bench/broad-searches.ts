/**
 * Benchmark (last part of `npm run bench`): broad keyword searches on a dataset database, read
 * in-thread as Lambda reads them (`DATASET_READER_THREADS=0`) — people "engineer", posts
 * "leadership", search all "engineer", job facets "engineer" and a few short prefixes and frequent
 * words — each's p50/p99 and the event loop's longest block while it ran (monitorEventLoopDelay's
 * maximum: a search read in-thread holds the loop for its whole length). Issue 29's aim: p99 ≤ 20 ms
 * at 1M profiles and no block longer than a few milliseconds.
 *
 * Subjects, each in a fresh child process per round, rounds interleaved:
 * - BENCH_BROAD_DATASET=FILE: this checkout's code on FILE (a database `npm run data -- import`
 *   built). Unset: a 10,000-profile dataset is generated and imported into the temp folder (short,
 *   for `npm run bench`'s default; the 1M figures need the 1M file named).
 * - BENCH_BROAD_BASELINE=ROOT:FILE (optional): another checkout's code (e.g. the commit before the
 *   prefix indexes) on a database that checkout built, measured side by side; each ROW line then
 *   compares with it, otherwise with the 20 ms aim.
 * BENCH_BROAD_ROUNDS (default 3) × BENCH_BROAD_CALLS (default 20) calls per search and subject.
 * Prints a table, a `ROW ` line per search and a JSON summary. Results: docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DataSource } from '../shared/sources/data-source.js';
import { buildDataset } from './dataset-build.js';
import { describeMachine, percentile, printRow, round } from './measure.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
/** Issue 29's aim for a broad search's p99 (ms). */
const AIM_P99_MS = 20;

type Search = [name: string, call: (source: DataSource, signal: AbortSignal) => Promise<unknown>];

const searches: Search[] = [
  ['people "engineer"', (s, signal) => s.searchPeople({ keywords: 'engineer' }, signal)],
  ['posts "leadership"', (s, signal) => s.searchPosts('leadership', signal)],
  ['search all "engineer"', (s, signal) => s.searchAll('engineer', signal)],
  ['job facets "engineer"', (s, signal) => s.jobSearchFacets('engineer', signal)],
  [
    'companies "software" + total',
    (s, signal) => s.searchCompanies({ keywords: 'software' }, { start: 0, count: 10 }, signal),
  ],
  ['people "a"', (s, signal) => s.searchPeople({ keywords: 'a' }, signal)],
  ['posts "the"', (s, signal) => s.searchPosts('the', signal)],
  ['search all "le"', (s, signal) => s.searchAll('le', signal)],
  ['typeahead "nor"', (s, signal) => s.typeahead('nor', signal)],
];

interface Timings {
  /** Per search: every call's latency (ms) and the loop's longest block (ms). */
  [search: string]: { latenciesMs: number[]; longestBlockMs: number };
}

// ---- Child: one subject's code on its file, in-thread -------------------------------------------

async function probe(codeRoot: string, file: string, calls: number): Promise<void> {
  const modulePath = join(codeRoot, 'shared', 'sources', 'dataset', 'open-dataset.ts');
  const { datasetSource } = (await import(pathToFileURL(modulePath).href)) as {
    datasetSource(file: string): DataSource;
  };
  const source = datasetSource(file);
  const signal = new AbortController().signal;
  const timings: Timings = {};
  for (const [name, call] of searches) {
    await call(source, signal); // warm-up: statements prepared, pages cached
    const latenciesMs: number[] = [];
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    for (let i = 0; i < calls; i++) {
      const begin = performance.now();
      await call(source, signal);
      latenciesMs.push(performance.now() - begin);
      // Let the loop turn (and the delay monitor's timer fire) between calls.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    loop.disable();
    timings[name] = { latenciesMs, longestBlockMs: loop.max / 1e6 };
  }
  process.stdout.write(`${JSON.stringify(timings)}\n`);
}

// ---- Parent: subjects in interleaved rounds -------------------------------------------------------

interface Subject {
  label: string;
  codeRoot: string;
  file: string;
  /** Every round's timings, by search. */
  timings: Map<string, Timings[string]>;
}

function runProbe(subject: Subject, calls: number): void {
  const child = spawnSync(
    tsx,
    [fileURLToPath(import.meta.url), '--probe', subject.codeRoot, subject.file, String(calls)],
    { cwd: subject.codeRoot, encoding: 'utf8', maxBuffer: 16 << 20 },
  );
  if (child.status !== 0) throw new Error(`the ${subject.label} probe failed: ${child.stderr}`);
  const timings = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as Timings;
  for (const [name, { latenciesMs, longestBlockMs }] of Object.entries(timings)) {
    const into = subject.timings.get(name) ?? { latenciesMs: [], longestBlockMs: 0 };
    into.latenciesMs.push(...latenciesMs);
    into.longestBlockMs = Math.max(into.longestBlockMs, longestBlockMs);
    subject.timings.set(name, into);
  }
}

function summary(timings: Timings[string] | undefined) {
  const sorted = [...(timings?.latenciesMs ?? [])].sort((a, b) => a - b);
  return {
    calls: sorted.length,
    p50Ms: round(percentile(sorted, 0.5), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
    longestBlockMs: round(timings?.longestBlockMs ?? Number.NaN, 1),
  };
}

/** The generated default dataset's folder, deleted at the end; none when a file was named. */
let generatedBase: string | undefined;

function subjects(): Subject[] {
  let file = process.env.BENCH_BROAD_DATASET;
  if (!file) {
    generatedBase = join(tmpdir(), 'lookup-broad-searches');
    mkdirSync(generatedBase, { recursive: true });
    file = buildDataset(10_000, generatedBase).file;
  }
  const list: Subject[] = [{ label: 'this code', codeRoot: root, file: resolve(file), timings: new Map() }];
  const baseline = process.env.BENCH_BROAD_BASELINE;
  if (baseline) {
    const split = baseline.lastIndexOf(':');
    if (split <= 0)
      throw new Error('BENCH_BROAD_BASELINE is ROOT:FILE (a checkout and the database it built)');
    list.push({
      label: 'baseline',
      codeRoot: resolve(baseline.slice(0, split)),
      file: resolve(baseline.slice(split + 1)),
      timings: new Map(),
    });
  }
  return list;
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_BROAD_ROUNDS ?? 3);
  const calls = Number(process.env.BENCH_BROAD_CALLS ?? 20);
  const list = subjects();
  const loadBefore = describeMachine().loadAverage;
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < list.length; i++) runProbe(list[(r + i) % list.length] as Subject, calls);
  const [subject, baseline] = list as [Subject, Subject | undefined];
  const results = searches.map(([name]) => ({
    search: name,
    subject: summary(subject.timings.get(name)),
    baseline: baseline ? summary(baseline.timings.get(name)) : undefined,
  }));
  console.log(
    `Broad searches in-thread on ${subject.file}${baseline ? ` vs ${baseline.file} (${baseline.codeRoot})` : ''}`,
  );
  console.log(
    `search | p50 ms | p99 ms | longest block ms${baseline ? ' | baseline p50 | p99 | longest block' : ''}`,
  );
  for (const { search, subject: s, baseline: b } of results)
    console.log(
      `${search} | ${s.p50Ms} | ${s.p99Ms} | ${s.longestBlockMs}${b ? ` | ${b.p50Ms} | ${b.p99Ms} | ${b.longestBlockMs}` : ''}`,
    );
  for (const { search, subject: s, baseline: b } of results) {
    const against = b ? b.p99Ms : AIM_P99_MS;
    printRow(
      `broad search ${search} p99 in-thread${b ? ' / before' : ' / 20 ms aim'}`,
      `${s.p99Ms} ms`,
      `${against} ms`,
      s.p99Ms / against,
    );
    printRow(
      `broad search ${search} longest event-loop block${b ? ' / before' : ''}`,
      `${s.longestBlockMs} ms`,
      b ? `${b.longestBlockMs} ms` : '-',
      b ? s.longestBlockMs / b.longestBlockMs : undefined,
    );
  }
  console.log(
    JSON.stringify({
      benchmark: 'broad-searches',
      machine: { ...describeMachine(), loadAverageBefore: loadBefore },
      rounds,
      callsPerRound: calls,
      subject: { codeRoot: subject.codeRoot, file: subject.file },
      baseline: baseline ? { codeRoot: baseline.codeRoot, file: baseline.file } : null,
      results,
    }),
  );
  if (generatedBase) rmSync(generatedBase, { recursive: true, force: true });
}

if (process.argv[2] === '--probe')
  await probe(process.argv[3] as string, process.argv[4] as string, Number(process.argv[5]));
else await main();
