/**
 * Benchmark (`npm run bench:dataset`): how the dataset database grows with the dataset. For each size
 * (BENCH_DATASET_SIZES, profiles, default 10000,100000,1000000) it generates a dataset, imports it,
 * and in a fresh child process (so memory belongs to that size alone) opens the database the way the
 * server does and times the first answer, then runs lookups in-process — details by username,
 * company keyword search, people search with keywords + current + past company, similar profiles —
 * and reports p50/p99, the process's resident memory, and the time from spawning the process to its
 * first answer. Inputs are drawn from the database at random (fixed seed). Prints a table and a JSON summary, and draws docs/dataset-size.svg. Files go under
 * BENCH_DATASET_DIR (default: the OS temp folder) and are deleted after each size unless
 * BENCH_KEEP=1. Results: docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRandom } from '../shared/sources/dataset/random.js';
import { DatabaseSync } from '../shared/store/sqlite/node-sqlite.js';
import { buildDataset } from './dataset-build.js';
import { describeMachine } from './measure.js';
import { smallMultiplesSvg } from './svg-chart.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const LOOKUPS = 2_000;

interface ProbeInputs {
  usernames: string[];
  companyKeywords: string[];
  peopleQueries: { keywords: string; currentCompany: string; pastCompany: string }[];
}

interface ProbeResult {
  /** Opening the database and answering one lookup, in-process. */
  openMs: number;
  /** From spawning the process (Node, tsx, the modules) to its first answer. */
  startUpMs: number;
  rssMb: number;
  latency: Record<
    'details' | 'companySearch' | 'peopleSearch' | 'similarProfiles',
    { p50Ms: number; p99Ms: number }
  >;
}

