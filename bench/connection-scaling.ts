/**
 * Benchmark (`npm run bench:scaling`, minutes; not part of `npm run bench`): how cost grows with
 * concurrency. Throughput and latency of the free disposable check and the billed profile lookup on
 * the service as `npm start` runs it (SQLite store), beside the bare Hono route, at 1, 2, 4 … 256
 * connections, loaded by autocannon from this process. After a first warm-up of each (3 s at 16
 * connections), at each level every target gets a short warm-up and then a measured load, their
 * order rotating from level to level, so a machine shared with other work disturbs all three alike;
 * figures to compare are ratios within a level.
 *
 * Prints a table, one issue-29 `ROW` line per path (its peak throughput against the bare route's),
 * a JSON summary, and draws docs/connection-scaling.svg (throughput and p99 by connections, both
 * axes logarithmic). Throughput counts 2xx answers only; any other answer or error is a failure,
 * reported, and makes the exit code 1.
 *
 * Settings (environment): BENCH_SCALING_CONNECTIONS (`1,2,4,8,16,32,64,128,256`),
 * BENCH_SCALING_SECONDS per target and level (3), BENCH_SCALING_WARMUP_SECONDS (1),
 * BENCH_SCALING_SVG (where the chart goes; docs/connection-scaling.svg).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BARE_PATH,
  BILLED_PATH,
  FREE_PATH,
  type LoadTarget,
  loadWithAutocannon,
  ROOT,
  type Started,
  startBareRoute,
  startService,
} from './http-servers.js';
import { describeMachine, printRow, round } from './measure.js';
import { smallMultiplesSvg } from './svg-chart.js';

const LEVELS = (process.env.BENCH_SCALING_CONNECTIONS ?? '1,2,4,8,16,32,64,128,256').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SCALING_SECONDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_SCALING_WARMUP_SECONDS ?? 1);
const FIRST_WARMUP_CONNECTIONS = 16;
const FIRST_WARMUP_SECONDS = 3;
const SVG_FILE = process.env.BENCH_SCALING_SVG ?? join(ROOT, 'docs', 'connection-scaling.svg');

const SERIES = ['bare Hono route', 'free check', 'billed lookup'] as const;
type SeriesName = (typeof SERIES)[number];

interface Point {
  connections: number;
  /** 2xx answers per second over the measured load. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx, and errors (timeouts, resets). */
  failures: number;
}

