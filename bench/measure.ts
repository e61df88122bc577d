/**
 * What the benchmarks share: targets run at a fixed concurrency in interleaved rounds, latency
 * statistics (requests/s, p50, p99, mean), DynamoDB call summaries from the call counter, the CPU
 * share of this process and of everything else during a phase (to spot a disturbed run), and the
 * small formatting helpers of the printed tables.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { type CallCount, type DynamoCallCounter, isRead } from './dynamo-call-counter.js';

export interface Target<Name extends string = string> {
  name: Name;
  /** Sends one request and returns its HTTP status (200 for targets without HTTP). */
  send(): Promise<number>;
}

export interface Sample {
  latenciesMs: number[];
  elapsedMs: number;
  failures: number;
}

export interface LatencyStats {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  failures: number;
}

/** Runs `count` requests with `concurrency` in flight; bounded by `count`. */
export async function runBatch(
  target: Target,
  count: number,
  concurrency: number,
  into: Sample,
): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started += 1;
      const begin = performance.now();
      let status: number;
      try {
        status = await target.send();
      } catch {
        status = 0;
      }
      into.latenciesMs.push(performance.now() - begin);
      if (status !== 200) into.failures += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export interface RoundsOptions {
  perTarget: number;
  rounds: number;
  concurrency: number;
  /** Calls are counted under `${phase}:${target.name}`. */
  phase: string;
  counter: DynamoCallCounter;
}

/**
 * Interleaves the targets in rounds, rotating their order each round. Each round ends by waiting
 * for the target's fire-and-forget DynamoDB calls, and that wait counts towards its elapsed time.
 */
export async function runRounds(
  targets: readonly Target[],
  { perTarget, rounds, concurrency, phase, counter }: RoundsOptions,
): Promise<Map<string, Sample>> {
  const samples = new Map<string, Sample>(
    targets.map((target) => [target.name, { latenciesMs: [], elapsedMs: 0, failures: 0 }]),
  );
  for (let round = 0; round < rounds; round += 1) {
    const count = Math.floor(perTarget / rounds) + (round < perTarget % rounds ? 1 : 0);
    for (let index = 0; index < targets.length; index += 1) {
      const target = targets[(round + index) % targets.length] as Target;
      const sample = samples.get(target.name) as Sample;
      counter.setPhase(`${phase}:${target.name}`);
      const begin = performance.now();
      await runBatch(target, count, concurrency, sample);
      if (!(await counter.drain())) throw new Error(`DynamoDB calls of ${target.name} did not finish`);
      sample.elapsedMs += performance.now() - begin;
    }
  }
  counter.setPhase('idle');
  return samples;
}

/** The warm-up rounds, then the measured rounds with the CPU share watched; both in the same way. */
export async function warmUpAndMeasure(
  targets: readonly Target[],
  options: {
    warmup: { perTarget: number; rounds: number };
    measured: { perTarget: number; rounds: number };
    concurrency: number;
    counter: DynamoCallCounter;
  },
) {
  const { concurrency, counter } = options;
  const warmup = await runRounds(targets, { ...options.warmup, concurrency, phase: 'warmup', counter });
  const cpu = watchCpu();
  const measuredStart = performance.now();
  const measured = await runRounds(targets, { ...options.measured, concurrency, phase: 'measured', counter });
  const measuredSeconds = (performance.now() - measuredStart) / 1000;
  return { warmup, measured, measuredSeconds, cpuShare: cpu() };
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] as number;
}

export function stats(sample: Sample): LatencyStats {
  const sorted = [...sample.latenciesMs].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    requests: sorted.length,
    requestsPerSecond: sorted.length / (sample.elapsedMs / 1000),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    meanMs: total / sorted.length,
    failures: sample.failures,
  };
}

export interface CallSummary {
  reads: number;
  writes: number;
  byCommand: Record<string, number>;
  byItem: Record<string, number>;
}

/** Calls per request (or totals when `requests` is 1). */
export function summarizeCalls(counts: readonly CallCount[], requests: number): CallSummary {
  const summary: CallSummary = { reads: 0, writes: 0, byCommand: {}, byItem: {} };
  for (const { command, item, count } of counts) {
    const perRequest = count / requests;
    if (isRead(command)) summary.reads += perRequest;
    else summary.writes += perRequest;
    summary.byCommand[command] = (summary.byCommand[command] ?? 0) + perRequest;
    summary.byItem[`${command} ${item}`] = (summary.byItem[`${command} ${item}`] ?? 0) + perRequest;
  }
  return summary;
}

/** A summary with every figure rounded, for the JSON line. */
export function roundCalls(summary: CallSummary, digits: number): CallSummary {
  const roundAll = (values: Record<string, number>) =>
    Object.fromEntries(Object.entries(values).map(([label, value]) => [label, round(value, digits)]));
  return {
    reads: round(summary.reads, digits),
    writes: round(summary.writes, digits),
    byCommand: roundAll(summary.byCommand),
    byItem: roundAll(summary.byItem),
  };
}

export const round = (value: number, digits: number) => Number(value.toFixed(digits));

