/**
 * The interactive reference in real Chromium against the real app on loopback: for every operation
 * of the document (v1 and /api/v2), /docs's own "Try it out" with the pre-filled examples, then
 * Execute, must show the API's answer, never a validation error of the page. Its pattern check
 * reads the document's Unicode patterns as JSON Schema does (with `u`): it accepts letters of any
 * script and still refuses what the API refuses. Screenshots go to test-output/ (git-ignored).
 *
 * Swagger UI renders the whole open tag again on every click, about a second of the page's main
 * thread per operation. Two readers, each its own Chromium (the shipped switches run a browser's
 * pages on one renderer thread), work through half the tags each: on this 2-core machine the file
 * took about 280 s with one reader, 125 s with two (CI, 2026-11-28).
 */
import { mkdir } from 'node:fs/promises';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { expectError } from '../support/assertions.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';
import type { Harness } from '../support/harness.js';
import { type ServedHarness, serveHarness } from '../support/served-harness.js';

const SCREENSHOTS = new URL('../../test-output/', import.meta.url);

interface DocumentedOperation {
  path: string;
  operationId: string;
  tag: string;
}

let harness: Harness;
let served: ServedHarness;
let origin: string;
/** One Chromium with /docs open, and the key its Authorize dialog holds now. */
interface Reader {
  browser: FixtureBrowser;
  page: Page;
  /** Setting the same key again would only re-render the page. */
  authorizedKey?: string;
}
const READERS = 2;
const readers: Reader[] = [];
let fundedKey: string;
/** The lookups that dial mail servers or web sites get a key without credits: 402 before any dial. */
let unfundedKey: string;
let operations: DocumentedOperation[];

