/**
 * `npm run bench` (website part): a warm GET /v1/websites/text through the whole pipeline (billing,
 * egress proxy, a fresh browser context per request, rule-3 extraction) against a bare puppeteer
 * `goto` + `innerText` on the same loopback page in the same browser binary, in the same run; plus
 * the cold start (first request of a process: unpacking and launching Chromium). Sequential requests
 * (a page render uses both cores); bounded counts; exits by itself.
 */

import { createServer } from 'node:http';
import chromium from '@sparticuz/chromium';
import puppeteer from 'puppeteer-core';
import { startBenchService } from './bench-service.js';

const RUNS = 30;
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
const viaBare = async () => {
  const context = await bare.createBrowserContext();
  const page = await context.newPage();
  await page.goto(pageUrl, { waitUntil: 'load' });
  await page.evaluate(() => document.body.innerText);
  await context.close();
};
await viaBare();

const samples = { api: [] as number[], bare: [] as number[] };
for (let run = 0; run < RUNS; run += 1) {
  for (const [name, send] of run % 2 === 0
    ? ([
        ['api', viaApi],
        ['bare', viaBare],
      ] as const)
    : ([
        ['bare', viaBare],
        ['api', viaApi],
      ] as const)) {
    const started = performance.now();
    await send();
    samples[name].push(performance.now() - started);
  }
}
const p = (values: number[], fraction: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number);
};
const summary = {
  runs: RUNS,
  coldMs: Math.round(coldMs),
  api: { p50Ms: p(samples.api, 0.5), p99Ms: p(samples.api, 0.99) },
  bare: { p50Ms: p(samples.bare, 0.5), p99Ms: p(samples.bare, 0.99) },
};
console.log(
  `GET /v1/websites/text vs bare puppeteer goto + innerText, ${RUNS} warm runs each, alternating (node ${process.version})`,
);
console.log(`  cold start (first API request of the process): ${summary.coldMs} ms`);
console.log(`  api   p50 ${summary.api.p50Ms} ms   p99 ${summary.api.p99Ms} ms`);
console.log(`  bare  p50 ${summary.bare.p50Ms} ms   p99 ${summary.bare.p99Ms} ms`);
console.log(`  ratio api/bare p50: ${(summary.api.p50Ms / summary.bare.p50Ms).toFixed(2)}x`);
console.log(JSON.stringify({ benchmark: 'website-text', ...summary }));

await bare.close();
await bench.close();
site.close();
process.exit(0);
