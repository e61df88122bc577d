/**
 * The batch resource in /docs (issue 28), in real Chromium: Swagger UI, served from the installed
 * package, shows the `batches` tag with its six operations, and the create's body in the three media
 * types it takes. Its screenshot goes to test-output/docs-batches.png.
 */
import { mkdir } from 'node:fs/promises';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';
import { type ServedHarness, serveHarness } from '../support/served-harness.js';

const SCREENSHOTS = new URL('../../test-output/', import.meta.url);
/** The create's block: its id holds a backslash (the escaped dot), written here as CSS escapes it. */
const CREATE = '[id="operations-batches-batches\\\\.create"]';

let served: ServedHarness;
let fixtures: FixtureBrowser;
let page: Page;

beforeAll(async () => {
  served = await serveHarness({ operations: catalog });
  fixtures = await startFixtureBrowser(['--disable-gpu']);
  page = await fixtures.browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${served.origin}/docs`);
  await page.waitForSelector('h3.opblock-tag[data-tag="batches"]');
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await served?.close();
});

it('shows the batches tag with its six operations, and the create body as JSON, JSON Lines or CSV', async () => {
  // Swagger UI names each block after its tag and CSS-escaped operation id (`batches\.create`).
  const shown = await page.$$eval('[id^="operations-batches-"]', (blocks) =>
    blocks.map((block) => block.id.replace('operations-batches-', '').replaceAll('\\', '')),
  );
  expect(shown.sort()).toEqual([
    'batches.cancel',
    'batches.create',
    'batches.deliveries',
    'batches.get',
    'batches.list',
    'batches.results',
  ]);
  const create = page.locator(CREATE);
  await page.click(`${CREATE} .opblock-summary-control`);
  await page.waitForSelector(`${CREATE} .body-param-content-type select`);
  const offered = await page.$$eval(`${CREATE} .body-param-content-type select option`, (options) =>
    options.map((option) => (option as HTMLOptionElement).value),
  );
  expect(offered).toEqual(['application/json', 'application/jsonl', 'text/csv']);
  const block = await create.waitHandle();
  await block.screenshot({ path: new URL('docs-batches.png', SCREENSHOTS).pathname as `${string}.png` });
});