/**
 * One row of issue 29's table, in the same shape from every bench so that `npm run bench | grep ^ROW`
 * reads as one table: what is measured | the subject's figure | its baseline's, from the same run |
 * subject over baseline (`-` where there is no baseline).
 */
export function printRow(name: string, subject: string, baseline: string, ratio: number | undefined): void {
  console.log(`ROW ${name} | ${subject} | ${baseline} | ${ratio === undefined ? '-' : round(ratio, 3)}`);
}

export function formatCalls(summary: CallSummary, digits: number): string {
  const parts = Object.entries(summary.byItem)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, value]) => `${label} ${value.toFixed(digits)}`);
  return `reads ${summary.reads.toFixed(digits)}, writes ${summary.writes.toFixed(digits)} (${parts.join('; ') || 'none'})`;
}

export function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, index) => cell.padStart(widths[index] ?? 0)).join('  ');
}

export interface CpuShare {
  /** CPU time of this process as a share of wall time (100 = one core busy throughout). */
  ownPercent: number;
  /** CPU time of everything else on the machine, same unit; undefined without /proc/stat. */
  othersPercent: number | undefined;
}

/** Busy jiffies of the whole machine from /proc/stat (Linux only): user, nice, system, irq, softirq. */
function machineJiffies(): { busy: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      ?.trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    if (!fields || fields.length < 7) return undefined;
    // Idle, iowait, steal and guest time (already inside user) are not work of other processes.
    return { busy: [0, 1, 2, 5, 6].reduce((sum, index) => sum + (fields[index] ?? 0), 0) };
  } catch {
    return undefined;
  }
}

/**
 * Starts watching CPU use; the returned function tells how busy this process and the rest of the
 * machine were since, so a run disturbed by other work on the machine can be told apart.
 */
export function watchCpu(): () => CpuShare {
  const wallStart = performance.now();
  const ownStart = process.cpuUsage();
  const machineStart = machineJiffies();
  return () => {
    const wallMs = performance.now() - wallStart;
    const own = process.cpuUsage(ownStart);
    const ownMs = (own.user + own.system) / 1000;
    const machineEnd = machineJiffies();
    const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
    const machineMs =
      machineStart && machineEnd ? (machineEnd.busy - machineStart.busy) / ticksPerMs : undefined;
    return {
      ownPercent: (ownMs / wallMs) * 100,
      othersPercent: machineMs === undefined ? undefined : (Math.max(0, machineMs - ownMs) / wallMs) * 100,
    };
  };
}

export function formatCpu(share: CpuShare): string {
  const others =
    share.othersPercent === undefined ? 'unknown' : `${share.othersPercent.toFixed(0)}% of one core`;
  return (
    `CPU during the measured phase: this process ${share.ownPercent.toFixed(0)}% of one core, ` +
    `other processes ${others}`
  );
}

/** How much slower `candidate` is than `baseline`: latency ratios, and time per request (1/throughput). */
export interface SideBySide {
  p50: number;
  mean: number;
  throughput: number;
}

/**
 * Prints one row per target (req/s, p50, p99, mean, failures) and the line comparing `candidate`
 * with `baseline`; returns the ratios for the JSON summary.
 */
export function printSideBySide(
  results: ReadonlyMap<string, LatencyStats>,
  baseline: string,
  candidate: string,
  digits: number,
): SideBySide {
  const widths = [Math.max(8, ...[...results.keys()].map((name) => name.length + 2)), 9, 9, 9, 9, 9];
  console.log(pad(['target', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'failures'], widths));
  for (const [name, result] of results) {
    const cells = [result.requestsPerSecond, result.p50Ms, result.p99Ms, result.meanMs].map((value, index) =>
      String(round(value, index === 0 ? 0 : 2)),
    );
    console.log(pad([name, ...cells, String(result.failures)], widths));
  }
  const base = results.get(baseline);
  const other = results.get(candidate);
  const ratio = {
    p50: round((other?.p50Ms ?? 0) / (base?.p50Ms ?? 1), digits),
    mean: round((other?.meanMs ?? 0) / (base?.meanMs ?? 1), digits),
    throughput: round((base?.requestsPerSecond ?? 0) / (other?.requestsPerSecond ?? 1), digits),
  };
  console.log(
    `${candidate} vs ${baseline}: p50 ×${ratio.p50}, mean ×${ratio.mean}, ` +
      `time per request (1/throughput) ×${ratio.throughput}`,
  );
  return ratio;
}

/** Every in-process benchmark's run: interleaved rounds of each target at one concurrency. */
export const STANDARD_RUN = {
  concurrency: 8,
  warmup: { perTarget: 300, rounds: 5 },
  measured: { perTarget: 3_000, rounds: 10 },
} as const;

/** The origin in-process requests are addressed to (`app.fetch` never resolves it). */
export const BENCH_ORIGIN = 'http://bench.local';

/** The machine a benchmark ran on, for its JSON summary (load average over 1 and 5 minutes). */
export function describeMachine() {
  const [load1, load5] = loadavg();
  return {
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    loadAverage: [round(load1 ?? 0, 2), round(load5 ?? 0, 2)],
  };
}