async function measure(target: LoadTarget, connections: number): Promise<Point> {
  await loadWithAutocannon(target, connections, WARMUP_SECONDS);
  const result = await loadWithAutocannon(target, connections, SECONDS);
  return {
    connections,
    requestsPerSecond: round(result['2xx'] / result.duration, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors,
  };
}

/**
 * Every level, every target within it in a rotating order; first a longer warm-up of each target
 * (the first billed lookups open the dataset and compile the path: seconds on a busy machine).
 */
async function runLevels(targets: ReadonlyMap<SeriesName, LoadTarget>): Promise<Map<SeriesName, Point[]>> {
  for (const target of targets.values())
    await loadWithAutocannon(target, FIRST_WARMUP_CONNECTIONS, FIRST_WARMUP_SECONDS);
  const points = new Map<SeriesName, Point[]>(SERIES.map((name) => [name, []]));
  for (const [levelIndex, connections] of LEVELS.entries()) {
    for (let index = 0; index < SERIES.length; index += 1) {
      const name = SERIES[(levelIndex + index) % SERIES.length] as SeriesName;
      const point = await measure(targets.get(name) as LoadTarget, connections);
      (points.get(name) as Point[]).push(point);
      console.log(
        `  ${String(connections).padStart(3)} connections  ${name.padEnd(16)} ${point.requestsPerSecond.toFixed(0).padStart(7)} req/s  ` +
          `p99 ${point.p99Ms} ms${point.failures > 0 ? `  failures ${point.failures}` : ''}`,
      );
    }
  }
  return points;
}

function printTable(points: ReadonlyMap<SeriesName, Point[]>): void {
  const header = [
    'conns',
    'bare req/s',
    'p99 ms',
    'free req/s',
    'p99 ms',
    '/bare',
    'billed req/s',
    'p99 ms',
    '/bare',
  ];
  const widths = [5, 10, 7, 10, 7, 6, 12, 7, 6];
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ');
  console.log(`\n${line(header)}`);
  LEVELS.forEach((connections, i) => {
    const [bare, free, billed] = SERIES.map((name) => (points.get(name) as Point[])[i] as Point) as [
      Point,
      Point,
      Point,
    ];
    const ratio = (point: Point) => (point.requestsPerSecond / bare.requestsPerSecond).toFixed(3);
    console.log(
      line([
        String(connections),
        bare.requestsPerSecond.toFixed(0),
        String(bare.p99Ms),
        free.requestsPerSecond.toFixed(0),
        String(free.p99Ms),
        ratio(free),
        billed.requestsPerSecond.toFixed(0),
        String(billed.p99Ms),
        ratio(billed),
      ]),
    );
  });
}

const peak = (points: readonly Point[]) =>
  points.reduce((best, point) => (point.requestsPerSecond > best.requestsPerSecond ? point : best));

function printRows(points: ReadonlyMap<SeriesName, Point[]>): void {
  const bare = peak(points.get('bare Hono route') as Point[]);
  for (const name of ['free check', 'billed lookup'] as const) {
    const subject = peak(points.get(name) as Point[]);
    printRow(
      `connection scaling, ${name} peak throughput / bare Hono peak`,
      `${subject.requestsPerSecond.toFixed(0)} req/s (${subject.connections} connections)`,
      `${bare.requestsPerSecond.toFixed(0)} req/s (${bare.connections} connections)`,
      subject.requestsPerSecond / bare.requestsPerSecond,
    );
  }
}

function chart(points: ReadonlyMap<SeriesName, Point[]>): string {
  const seriesOf = (figure: (point: Point) => number) =>
    SERIES.map((name) => ({ name, values: (points.get(name) as Point[]).map(figure) }));
  return smallMultiplesSvg({
    title:
      'Throughput and p99 latency against connections (1 to 256) for the free disposable check and the ' +
      'billed profile lookup on npm start, beside a bare Hono route',
    x: LEVELS,
    pointLabels: false,
    panels: [
      {
        title: 'Throughput by connections (2xx req/s, log y)',
        yScale: 'log',
        series: seriesOf((p) => p.requestsPerSecond),
      },
      { title: 'p99 latency by connections (ms, log y)', yScale: 'log', series: seriesOf((p) => p.p99Ms) },
    ],
  });
}

async function main(): Promise<void> {
  const machineAtStart = describeMachine();
  console.log(
    `Connection scaling: autocannon, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per target and level, ` +
      `levels ${LEVELS.join(', ')}; node ${process.version}, ${machineAtStart.nproc} CPUs ` +
      `${machineAtStart.cpuModel}, load average ${machineAtStart.loadAverage.join(' ')}`,
  );
  const servers: Started[] = [];
  let points: Map<SeriesName, Point[]>;
  try {
    const bare = await startBareRoute(ROOT);
    servers.push(bare);
    const service = await startService(ROOT, 'sqlite');
    servers.push(service);
    const key = service.key;
    points = await runLevels(
      new Map<SeriesName, LoadTarget>([
        ['bare Hono route', { url: `${bare.url}${BARE_PATH}` }],
        ['free check', { url: `${service.url}${FREE_PATH}`, ...(key ? { key } : {}) }],
        ['billed lookup', { url: `${service.url}${BILLED_PATH}`, ...(key ? { key } : {}) }],
      ]),
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  const machine = describeMachine();
  printTable(points);
  console.log(`load average at the end: ${machine.loadAverage.join(' ')}`);
  printRows(points);
  writeFileSync(SVG_FILE, chart(points));
  console.log(`chart: ${SVG_FILE}`);
  console.log(
    JSON.stringify({
      benchmark: 'connection-scaling',
      machine: { ...machine, loadAverageAtStart: machineAtStart.loadAverage },
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      series: Object.fromEntries(points),
    }),
  );
  const failures = [...points.values()].flat().reduce((sum, point) => sum + point.failures, 0);
  if (failures > 0) {
    console.error(`${failures} requests failed`);
    process.exitCode = 1;
  }
}

await main();
