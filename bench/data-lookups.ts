/**
 * Benchmark (`npm run bench`, second part): billed data lookups on the default (embedded sample)
 * dataset. Each lookup runs through the whole pipeline (the real app from createService with every
 * runner, dynalite in this process, a real clock, an account with ample credits and a rate limit
 * that never denies) and, in the same run, as the bare DatasetSource call the runner makes (no HTTP,
 * no pipeline), so the table shows how much of a request is the lookup itself. Targets run at a
 * fixed concurrency, interleaved in rounds so machine noise hits all alike. Prints requests/s,
 * p50/p99 latency, pipeline/direct ratios and the DynamoDB calls per billed request, then a one-line
 * JSON summary. Results: docs/benchmarks.md.
 */
import { PAGE_SIZE } from '../shared/paging/pages.js';
import { datasetFixtures } from '../shared/sources/dataset/fixtures.js';
import { datasetSource } from '../shared/sources/dataset/open-dataset.js';
import { startBenchService } from './bench-service.js';
import { bursts, type CallCount, countDynamoCalls } from './dynamo-call-counter.js';
import {
  BENCH_ORIGIN,
  type CallSummary,
  describeMachine,
  formatCalls,
  formatCpu,
  type LatencyStats,
  pad,
  round,
  roundCalls,
  type Sample,
  STANDARD_RUN,
  stats,
  summarizeCalls,
  type Target,
  warmUpAndMeasure,
} from './measure.js';

const CREDITS = 10_000_000;

interface Lookup {
  key: string;
  operationId: string;
  /** Path and query of the request through the pipeline. */
  path: string;
  /** The DatasetSource call the operation's runner makes for that request. */
  direct(signal: AbortSignal): Promise<unknown>;
  /** Identifiers of the records answered, from the public body's data or from the direct result. */
  idsFromBody(data: unknown): string[];
  idsFromDirect(result: unknown): string[];
}

const withQuery = (path: string, query: Record<string, string>) =>
  `${path}?${new URLSearchParams(query).toString()}`;

function lookups(): Lookup[] {
  const source = datasetSource(undefined);
  const { richProfile, broadCompanyKeyword, peopleNarrowing } = datasetFixtures;
  const usernames = (list: unknown) => (list as { username: string }[]).map((person) => person.username);
  const slugs = (list: unknown) => (list as { slug: string }[]).map((company) => company.slug);
  return [
    {
      key: 'profile-details',
      operationId: 'profiles.details',
      path: withQuery('/v1/profiles/details/by-username', { username: richProfile.username }),
      direct: (signal) => source.profileDetails({ username: richProfile.username }, signal),
      idsFromBody: (data) => [(data as { username: string }).username],
      idsFromDirect: (result) => [(result as { profile: { username: string } }).profile.username],
    },
    {
      key: 'company-search',
      operationId: 'companies.search',
      path: withQuery('/v1/companies/search', { keywords: broadCompanyKeyword, offset: '0' }),
      direct: (signal) =>
        source.searchCompanies({ keywords: broadCompanyKeyword }, { start: 0, count: PAGE_SIZE }, signal),
      idsFromBody: (data) => slugs((data as { companies: unknown }).companies),
      idsFromDirect: (result) => slugs((result as { items: unknown }).items),
    },
    {
      key: 'people-search',
      operationId: 'search.people',
      path: withQuery('/v1/search/people', { keywords: peopleNarrowing.keywords }),
      direct: (signal) => source.searchPeople({ keywords: peopleNarrowing.keywords }, signal),
      idsFromBody: (data) => usernames((data as { people: unknown }).people),
      idsFromDirect: usernames,
    },
    {
      key: 'people-search+company',
      operationId: 'search.people',
      path: withQuery('/v1/search/people', {
        keywords: peopleNarrowing.keywords,
        currentCompany: peopleNarrowing.currentCompany,
      }),
      direct: (signal) =>
        source.searchPeople(
          { keywords: peopleNarrowing.keywords, currentCompany: peopleNarrowing.currentCompany },
          signal,
        ),
      idsFromBody: (data) => usernames((data as { people: unknown }).people),
      idsFromDirect: usernames,
    },
  ];
}

/** The per-request figures of a pipeline row against its direct row. */
function compare(pipeline: LatencyStats, direct: LatencyStats) {
  const pipelineMsPerRequest = 1000 / pipeline.requestsPerSecond;
  const directMsPerRequest = 1000 / direct.requestsPerSecond;
  return {
    requestsPerSecond: pipeline.requestsPerSecond / direct.requestsPerSecond,
    p50: pipeline.p50Ms / direct.p50Ms,
    p99: pipeline.p99Ms / direct.p99Ms,
    /** Share of the pipeline's time per request (1 / throughput) that the lookup itself accounts for. */
    lookupShare: directMsPerRequest / pipelineMsPerRequest,
    /** Time per request the pipeline adds to the lookup. */
    pipelineAddsMs: pipelineMsPerRequest - directMsPerRequest,
  };
}

