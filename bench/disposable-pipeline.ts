/**
 * Benchmark (`npm run bench`): GET /v1/emails/disposable through the whole pipeline (the real app
 * from createService, dynalite in this process, a real clock) against a bare Hono route answering
 * the same body, in the same process and run, interleaved in rounds so machine noise hits both alike.
 * A third, reference target sends the pipeline's two store writes straight through the store port.
 * Prints requests/s, p50 and p99 latency, the pipeline/bare ratio and the DynamoDB calls per request
 * (cold first request and steady state) and the CPU used by it and by other processes during the
 * measured phase, then a one-line JSON summary. Results: docs/benchmarks.md.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { Store } from '../shared/store/store.js';
import { startBenchService } from './bench-service.js';
import { bursts, countDynamoCalls } from './dynamo-call-counter.js';
import {
  BENCH_ORIGIN,
  formatCalls,
  formatCpu,
  type LatencyStats,
  pad,
  round,
  type Sample,
  STANDARD_RUN,
  stats,
  summarizeCalls,
  type Target,
  warmUpAndMeasure,
} from './measure.js';

type TargetName = 'pipeline' | 'bare' | 'reference';

/** The pipeline's two store writes without the app: the admission, then the usage record, both awaited. */
function referenceTarget(store: Store): Target<TargetName> {
  const accountId = `acct_reference_${randomUUID().replaceAll('-', '')}`;
  return {
    name: 'reference',
    async send() {
      const requestId = `req_${randomUUID()}`;
      const now = Date.now();
      await store.billing.admit({
        accountId,
        requestId,
        operation: 'emails.disposable',
        cost: 0,
        rateLimit: { limit: 1_000_000_000, windowSeconds: 60 },
        now,
      });
      const at = new Date(now).toISOString();
      // Awaited, and a failure still answers, as the pipeline records a free call.
      await store.billing
        .recordUsage({
          requestId,
          accountId,
          operation: 'emails.disposable',
          cost: 0,
          status: 'charged',
          createdAt: at,
          settledAt: at,
        })
        .catch(() => undefined);
      return 200;
    },
  };
}