beforeAll(async () => {
  // The document's server (PUBLIC_BASE_URL) is the port the app listens on.
  served = await serveHarness({ operations: catalog });
  ({ harness, origin } = served);
  ({ apiKey: fundedKey } = await harness.provision({
    credits: 1_000_000,
    rateLimit: { limit: 100_000, windowSeconds: 60 },
  }));
  ({ apiKey: unfundedKey } = await harness.provision({ credits: 0 }));
  const document = (await (await harness.app.request('/openapi.json')).json()) as {
    paths: Record<string, { get: { operationId: string; tags: string[] } }>;
  };
  // The lookups; the batch resource (POST, a body, no example batch id) is documented, not tried here.
  operations = Object.entries(document.paths)
    .filter(([path]) => !path.startsWith('/v1/batches'))
    .map(([path, { get }]) => ({ path, operationId: get.operationId, tag: get.tags[0] as string }));
  // One launch first: two first launches at once would unpack the binary into the temp folder together.
  readers.push(await openReader());
  readers.push(...(await Promise.all(Array.from({ length: READERS - 1 }, openReader))));
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

async function openReader(): Promise<Reader> {
  // The browser is only the reader's client here: without a GPU, Chromium composites in software
  // instead of through SwiftShader's emulated GL, which took over half its CPU time on this tall page.
  const browser = await startFixtureBrowser(['--disable-gpu']);
  const page = await browser.browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${origin}/docs`);
  await page.waitForSelector('.opblock');
  return { browser, page };
}

afterAll(async () => {
  await Promise.all(readers.map(({ browser }) => browser.close()));
  await served?.close();
});

const needsNetwork = new Set<string>(
  catalog.filter((definition) => definition.runtime.needs.length > 0).map((definition) => definition.id),
);
const operationIdOf = (documented: DocumentedOperation) =>
  documented.operationId.replace(/^v2\./, '').replace(/\.by-[a-z-]+$/i, '');

/** Setup only: which key the page's Authorize dialog holds (both schemes, v1 and v2). */
async function authorize(reader: Reader, apiKey: string): Promise<void> {
  if (apiKey === reader.authorizedKey) return;
  reader.authorizedKey = apiKey;
  await reader.page.evaluate((key) => {
    const ui = (window as unknown as { ui: { preauthorizeApiKey(scheme: string, value: string): void } }).ui;
    ui.preauthorizeApiKey('bearerAuth', key);
    ui.preauthorizeApiKey('apiKeyHeader', key);
  }, apiKey);
}

/** A tag's heading; `open`: only while its operations are shown (or hidden). */
const tagHeading = (tag: string, open?: boolean) =>
  `h3.opblock-tag[data-tag=${JSON.stringify(tag)}]${open === undefined ? '' : `[data-is-open="${open}"]`}`;

/** Clicks a tag's heading, which shows or hides its operations. */
async function toggleTag({ page }: Reader, tag: string): Promise<void> {
  const heading = await page.waitForSelector(tagHeading(tag));
  const wasOpen = await heading?.evaluate((element) => element.getAttribute('data-is-open') === 'true');
  await heading?.click();
  await page.waitForSelector(tagHeading(tag, !wasOpen));
}

/**
 * Swagger UI renders every operation shown again on each click (Try it out, Execute, Clear), and all
 * of them are shown at first: the page keeps only the tag under test open, as a reader working
 * through one tag would, closing the others by their headings (a quarter less Chromium time).
 */
async function showOnlyTag(reader: Reader, tag: string): Promise<void> {
  const open = await reader.page.$$eval('h3.opblock-tag[data-is-open="true"]', (headings) =>
    headings.map((heading) => heading.getAttribute('data-tag') ?? ''),
  );
  for (const other of open) if (other !== tag) await toggleTag(reader, other);
  if (!open.includes(tag)) await toggleTag(reader, tag);
}

/** Expands an operation and turns on its "Try it out"; the block's element. */
async function openTryItOut(
  reader: Reader,
  { tag, operationId }: DocumentedOperation,
): Promise<ElementHandle> {
  await showOnlyTag(reader, tag);
  // The page names each block after its tag and CSS-escaped operation id (`profiles\.details…`).
  const handle = await reader.page.evaluateHandle(
    (tagName, id) => document.getElementById(`operations-${tagName}-${CSS.escape(id)}`),
    tag,
    operationId,
  );
  const block = handle.asElement() as ElementHandle<Element> | null;
  if (!block) throw new Error(`/docs shows no operation ${operationId}.`);
  await block.scrollIntoView();
  if (!(await block.$('.opblock-body'))) await (await block.waitForSelector('.opblock-summary'))?.click();
  const tryOut = await block.waitForSelector('.try-out__btn');
  // Once on, the button reads Cancel: an operation opened before keeps its Try it out.
  if (!(await block.$('.execute'))) await tryOut?.click();
  await block.waitForSelector('.execute');
  return block;
}

/** Clicks Execute; the page's validation errors, or the status the server answered. */
async function execute(block: ElementHandle): Promise<{ errors: string[]; status?: number }> {
  // An answer shown by an earlier Execute would be read as this one's: clear it first.
  await (await block.$('.btn-clear'))?.click();
  await block.waitForSelector('.live-responses-table', { hidden: true });
  await (await block.$('.execute'))?.click();
  // Either the page refuses (its error list) or the server's status appears in the live responses.
  await block.waitForSelector('.live-responses-table tbody .response-col_status, .validation-errors', {
    timeout: 60_000,
  });
  const outcome = (await block.$('.live-responses-table tbody .response-col_status'))
    ? 'answered'
    : 'refused';
  const errors = await block.$$eval('.validation-errors li, .validation-errors', (nodes) =>
    nodes.map((node) => node.textContent ?? ''),
  );
  const invalid = await block.$$eval('input.invalid', (inputs) =>
    inputs.map((input) => `${input.getAttribute('placeholder')}: ${(input as HTMLInputElement).value}`),
  );
  if (outcome === 'refused') return { errors: [...errors, ...invalid] };
  const status = await block.$eval('.live-responses-table tbody .response-col_status', (cell) =>
    Number.parseInt(cell.textContent ?? '', 10),
  );
  return { errors: [...errors, ...invalid], status };
}

async function collapse(block: ElementHandle): Promise<void> {
  await (await block.$('.opblock-summary'))?.click();
}

describe('/docs Try it out', () => {
  it('sends every operation with its examples and shows the API answer, never a validation error', {
    timeout: 3_600_000,
  }, async () => {
    expect(operations.length).toBeGreaterThan(110);
    const answerOf = new Map<string, string>();
    let screenshotTaken = false;
    // Each reader works through whole tags, one after another, so that each tag's operations are
    // shown once (see showOnlyTag); the larger tags first, each to the reader with the fewer so far.
    const tagOrder = [...new Set(operations.map(({ tag }) => tag))];
    const ordered = tagOrder.flatMap((tag) => operations.filter((documented) => documented.tag === tag));
    const lanes = readers.map((): DocumentedOperation[] => []);
    const bySize = tagOrder
      .map((tag) => ordered.filter((documented) => documented.tag === tag))
      .sort((a, b) => b.length - a.length);
    for (const tagOperations of bySize) {
      const lightest = lanes.reduce((least, lane) => (lane.length < least.length ? lane : least));
      lightest.push(...tagOperations);
    }
    const readThrough = async (reader: Reader, lane: DocumentedOperation[]) => {
      for (const documented of lane) {
        const online = needsNetwork.has(operationIdOf(documented));
        await authorize(reader, online ? unfundedKey : fundedKey);
        const block = await openTryItOut(reader, documented);
        const { errors, status } = await execute(block);
        answerOf.set(
          documented.operationId,
          `${documented.operationId} ${status ?? 'refused by the page'} ${errors.join(' | ')}`.trim(),
        );
        if (status === 200 && !screenshotTaken) {
          screenshotTaken = true;
          await block.screenshot({ path: new URL('docs-try-it-out.png', SCREENSHOTS).pathname });
        }
        await collapse(block);
      }
    };
    await Promise.all(
      readers.map((reader, index) => readThrough(reader, lanes[index] as DocumentedOperation[])),
    );
    const answers = ordered.map(({ operationId }) => answerOf.get(operationId) ?? `${operationId} not tried`);
    const expected = ordered.map(
      (documented) => `${documented.operationId} ${needsNetwork.has(operationIdOf(documented)) ? 402 : 200}`,
    );
    expect(answers).toEqual(expected);
    expect(screenshotTaken).toBe(true);
  });

  it('accepts letters of any script and refuses what the API refuses, as the API does', async () => {
    const reader = readers[0] as Reader;
    await authorize(reader, fundedKey);
    const byUsername = operations.find(({ operationId }) => operationId === 'profiles.details.by-username');
    if (!byUsername) throw new Error('The document has no profiles.details.by-username.');
    const block = await openTryItOut(reader, byUsername);
    const input = await block.waitForSelector('input[placeholder="username"]');
    const typeUsername = async (username: string) => {
      await input?.click({ count: 3 });
      await input?.type(username);
    };

    // A space is no part of a username: the page refuses it, and so does the API.
    await typeUsername('amelia hartmann');
    const refused = await execute(block);
    expect(refused.status).toBeUndefined();
    expect(refused.errors.join(' ')).toMatch(/Value must follow pattern/);
    await block.screenshot({ path: new URL('docs-pattern-refused.png', SCREENSHOTS).pathname });
    await expectError(
      await harness.get('/v1/profiles/details/by-username?username=amelia%20hartmann', fundedKey),
      400,
      'invalid_request',
    );

    // Letters, marks and digits of other scripts: the page sends it; the sample has no such profile.
    await typeUsername('josé-müller_क्षत्रिय');
    expect(await execute(block)).toEqual({ errors: [], status: 404 });
  });
});