/** Adds the counts of several phases together (same command and item). */
function mergeCounts(lists: readonly CallCount[][]): CallCount[] {
  const merged = new Map<string, CallCount>();
  for (const { command, item, count, startedAtMs, spansMs } of lists.flat()) {
    const label = `${command} ${item}`;
    const entry: CallCount = merged.get(label) ?? { command, item, count: 0, startedAtMs: [], spansMs: [] };
    entry.count += count;
    entry.startedAtMs.push(...startedAtMs);
    entry.spansMs.push(...spansMs);
    merged.set(label, entry);
  }
  return [...merged.values()];
}

async function main(): Promise<void> {
  const machineAtStart = describeMachine();
  const bench = await startBenchService({
    env: { KEY_CACHE_SECONDS: process.env.KEY_CACHE_SECONDS },
    credits: CREDITS,
  });
  // Counted per phase, so provisioning's writes before this point are not part of any figure.
  const counter = countDynamoCalls(bench.table);
  const { service, config, account, apiKey } = bench;
  try {
    const signal = new AbortController().signal;
    const all = lookups();
    const prices = new Map(service.operations.map((operation) => [operation.definition.id, operation.price]));
    const priceOf = (lookup: Lookup) => prices.get(lookup.operationId) as number;
    const fetchPipeline = async (lookup: Lookup) => {
      const response = await service.app.fetch(
        new Request(`${BENCH_ORIGIN}${lookup.path}`, { headers: { Authorization: `Bearer ${apiKey}` } }),
      );
      return { status: response.status, text: await response.text() };
    };
    const pipelineTargets: Target[] = all.map((lookup) => ({
      name: `pipeline:${lookup.key}`,
      async send() {
        return (await fetchPipeline(lookup)).status;
      },
    }));
    const directTargets: Target[] = all.map((lookup) => ({
      name: `direct:${lookup.key}`,
      async send() {
        await lookup.direct(signal);
        return 200;
      },
    }));
    const targets = [...pipelineTargets, ...directTargets];

    // Cold: the first request of each target alone (empty key cache, first route match, cold JIT),
    // which is also the check that both paths answer the same records.
    const cold = new Map<string, number>();
    const answers = new Map<string, { items: number; bodyBytes: number }>();
    for (const lookup of all) {
      const name = `pipeline:${lookup.key}`;
      counter.setPhase(`cold:${name}`);
      const begin = performance.now();
      const { status, text } = await fetchPipeline(lookup);
      cold.set(name, performance.now() - begin);
      await counter.drain();
      if (status !== 200) throw new Error(`cold ${name} request answered ${status}: ${text}`);
      const direct = await lookup.direct(signal);
      const fromBody = lookup.idsFromBody((JSON.parse(text) as { data: unknown }).data);
      const fromDirect = lookup.idsFromDirect(direct);
      if (fromBody.join(',') !== fromDirect.join(',')) {
        throw new Error(`${lookup.key}: pipeline answered [${fromBody}], the source [${fromDirect}]`);
      }
      answers.set(lookup.key, { items: fromBody.length, bodyBytes: Buffer.byteLength(text) });
    }
    for (const target of directTargets) {
      // The check above already called each lookup once; this is its first timed call.
      const begin = performance.now();
      await target.send();
      cold.set(target.name, performance.now() - begin);
    }
    counter.setPhase('idle');

    const { warmup, measured, measuredSeconds, cpuShare } = await warmUpAndMeasure(targets, {
      ...STANDARD_RUN,
      counter,
    });

    const results = new Map(
      targets.map((target) => [target.name, stats(measured.get(target.name) as Sample)]),
    );
    const resultOf = (name: string) => results.get(name) as LatencyStats;
    const failures =
      [...results.values()].reduce((sum, result) => sum + result.failures, 0) +
      [...warmup.values()].reduce((sum, sample) => sum + sample.failures, 0);

    // DynamoDB calls of billed requests: the cold first request (fills the key cache), each lookup's
    // steady state, and all billed lookups together (key-cache and closed-window refreshes are
    // shared by the lookups, so they land in whichever lookup's round was running).
    const firstColdCalls = summarizeCalls(counter.counts(`cold:pipeline:${all[0]?.key}`), 1);
    const laterColdCalls = summarizeCalls(
      mergeCounts(all.slice(1).map((lookup) => counter.counts(`cold:pipeline:${lookup.key}`))),
      all.length - 1,
    );
    const steadyByLookup = new Map(
      all.map((lookup) => [
        lookup.key,
        summarizeCalls(counter.counts(`measured:pipeline:${lookup.key}`), STANDARD_RUN.measured.perTarget),
      ]),
    );
    const steadyCounts = mergeCounts(all.map((lookup) => counter.counts(`measured:pipeline:${lookup.key}`)));
    const steadyCalls = summarizeCalls(steadyCounts, STANDARD_RUN.measured.perTarget * all.length);
    const warmupCalls = summarizeCalls(
      mergeCounts(all.map((lookup) => counter.counts(`warmup:pipeline:${lookup.key}`))),
      STANDARD_RUN.warmup.perTarget * all.length,
    );
    const directCalls = summarizeCalls(
      mergeCounts(all.map((lookup) => counter.counts(`measured:direct:${lookup.key}`))),
      STANDARD_RUN.measured.perTarget * all.length,
    );
    const refreshBursts = Object.fromEntries(
      steadyCounts
        .filter(({ command }) => command === 'GetItem')
        .map(({ item, startedAtMs }) => [item, bursts(startedAtMs)]),
    ) as Record<string, number[]>;

    // Billing held under load: every credit charged once, nothing left in flight.
    const charged = all.reduce(
      (sum, lookup) =>
        sum + priceOf(lookup) * (1 + STANDARD_RUN.warmup.perTarget + STANDARD_RUN.measured.perTarget),
      0,
    );
    const balance = await service.repositories.ledger.state(account.accountId);
    const balanceCheck = {
      expected: CREDITS - charged,
      actual: balance.balance,
      inflight: balance.pending.length,
    };
    const balanceOk = balanceCheck.expected === balanceCheck.actual && balanceCheck.inflight === 0;
    const machineAtEnd = describeMachine();

    const comparisons = new Map(
      all.map((lookup) => [
        lookup.key,
        compare(resultOf(`pipeline:${lookup.key}`), resultOf(`direct:${lookup.key}`)),
      ]),
    );
    const widths = [30, 9, 8, 7, 8, 8, 8, 8];
    const row = (label: string, result: LatencyStats, coldMs: number | undefined) =>
      pad(
        [
          label,
          String(result.requests),
          result.requestsPerSecond.toFixed(0),
          (1000 / result.requestsPerSecond).toFixed(3),
          result.p50Ms.toFixed(3),
          result.p99Ms.toFixed(3),
          result.meanMs.toFixed(3),
          coldMs === undefined ? '-' : coldMs.toFixed(1),
        ],
        widths,
      );
    const lines = [
      `Data lookups on the sample dataset: pipeline vs direct DatasetSource call (node ${process.version}, ` +
        `${machineAtStart.nproc} CPUs ${machineAtStart.cpuModel}, ${machineAtStart.memoryGiB} GiB, ` +
        `concurrency ${STANDARD_RUN.concurrency}, ${STANDARD_RUN.warmup.perTarget} warm-up + ${STANDARD_RUN.measured.perTarget} measured per target ` +
        `in ${STANDARD_RUN.measured.rounds} interleaved rounds, KEY_CACHE_SECONDS ${config.KEY_CACHE_SECONDS}, ` +
        `measured phase ${measuredSeconds.toFixed(1)} s, load average ${machineAtStart.loadAverage.join('/')} ` +
        `at start, ${machineAtEnd.loadAverage.join('/')} at end)`,
      '',
      pad(['target', 'requests', 'req/s', 'ms/req', 'p50 ms', 'p99 ms', 'mean ms', 'cold ms'], widths),
    ];
    for (const lookup of all) {
      const pipelineName = `pipeline:${lookup.key}`;
      const directName = `direct:${lookup.key}`;
      const ratio = comparisons.get(lookup.key) as ReturnType<typeof compare>;
      const answer = answers.get(lookup.key) as { items: number; bodyBytes: number };
      lines.push(
        `GET ${lookup.path} (${lookup.operationId}, ${priceOf(lookup)} credit${priceOf(lookup) === 1 ? '' : 's'}, ` +
          `${answer.items} records, ${answer.bodyBytes} bytes)`,
        row(pipelineName, resultOf(pipelineName), cold.get(pipelineName)),
        row(directName, resultOf(directName), cold.get(directName)),
        pad(
          [
            'pipe/direct',
            '',
            `${ratio.requestsPerSecond.toFixed(3)}x`,
            `+${ratio.pipelineAddsMs.toFixed(3)}`,
            `${ratio.p50.toFixed(1)}x`,
            `${ratio.p99.toFixed(1)}x`,
            '',
            '',
          ],
          widths,
        ),
        `  the lookup itself is ${(ratio.lookupShare * 100).toFixed(1)}% of the pipeline's time per request`,
      );
    }
    lines.push(
      '',
      '(ms/req = 1000 / req/s: time per request at full load, all of it on this one thread including dynalite;',
      ' pipe/direct ms/req = what the pipeline adds per request; p50/p99 at concurrency 8 include queueing)',
      '',
      'DynamoDB calls of billed requests (pipeline targets):',
      `  first request (cold, total):             ${formatCalls(firstColdCalls, 0)}`,
      `  other lookups' first requests (each):    ${formatCalls(laterColdCalls, 0)}`,
      `  warm-up (per request, all lookups):      ${formatCalls(warmupCalls, 4)}`,
      `  steady (per request, all lookups):       ${formatCalls(steadyCalls, 4)}`,
      ...all.map(
        (lookup) =>
          `  steady ${lookup.key.padEnd(22)}    ${formatCalls(steadyByLookup.get(lookup.key) as CallSummary, 4)}`,
      ),
      `  direct calls (per call):                 ${formatCalls(directCalls, 4)}`,
      `  steady-state GetItem bursts (calls per refresh): ${
        Object.entries(refreshBursts)
          .map(([item, sizes]) => `${item} [${sizes.join(', ')}]`)
          .join('; ') || 'none'
      }`,
      `balance after the run: ${balanceCheck.actual} (expected ${balanceCheck.expected}), ` +
        `${balanceCheck.inflight} debits in flight${balanceOk ? '' : ' — BILLING MISMATCH'}`,
      formatCpu(cpuShare),
      failures > 0 ? `FAILURES: ${failures} requests did not answer 200` : 'all requests answered 200',
    );
    process.stdout.write(`${lines.join('\n')}\n`);

    const json = {
      benchmark: 'data-lookups',
      machine: { ...machineAtStart, loadAverageAtEnd: machineAtEnd.loadAverage },
      concurrency: STANDARD_RUN.concurrency,
      warmupPerTarget: STANDARD_RUN.warmup.perTarget,
      measuredPerTarget: STANDARD_RUN.measured.perTarget,
      rounds: STANDARD_RUN.measured.rounds,
      keyCacheSeconds: config.KEY_CACHE_SECONDS,
      measuredSeconds: round(measuredSeconds, 2),
      lookups: Object.fromEntries(
        all.map((lookup) => {
          const view = (name: string) => {
            const result = resultOf(name);
            return {
              requestsPerSecond: round(result.requestsPerSecond, 0),
              msPerRequest: round(1000 / result.requestsPerSecond, 4),
              p50Ms: round(result.p50Ms, 4),
              p99Ms: round(result.p99Ms, 4),
              meanMs: round(result.meanMs, 4),
              coldMs: round(cold.get(name) as number, 2),
            };
          };
          const ratio = comparisons.get(lookup.key) as ReturnType<typeof compare>;
          return [
            lookup.key,
            {
              path: lookup.path,
              price: priceOf(lookup),
              ...answers.get(lookup.key),
              pipeline: view(`pipeline:${lookup.key}`),
              direct: view(`direct:${lookup.key}`),
              ratio: {
                requestsPerSecond: round(ratio.requestsPerSecond, 4),
                p50: round(ratio.p50, 2),
                p99: round(ratio.p99, 2),
                lookupShare: round(ratio.lookupShare, 4),
                pipelineAddsMs: round(ratio.pipelineAddsMs, 3),
              },
            },
          ];
        }),
      ),
      dynamoCalls: {
        coldFirstRequest: firstColdCalls,
        steadyPerBilledRequest: { ...roundCalls(steadyCalls, 4), getItemBursts: refreshBursts },
        steadyWritesByLookup: Object.fromEntries(
          [...steadyByLookup].map(([key, summary]) => [key, round(summary.writes, 4)]),
        ),
        directPerCall: roundCalls(directCalls, 4),
      },
      balanceCheck,
      cpuDuringMeasured: {
        ownPercent: round(cpuShare.ownPercent, 1),
        othersPercent: cpuShare.othersPercent === undefined ? undefined : round(cpuShare.othersPercent, 1),
      },
      failures,
    };
    process.stdout.write(`${JSON.stringify(json)}\n`);
    if (failures > 0 || !balanceOk) process.exitCode = 1;
  } finally {
    await bench.close();
  }
}

await main();
