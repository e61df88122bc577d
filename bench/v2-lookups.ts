/**
 * Benchmark (`npm run bench`, last part): one lookup through /api/v2 against the same lookup through
 * v1 REST, in the same run (the real app from createService, dynalite in this process, requests
 * through `app.fetch`, interleaved rounds at a fixed concurrency), as a ratio. Results:
 * docs/benchmarks.md.
 */
import { datasetFixtures } from '../shared/sources/dataset/fixtures.js';
import { startBenchService } from './bench-service.js';
import { countDynamoCalls } from './dynamo-call-counter.js';
import {
  BENCH_ORIGIN,
  describeMachine,
  formatCpu,
  printSideBySide,
  type Sample,
  STANDARD_RUN,
  stats,
  type Target,
  warmUpAndMeasure,
} from './measure.js';

async function main(): Promise<void> {
  const machineAtStart = describeMachine();
  const bench = await startBenchService({ credits: 100_000_000 });
  const counter = countDynamoCalls(bench.table);
  const { service, apiKey } = bench;
  const username = datasetFixtures.richProfile.username;
  const lookup = (path: string, headers: Record<string, string>): Target['send'] =>
    async function send() {
      const response = await service.app.fetch(new Request(`${BENCH_ORIGIN}${path}`, { headers }));
      await response.text();
      return response.status;
    };
  try {
    const targets: Target[] = [
      {
        name: 'v1',
        send: lookup(`/v1/profiles/details/by-username?username=${username}`, {
          Authorization: `Bearer ${apiKey}`,
        }),
      },
      { name: 'v2', send: lookup(`/api/v2/profiles/${username}`, { 'X-API-Key': apiKey }) },
    ];
    for (const target of targets) {
      if ((await target.send()) !== 200) throw new Error(`${target.name} does not answer 200`);
    }

    const { measured, cpuShare } = await warmUpAndMeasure(targets, {
      ...STANDARD_RUN,
      counter,
    });
    const results = new Map(
      targets.map((target) => [target.name, stats(measured.get(target.name) as Sample)]),
    );

    const ratio = printSideBySide(results, 'v1', 'v2', 3);
    console.log(formatCpu(cpuShare));
    console.log(
      JSON.stringify({
        machine: machineAtStart,
        results: Object.fromEntries(results),
        ratio,
        cpuShare,
      }),
    );
  } finally {
    await bench.close();
  }
}

await main();
