/**
 * `npm run bench` (website part): a warm GET /v1/websites/text through the whole pipeline (billing,
 * the per-host slot, the egress proxy, request interception, a fresh browser context per request,
 * rule-3 extraction) against bare puppeteer doing the same work: the same loopback page, a fresh
 * context per request, `goto` until `load`, then the same network-idle wait the service does
 * (shared/websites/browser.ts: 300 ms of quiet, capped at 2 s), then `innerText`. Interleaved, in the
 * same run, sequential (a page render uses both cores); plus the cold start (first request of a
 * process: launching Chromium and the proxy). Bounded counts; exits by itself. Prints the issue-29
 * `ROW` line (p50 and p99, service / bare).
 */

import { createServer } from 'node:http';
import chromium from '@sparticuz/chromium';
import puppeteer from 'puppeteer-core';
import { NETWORK_IDLE_CAP_MS, NETWORK_IDLE_TIME_MS } from '../shared/websites/browser.js';
import { startBenchService } from './bench-service.js';
import { describeMachine, percentile, printRow, round } from './measure.js';

const RUNS = Number(process.env.BENCH_WEBSITE_RUNS ?? 30);
const paragraphs = Array.from(
  { length: 40 },
  (_, index) => `<p>Paragraph ${index} of a typical article page.</p>`,
).join('');
const html = `<!doctype html><html><head><title>Bench</title></head><body><h1>Bench page</h1>${paragraphs}</body></html>`;

const site = createServer((_request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  response.end(html);
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const port = (site.address() as { port: number }).port;
const pageUrl = `http://127.0.0.1:${port}/`;

const bench = await startBenchService({
  credits: 1_000_000,
  env: { UNSAFE_WEBSITE_ALLOW_HOSTS: `127.0.0.1:${port}` },
});
const { service, apiKey } = bench;

const viaApi = async () => {
  const response = await service.app.request(`/v1/websites/text?${new URLSearchParams({ url: pageUrl })}`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`the API answered ${response.status}`);
};

const coldStarted = performance.now();
await viaApi();
const coldMs = performance.now() - coldStarted;

const bare = await puppeteer.launch({
  executablePath: await chromium.executablePath(),
  // As shared/websites/browser.ts: single-process mode cannot hold several contexts.
  args: [...chromium.args.filter((flag) => flag !== '--single-process'), '--no-sandbox'],
  headless: 'shell',
});
/** The service's navigation without the service: same page, fresh context, same load + idle wait. */
const viaBare = async () => {
  const context = await bare.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(pageUrl, { waitUntil: 'load' });
    await page
      .waitForNetworkIdle({ idleTime: NETWORK_IDLE_TIME_MS, timeout: NETWORK_IDLE_CAP_MS })
      .catch(() => undefined);
    const text = await page.evaluate(() => document.body.innerText);
    if (!text.includes('Paragraph 39')) throw new Error('the bare page has no text');
  } finally {
    await context.close();
  }
};
await viaBare();

const targets = [
  ['api', viaApi],
  ['bare', viaBare],
] as const;
const samples = { api: [] as number[], bare: [] as number[] };
for (let run = 0; run < RUNS; run += 1) {
  // Alternate which side goes first, so neither always follows the other's cleanup.
  for (const [name, send] of run % 2 === 0 ? targets : [...targets].reverse()) {
    const started = performance.now();
    await send();
    samples[name].push(performance.now() - started);
  }
}
const summarize = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: Math.round(percentile(sorted, 0.5)), p99Ms: Math.round(percentile(sorted, 0.99)) };
};
const api = summarize(samples.api);
const bareStats = summarize(samples.bare);
const ratio = { p50: round(api.p50Ms / bareStats.p50Ms, 2), p99: round(api.p99Ms / bareStats.p99Ms, 2) };
const machine = describeMachine();
console.log(
  `GET /v1/websites/text vs bare puppeteer doing the same navigation and idle wait ` +
    `(load + ${NETWORK_IDLE_TIME_MS} ms network idle), ${RUNS} warm runs each, alternating ` +
    `(node ${process.version}, load average ${machine.loadAverage.join(' ')})`,
);
console.log(`  cold start (first API request of the process): ${Math.round(coldMs)} ms`);
console.log(`  api   p50 ${api.p50Ms} ms   p99 ${api.p99Ms} ms`);
console.log(`  bare  p50 ${bareStats.p50Ms} ms   p99 ${bareStats.p99Ms} ms`);
printRow(
  'website text warm p50 / bare puppeteer, equal work',
  `${api.p50Ms} ms`,
  `${bareStats.p50Ms} ms`,
  ratio.p50,
);
printRow(
  'website text warm p99 / bare puppeteer, equal work',
  `${api.p99Ms} ms`,
  `${bareStats.p99Ms} ms`,
  ratio.p99,
);
console.log(
  JSON.stringify({
    benchmark: 'website-text',
    machine,
    runs: RUNS,
    coldMs: Math.round(coldMs),
    api,
    bare: bareStats,
    ratio,
  }),
);

await bare.close();
await bench.close();
site.close();
process.exit(0);
