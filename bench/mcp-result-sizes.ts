/**
 * Benchmark (`npm run bench:mcp-sizes`): the largest result every MCP tool can produce on a large
 * dataset, against the bound on a tool result's size (text block plus `structuredContent`). The
 * dataset database is BENCH_MCP_SIZES_DATASET when set, else one of BENCH_MCP_SIZES_PROFILES profiles
 * (default 1,000,000) generated and imported under BENCH_DATASET_DIR (kept with BENCH_KEEP=1).
 * largest-inputs.ts scans it for each tool's candidate inputs; each candidate is then called through
 * the real service's `/mcp` `tools/call` (in-process, `app.fetch`), its REST twin checked on the
 * winner. The account tools get the worst case an account can build: usage rows for every lookup
 * operation on every day of the longest range, and a full ledger page; one more row is the largest
 * refusal (an error detail per unknown argument, as many as the body cap lets in). Prints a table sorted by size
 * and a JSON summary. Results: docs/benchmarks.md.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalog } from '../schemas/catalog.js';
import { MAX_USAGE_DAYS } from '../schemas/operations/account.js';
import { startBenchService } from './bench-service.js';
import { buildDataset } from './dataset-build.js';
import { type Candidate, findLargestInputs, type ItemKind, type ToolArguments } from './largest-inputs.js';
import { BENCH_ORIGIN, describeMachine, round } from './measure.js';

/** The bound on a tool result: characters of the text block and of `structuredContent` together. */
const RESULT_BOUND = 64_000;
/** Room for the text block's lines besides the body's JSON (the cost line and the like). */
const TEXT_LINES_ALLOWANCE = 200;
/** Characters per token for JSON: a rough estimate, not a tokenizer's count. */
const CHARS_PER_TOKEN = 3.5;
const CANDIDATES_PER_TOOL = 5;
const PROTOCOL_VERSION = '2025-06-18';
const DAY_MS = 86_400_000;

/** Searches and similar lists rank by relevance: their page is bounded by 10 of the largest item. */
const PAGE_CEILINGS: Record<string, ItemKind[]> = {
  search_people_by_keyword: ['person'],
  get_similar_profiles: ['person'],
  search_companies_by_keyword: ['company'],
  search_companies_by_domain: ['company'],
  get_similar_companies: ['company'],
  search_posts_by_keyword: ['post'],
  search_all_results_by_keyword: ['person', 'company', 'school', 'post', 'job'],
  search_jobs: ['job'],
  search_schools_by_keyword: ['school'],
  search_locations_by_keyword: ['location'],
  search_industries_by_keyword: ['industry'],
};

interface Measured {
  tool: string;
  input: string;
  bodyChars: number;
  textChars: number;
  resultChars: number;
  tokens: number;
  restBodyChars?: number;
  /** Upper bound of a ranked page: the answer's envelope plus 10 of the largest item of its kind. */
  ceilingResultChars?: number;
}

interface CallAnswer {
  body: Record<string, unknown>;
  text: string;
  isError: boolean;
}

function datasetFile(): string {
  const given = process.env.BENCH_MCP_SIZES_DATASET;
  if (given) return given;
  const profiles = Number(process.env.BENCH_MCP_SIZES_PROFILES ?? 1_000_000);
  const base = process.env.BENCH_DATASET_DIR ?? join(tmpdir(), 'lookup-dataset-bench');
  mkdirSync(base, { recursive: true });
  const built = buildDataset(profiles, base);
  console.log(
    `built ${profiles} profiles: generate ${built.generateSeconds} s, import ${built.importSeconds} s`,
  );
  if (process.env.BENCH_KEEP !== '1') rmSync(built.dir, { recursive: true, force: true });
  return built.file;
}

/**
 * The result's characters as an agent receives them: the text block (at least the body's JSON plus
 * room for its other lines) and the serialized `structuredContent`.
 */
function resultChars(bodyChars: number, textChars: number): number {
  return Math.max(textChars, bodyChars + TEXT_LINES_ALLOWANCE) + bodyChars;
}

/** The items of a list answer: the first array in `data`. */
function listItems(body: Record<string, unknown>): unknown[] | undefined {
  const data = body.data as Record<string, unknown> | undefined;
  return data && typeof data === 'object'
    ? (Object.values(data).find(Array.isArray) as unknown[] | undefined)
    : undefined;
}

