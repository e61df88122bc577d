/**
 * Benchmark (`npm run bench`, last part): one lookup through MCP `tools/call`, in the 2025 era and in
 * the 2026-07-28 era, against the same lookup through REST, in the same run (the real app from createService, dynalite in this process, requests
 * through `app.fetch`, interleaved rounds at a fixed concurrency), as a ratio; `tools/list` timed the
 * same way; and the size of the `tools/list` answer in characters and in tokens (roughly chars / 4)
 * for all tools and for filtered connections. Results: docs/benchmarks.md.
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

const PROTOCOL_VERSION = '2025-06-18';
const MODERN_VERSION = '2026-07-28';
/** The `_meta` envelope a 2026-era request carries. */
const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};
/** Filters whose tools/list size is reported besides the full list. */
const FILTERS = [
  '',
  '?toolsets=profiles,companies',
  '?toolsets=search',
  '?tools=get_profile_details',
  '?toolsets=discover',
];

async function main(): Promise<void> {
  const machineAtStart = describeMachine();
  const bench = await startBenchService({ credits: 100_000_000 });
  const counter = countDynamoCalls(bench.table);
  const { service, apiKey } = bench;
  const username = datasetFixtures.richProfile.username;
  const auth = { Authorization: `Bearer ${apiKey}` };
  const mcpHeaders = {
    ...auth,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL_VERSION,
  };
  const rpc = (method: string, params: unknown, query = '') =>
    service.app.fetch(
      new Request(`${BENCH_ORIGIN}/mcp${query}`, {
        method: 'POST',
        headers: mcpHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }),
    );
  const modernRpc = (method: string, params: { name: string; arguments: unknown }) =>
    service.app.fetch(
      new Request(`${BENCH_ORIGIN}/mcp`, {
        method: 'POST',
        headers: {
          ...mcpHeaders,
          'MCP-Protocol-Version': MODERN_VERSION,
          'Mcp-Method': method,
          'Mcp-Name': params.name,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: { ...params, _meta: MODERN_ENVELOPE },
        }),
      }),
    );
  try {
    const targets: Target[] = [
      {
        name: 'rest',
        async send() {
          const response = await service.app.fetch(
            new Request(`${BENCH_ORIGIN}/v1/profiles/details/by-username?username=${username}`, {
              headers: auth,
            }),
          );
          await response.text();
          return response.status;
        },
      },
      {
        name: 'tools/call',
        async send() {
          const response = await rpc('tools/call', { name: 'get_profile_details', arguments: { username } });
          const body = (await response.json()) as { result?: { isError?: boolean } };
          return body.result && !body.result.isError ? response.status : 0;
        },
      },
      {
        name: 'tools/call 2026',
        async send() {
          const response = await modernRpc('tools/call', {
            name: 'get_profile_details',
            arguments: { username },
          });
          const body = (await response.json()) as { result?: { isError?: boolean; resultType?: string } };
          return body.result?.resultType === 'complete' && !body.result.isError ? response.status : 0;
        },
      },
      {
        name: 'tools/list',
        async send() {
          const response = await rpc('tools/list', {});
          await response.text();
          return response.status;
        },
      },
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

    const sizes = [];
    for (const filter of FILTERS) {
      const body = (await (await rpc('tools/list', {}, filter)).json()) as { result: { tools: unknown[] } };
      const chars = JSON.stringify(body.result.tools).length;
      sizes.push({
        filter: filter || '(none)',
        tools: body.result.tools.length,
        chars,
        tokens: Math.round(chars / 4),
      });
    }

    const ratio = printSideBySide(results, 'rest', 'tools/call', 2);
    const modernRatio = printSideBySide(results, 'rest', 'tools/call 2026', 2);
    console.log(formatCpu(cpuShare));
    console.log('tools/list sizes (the tools array as JSON; tokens ≈ chars / 4):');
    for (const size of sizes)
      console.log(`  ${size.filter}: ${size.tools} tools, ${size.chars} chars, ~${size.tokens} tokens`);
    console.log(
      JSON.stringify({
        machine: machineAtStart,
        results: Object.fromEntries(results),
        ratio,
        modernRatio,
        sizes,
        cpuShare,
      }),
    );
  } finally {
    await bench.close();
  }
}

await main();