async function main(): Promise<void> {
  const bench = await startBenchService({
    env: { KEY_CACHE_SECONDS: process.env.KEY_CACHE_SECONDS },
    credits: 0,
  });
  // Counted per phase, so provisioning's writes before this point are not part of any figure.
  const counter = countDynamoCalls(bench.table);
  const { service, config, apiKey } = bench;
  try {
    const bareApp = new Hono().get('/bare', (c) =>
      c.json({ data: { domain: 'example.com', isDisposable: false }, meta: { creditCost: 0 } }),
    );
    const pipeline: Target<TargetName> = {
      name: 'pipeline',
      async send() {
        const response = await service.app.fetch(
          new Request(`${BENCH_ORIGIN}/v1/emails/disposable?email=someone%40example.com`, {
            headers: { Authorization: `Bearer ${apiKey}` },
          }),
        );
        await response.text();
        return response.status;
      },
    };
    const bare: Target<TargetName> = {
      name: 'bare',
      async send() {
        const response = await bareApp.fetch(new Request(`${BENCH_ORIGIN}/bare`));
        await response.text();
        return response.status;
      },
    };
    const targets = [pipeline, bare, referenceTarget(bench.store)] as const;

    // Cold: the first request of each target alone (empty key cache, first route match).
    const cold = new Map<TargetName, number>();
    for (const target of [pipeline, bare]) {
      counter.setPhase(`cold:${target.name}`);
      const begin = performance.now();
      const status = await target.send();
      cold.set(target.name, performance.now() - begin);
      await counter.drain();
      if (status !== 200) throw new Error(`cold ${target.name} request answered ${status}`);
    }

    const { warmup, measured, measuredSeconds, cpuShare } = await warmUpAndMeasure(targets, {
      ...STANDARD_RUN,
      counter,
    });

    const results = Object.fromEntries(
      targets.map((target) => [target.name, stats(measured.get(target.name) as Sample)]),
    ) as Record<TargetName, LatencyStats>;
    const failures =
      Object.values(results).reduce((sum, result) => sum + result.failures, 0) +
      [...warmup.values()].reduce((sum, sample) => sum + sample.failures, 0);
    const ratio = {
      requestsPerSecond: results.pipeline.requestsPerSecond / results.bare.requestsPerSecond,
      p50: results.pipeline.p50Ms / results.bare.p50Ms,
      p99: results.pipeline.p99Ms / results.bare.p99Ms,
    };
    const coldCalls = summarizeCalls(counter.counts('cold:pipeline'), 1);
    const warmupCalls = summarizeCalls(counter.counts('warmup:pipeline'), STANDARD_RUN.warmup.perTarget);
    const steadyCalls = summarizeCalls(counter.counts('measured:pipeline'), STANDARD_RUN.measured.perTarget);
    const bareCalls = summarizeCalls(counter.counts('measured:bare'), STANDARD_RUN.measured.perTarget);
    // Key-cache and closed-window refreshes in the measured phase: one burst per expiry, and its
    // size is how many in-flight requests missed the cache together.
    const refreshBursts = Object.fromEntries(
      counter
        .counts('measured:pipeline')
        .filter(({ command }) => command === 'GetItem')
        .map(({ item, startedAtMs }) => [item, bursts(startedAtMs)]),
    ) as Record<string, number[]>;

    const widths = [10, 9, 10, 8, 8, 8, 8];
    const lines = [
      `GET /v1/emails/disposable: pipeline vs bare Hono route (node ${process.version}, ` +
        `concurrency ${STANDARD_RUN.concurrency}, ${STANDARD_RUN.warmup.perTarget} warm-up + ${STANDARD_RUN.measured.perTarget} measured per target ` +
        `in ${STANDARD_RUN.measured.rounds} interleaved rounds, KEY_CACHE_SECONDS ${config.KEY_CACHE_SECONDS}, measured phase ${measuredSeconds.toFixed(1)} s)`,
      '',
      pad(['target', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'cold ms'], widths),
      ...targets.map((target) => {
        const result = results[target.name];
        const coldMs = cold.get(target.name);
        return pad(
          [
            target.name,
            String(result.requests),
            result.requestsPerSecond.toFixed(0),
            result.p50Ms.toFixed(3),
            result.p99Ms.toFixed(3),
            result.meanMs.toFixed(3),
            coldMs === undefined ? '-' : coldMs.toFixed(1),
          ],
          widths,
        );
      }),
      pad(
        [
          'pipe/bare',
          '',
          `${ratio.requestsPerSecond.toFixed(3)}x`,
          `${ratio.p50.toFixed(1)}x`,
          `${ratio.p99.toFixed(1)}x`,
          `${(results.pipeline.meanMs / results.bare.meanMs).toFixed(1)}x`,
          '',
        ],
        widths,
      ),
      '',
      "(reference = the pipeline path's store writes alone: awaited admission UpdateItem, then awaited PutItem)",
      '',
      'DynamoDB calls on the pipeline path:',
      `  cold (first request, total): ${formatCalls(coldCalls, 0)}`,
      `  warm-up (per request):       ${formatCalls(warmupCalls, 4)}`,
      `  steady (per request):        ${formatCalls(steadyCalls, 4)}`,
      `  bare route (per request):    ${formatCalls(bareCalls, 4)}`,
      `  steady-state GetItem bursts (calls per refresh): ${
        Object.entries(refreshBursts)
          .map(([item, sizes]) => `${item} [${sizes.join(', ')}]`)
          .join('; ') || 'none'
      }`,
      formatCpu(cpuShare),
      failures > 0 ? `FAILURES: ${failures} requests did not answer 200` : 'all requests answered 200',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);

    const json = {
      benchmark: 'disposable-pipeline',
      node: process.version,
      concurrency: STANDARD_RUN.concurrency,
      warmupPerTarget: STANDARD_RUN.warmup.perTarget,
      measuredPerTarget: STANDARD_RUN.measured.perTarget,
      rounds: STANDARD_RUN.measured.rounds,
      keyCacheSeconds: config.KEY_CACHE_SECONDS,
      measuredSeconds: round(measuredSeconds, 2),
      results: Object.fromEntries(
        Object.entries(results).map(([name, result]) => [
          name,
          {
            requestsPerSecond: round(result.requestsPerSecond, 0),
            p50Ms: round(result.p50Ms, 3),
            p99Ms: round(result.p99Ms, 3),
            meanMs: round(result.meanMs, 3),
            coldMs: cold.has(name as TargetName)
              ? round(cold.get(name as TargetName) as number, 1)
              : undefined,
          },
        ]),
      ),
      ratio: {
        requestsPerSecond: round(ratio.requestsPerSecond, 4),
        p50: round(ratio.p50, 2),
        p99: round(ratio.p99, 2),
      },
      dynamoCalls: {
        cold: coldCalls,
        steadyPerRequest: {
          reads: round(steadyCalls.reads, 4),
          writes: round(steadyCalls.writes, 4),
          byCommand: Object.fromEntries(
            Object.entries(steadyCalls.byCommand).map(([command, value]) => [command, round(value, 4)]),
          ),
          byItem: Object.fromEntries(
            Object.entries(steadyCalls.byItem).map(([label, value]) => [label, round(value, 4)]),
          ),
          getItemBursts: refreshBursts,
        },
      },
      cpuDuringMeasured: {
        ownPercent: round(cpuShare.ownPercent, 1),
        othersPercent: cpuShare.othersPercent === undefined ? undefined : round(cpuShare.othersPercent, 1),
      },
      failures,
    };
    process.stdout.write(`${JSON.stringify(json)}\n`);
    if (failures > 0) process.exitCode = 1;
  } finally {
    await bench.close();
  }
}

await main();