const describe = (args: ToolArguments, pagesToSkip = 0) =>
  Object.entries(args)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ') + (pagesToSkip > 0 ? ` (page ${pagesToSkip + 1}, by cursor)` : '');

async function main(): Promise<void> {
  const machine = describeMachine();
  const file = datasetFile();
  const scanStarted = performance.now();
  const { candidates, largestItem } = findLargestInputs(file, CANDIDATES_PER_TOOL);
  const scanSeconds = round((performance.now() - scanStarted) / 1000, 1);
  console.log(`scanned ${file} for candidate inputs in ${scanSeconds} s`);

  // Calls go one at a time: reader threads would add a message round trip and nothing else.
  const bench = await startBenchService({
    credits: 1_000_000_000,
    env: { DATASET: file, DATASET_READER_THREADS: '0' },
  });
  const { service, apiKey, account } = bench;
  const auth = { Authorization: `Bearer ${apiKey}` };
  const callTool = async (tool: string, args: ToolArguments): Promise<CallAnswer> => {
    const response = await service.app.fetch(
      new Request(`${BENCH_ORIGIN}/mcp?tools=${tool}`, {
        method: 'POST',
        headers: {
          ...auth,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': PROTOCOL_VERSION,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: tool, arguments: args },
        }),
      }),
    );
    const rpc = (await response.json()) as {
      result?: { structuredContent: Record<string, unknown>; content: { text: string }[]; isError?: boolean };
      error?: unknown;
    };
    if (!rpc.result) throw new Error(`${tool} ${JSON.stringify(args)}: ${JSON.stringify(rpc.error)}`);
    return {
      body: rpc.result.structuredContent,
      text: rpc.result.content.map((block) => block.text).join('\n'),
      isError: rpc.result.isError === true,
    };
  };
  /** Follows `nextCursor` `pagesToSkip` times, then answers that page and the arguments that fetched it. */
  const callPage = async (tool: string, { args, pagesToSkip = 0 }: Candidate) => {
    let pageArgs = args;
    let answer = await callTool(tool, pageArgs);
    for (let page = 0; page < pagesToSkip; page += 1) {
      const cursor = (answer.body.meta as { paging?: { nextCursor?: string | null } }).paging?.nextCursor;
      if (!cursor) break;
      pageArgs = { ...args, cursor };
      answer = await callTool(tool, pageArgs);
    }
    return { answer, pageArgs };
  };
  const operationOf = new Map(
    catalog.flatMap((operation) => {
      const tool: string | undefined = 'mcpTool' in operation ? operation.mcpTool : undefined;
      return tool === undefined ? [] : [[tool, operation] as const];
    }),
  );
  /** The REST body of the same input (a cursor of /mcp is good for REST too), for the REST column. */
  const restBodyChars = async (tool: string, args: ToolArguments) => {
    const operation = operationOf.get(tool);
    if (!operation) return undefined;
    const variant =
      operation.variants.find((v) => 'identifier' in v && Object.hasOwn(args, v.identifier as string)) ??
      operation.variants[0];
    const query = new URLSearchParams(Object.entries(args).map(([name, value]) => [name, String(value)]));
    const response = await service.app.fetch(
      new Request(`${BENCH_ORIGIN}${variant?.path}?${query}`, { headers: auth }),
    );
    return response.status === 200 ? (await response.text()).length : undefined;
  };

  try {
    // The account's worst case: one usage row per lookup operation and day of the longest range.
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const lookups = catalog.filter((operation) => !('metering' in operation));
    for (let day = 0; day < MAX_USAGE_DAYS; day += 1) {
      const at = new Date(today - day * DAY_MS + 3_600_000).toISOString();
      await Promise.all(
        lookups.map((operation, index) =>
          service.repositories.ledger.recordUsage({
            requestId: `req_bench_${day}_${index}`,
            accountId: account.accountId,
            operation: operation.id,
            cost: 1_000,
            transport: (['rest', 'mcp', 'v2'] as const)[index % 3],
            status: index % 2 ? 'charged' : 'refunded',
            refundReason: index % 2 ? undefined : 'resource_not_found',
            httpStatus: index % 2 ? 200 : 404,
            createdAt: at,
            settledAt: at,
          }),
        ),
      );
    }
    const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);
    candidates.set('get_account', [{ args: {} }]);
    candidates.set('get_account_usage', [
      { args: { from: isoDay(today - (MAX_USAGE_DAYS - 1) * DAY_MS), to: isoDay(today) } },
    ]);
    const seeded = `${MAX_USAGE_DAYS} days × ${lookups.length} lookup operations seeded`;
    candidates.set('get_account_ledger', [{ args: {} }]);

    const results: Measured[] = [];
    for (const tool of operationOf.keys()) {
      let largest:
        | { candidate: Candidate; answer: CallAnswer; pageArgs: ToolArguments; bodyChars: number }
        | undefined;
      for (const candidate of candidates.get(tool) ?? []) {
        const { answer, pageArgs } = await callPage(tool, candidate);
        const bodyChars = JSON.stringify(answer.body).length;
        if (!answer.isError && bodyChars > (largest?.bodyChars ?? -1))
          largest = { candidate, answer, pageArgs, bodyChars };
      }
      if (!largest) {
        console.log(`${tool}: no candidate answered without an error`);
        continue;
      }
      const { candidate, answer, pageArgs, bodyChars } = largest;
      const measured: Measured = {
        tool,
        input:
          describe(candidate.args, candidate.pagesToSkip) +
          (tool === 'get_account_usage' ? ` (${seeded})` : ''),
        bodyChars,
        textChars: answer.text.length,
        resultChars: resultChars(bodyChars, answer.text.length),
        tokens: 0,
        restBodyChars: await restBodyChars(tool, pageArgs),
      };
      measured.tokens = Math.round(measured.resultChars / CHARS_PER_TOKEN);
      const kinds = PAGE_CEILINGS[tool];
      const items = listItems(answer.body);
      if (kinds && items) {
        const envelope = bodyChars - JSON.stringify(items).length;
        const largestOfKinds = Math.max(...kinds.map((kind) => largestItem.get(kind) ?? 0));
        const ceilingBody = envelope + 10 * largestOfKinds + 9;
        measured.ceilingResultChars = resultChars(ceilingBody, ceilingBody);
      }
      results.push(measured);
    }

    // The largest refusal: as many unknown arguments as the request body cap (256 KB) lets in, each
    // a detail of the error (the text block repeats each detail besides the body's JSON).
    const unknown: ToolArguments = { username: 'amelia-hartmann' };
    for (let i = 0; i < 2_000; i += 1) unknown[`u${'p'.repeat(100)}${i}`] = 'v';
    const refusal = await callTool('get_profile_details', unknown);
    const refusalBody = JSON.stringify(refusal.body).length;
    results.push({
      tool: '(any tool, refused)',
      input: 'get_profile_details with 2,000 unknown 102-character arguments',
      bodyChars: refusalBody,
      textChars: refusal.text.length,
      resultChars: resultChars(refusalBody, refusal.text.length),
      tokens: Math.round(resultChars(refusalBody, refusal.text.length) / CHARS_PER_TOKEN),
    });

    results.sort((a, b) => b.resultChars - a.resultChars);
    console.log(
      `\nLargest result per tool (result = text block + structuredContent; tokens ≈ chars / ${CHARS_PER_TOKEN}, an estimate; bound ${RESULT_BOUND})`,
    );
    console.log('| tool | input | body chars | REST body | result chars | ≈ tokens | bound | page ceiling |');
    console.log('|---|---|---|---|---|---|---|---|');
    const format = (value: number | undefined) => (value === undefined ? '–' : value.toLocaleString('en'));
    for (const r of results) {
      const verdict =
        r.resultChars > RESULT_BOUND ? `**over** by ${format(r.resultChars - RESULT_BOUND)}` : 'under';
      const ceiling =
        r.ceilingResultChars === undefined
          ? ''
          : `${format(r.ceilingResultChars)}${r.ceilingResultChars > RESULT_BOUND ? ' (over)' : ''}`;
      console.log(
        `| ${r.tool} | ${r.input} | ${format(r.bodyChars)} | ${format(r.restBodyChars)} | ${format(r.resultChars)} | ${format(r.tokens)} | ${verdict} | ${ceiling} |`,
      );
    }
    console.log(
      JSON.stringify({
        benchmark: 'mcp-result-sizes',
        machine,
        dataset: file,
        scanSeconds,
        bound: RESULT_BOUND,
        largestItem: Object.fromEntries(largestItem),
        results,
      }),
    );
  } finally {
    await bench.close();
  }
}

await main();