interface SizeResult extends ProbeResult {
  profiles: number;
  generateSeconds: number;
  importSeconds: number;
  databaseMb: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

// ---- Child: open the database as the server does and time lookups ------------------------------

async function probe(file: string, inputsFile: string): Promise<void> {
  const { datasetSource } = await import('../shared/sources/dataset/open-dataset.js');
  const inputs = JSON.parse((await import('node:fs')).readFileSync(inputsFile, 'utf8')) as ProbeInputs;
  const started = performance.now();
  const source = datasetSource(file);
  const signal = new AbortController().signal;
  await source.profileDetails({ username: inputs.usernames[0] as string }, signal);
  const openMs = performance.now() - started;
  const firstAnswerAt = performance.timeOrigin + performance.now();
  const time = async (calls: (() => Promise<unknown>)[]) => {
    const latencies: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const call = calls[i % calls.length] as () => Promise<unknown>;
      const begin = performance.now();
      await call();
      latencies.push(performance.now() - begin);
    }
    latencies.sort((a, b) => a - b);
    return { p50Ms: round(percentile(latencies, 50), 3), p99Ms: round(percentile(latencies, 99), 3) };
  };
  const latency = {
    details: await time(
      inputs.usernames.map((username) => () => source.profileDetails({ username }, signal)),
    ),
    companySearch: await time(
      inputs.companyKeywords.map(
        (keywords) => () => source.searchCompanies({ keywords }, { start: 0, count: 10 }, signal),
      ),
    ),
    peopleSearch: await time(inputs.peopleQueries.map((query) => () => source.searchPeople(query, signal))),
    similarProfiles: await time(
      inputs.usernames.map((username) => () => source.similarProfiles(username, signal)),
    ),
  };
  const result: Omit<ProbeResult, 'startUpMs'> & { firstAnswerAt: number } = {
    firstAnswerAt,
    openMs: round(openMs, 1),
    rssMb: round(process.memoryUsage().rss / 2 ** 20, 1),
    latency,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// ---- Parent: generate, import, draw inputs, probe ----------------------------------------------------

/** Random real inputs from the database (the parent reads it; the child's memory stays its own). */
function drawInputs(file: string): ProbeInputs {
  const db = new DatabaseSync(file, { readOnly: true });
  const rng = createRandom(20261124);
  const people = Number((db.prepare('SELECT max(seq) AS n FROM people').get() as { n: number }).n);
  const companies = Number((db.prepare('SELECT max(seq) AS n FROM companies').get() as { n: number }).n);
  const personAt = db.prepare('SELECT body FROM people WHERE seq = ?');
  const companyAt = db.prepare('SELECT body FROM companies WHERE seq = ?');
  const usernames: string[] = [];
  const companyKeywords: string[] = [];
  const peopleQueries: ProbeInputs['peopleQueries'] = [];
  while (usernames.length < 200) {
    const person = JSON.parse(String((personAt.get(rng.int(1, people)) as { body: string }).body));
    usernames.push(person.username);
    const current = person.positions.find(
      (p: { isCurrent: boolean; companyPublicId: string | null }) => p.isCurrent && p.companyPublicId,
    );
    const past = person.positions.find(
      (p: { isCurrent: boolean; companyPublicId: string | null }) => !p.isCurrent && p.companyPublicId,
    );
    if (current && past && peopleQueries.length < 200)
      peopleQueries.push({
        keywords: String(current.title).split(' ').at(-1) ?? '',
        currentCompany: current.companyPublicId,
        pastCompany: past.companyPublicId,
      });
  }
  while (companyKeywords.length < 200) {
    const company = JSON.parse(String((companyAt.get(rng.int(1, companies)) as { body: string }).body));
    const words = [...String(company.name).split(' '), ...(company.specialties as string[])];
    companyKeywords.push(rng.pick(words));
  }
  db.close();
  return { usernames, companyKeywords, peopleQueries };
}

function measureSize(profiles: number, base: string): SizeResult {
  const { dir, file, generateSeconds, importSeconds } = buildDataset(profiles, base);
  const inputsFile = join(base, `inputs-${profiles}.json`);
  writeFileSync(inputsFile, JSON.stringify(drawInputs(file)));
  const spawnedAt = Date.now();
  const child = spawnSync(tsx, [fileURLToPath(import.meta.url), '--probe', file, inputsFile], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`the probe failed: ${child.stderr}`);
  const { firstAnswerAt, ...probed } = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as Omit<
    ProbeResult,
    'startUpMs'
  > & { firstAnswerAt: number };
  const result: ProbeResult = { ...probed, startUpMs: round(firstAnswerAt - spawnedAt, 0) };
  const databaseMb = round(statSync(file).size / 2 ** 20, 1);
  if (process.env.BENCH_KEEP !== '1') {
    rmSync(dir, { recursive: true, force: true });
    rmSync(file, { force: true });
  }
  rmSync(inputsFile, { force: true });
  return { profiles, generateSeconds, importSeconds, databaseMb, ...result };
}

// ---- The plot -------------------------------------------------------------------------------------

/** Small multiples, profiles on a log axis, each panel its own linear y axis. */
function plot(results: SizeResult[]): string {
  return smallMultiplesSvg({
    title: 'The dataset database by size: import time, file size, start-up and memory, p99 latency',
    x: results.map((r) => r.profiles),
    panels: [
      { title: 'Import time (s)', series: [{ name: 'import', values: results.map((r) => r.importSeconds) }] },
      { title: 'Database size (MB)', series: [{ name: 'file', values: results.map((r) => r.databaseMb) }] },
      {
        title: 'Start-up to first answer (ms), resident memory (MB)',
        series: [
          { name: 'start-up ms', values: results.map((r) => r.startUpMs) },
          { name: 'RSS MB', values: results.map((r) => r.rssMb) },
        ],
      },
      {
        title: 'p99 latency in-process (ms)',
        series: [
          { name: 'details', values: results.map((r) => r.latency.details.p99Ms) },
          { name: 'company search', values: results.map((r) => r.latency.companySearch.p99Ms) },
          { name: 'people search', values: results.map((r) => r.latency.peopleSearch.p99Ms) },
          { name: 'similar', values: results.map((r) => r.latency.similarProfiles.p99Ms) },
        ],
      },
    ],
  });
}

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_DATASET_SIZES ?? '10000,100000,1000000').split(',').map(Number);
  const base = process.env.BENCH_DATASET_DIR ?? join(tmpdir(), 'lookup-dataset-bench');
  mkdirSync(base, { recursive: true });
  const results: SizeResult[] = [];
  for (const profiles of sizes) {
    const result = measureSize(profiles, base);
    results.push(result);
    console.log(
      `${profiles.toLocaleString('en').padStart(10)} profiles: generate ${result.generateSeconds} s, import ${result.importSeconds} s, ${result.databaseMb} MB, start-up ${result.startUpMs} ms (open ${result.openMs} ms), RSS ${result.rssMb} MB, p50/p99 ms details ${result.latency.details.p50Ms}/${result.latency.details.p99Ms}, company search ${result.latency.companySearch.p50Ms}/${result.latency.companySearch.p99Ms}, people search ${result.latency.peopleSearch.p50Ms}/${result.latency.peopleSearch.p99Ms}, similar profiles ${result.latency.similarProfiles.p50Ms}/${result.latency.similarProfiles.p99Ms}`,
    );
  }
  writeFileSync(join(root, 'docs', 'dataset-size.svg'), plot(results));
  console.log(JSON.stringify({ benchmark: 'dataset-size', machine: describeMachine(), results }));
}

if (process.argv[2] === '--probe') await probe(process.argv[3] as string, process.argv[4] as string);
else await main();
