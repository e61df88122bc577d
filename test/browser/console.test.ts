/**
 * The console in real Chromium against the real app on loopback, one browser and one server for the
 * file, steps in order: sign in with a key; the overview's figures and chart against the API; the
 * usage CSV against the usage endpoint; a call found by its request id; the Batches page against
 * GET /v1/batches, its CSV download against the results endpoint; issue
 * a key with a scope and use it; revoke it and see 401 after KEY_CACHE_SECONDS; a cross-site form
 * post refused; sign-out ending the session; axe-core on every page, at phone width too; no CSP
 * violation. Screenshots of each page go to test-output/console/; with UPDATE_DOCS_SCREENSHOTS=1 the
 * overview's also to docs/console-overview.png (the README shows it), which a plain run leaves as committed.
 */
import { mkdir } from 'node:fs/promises';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import type { BatchWorkerPool } from '../../shared/batches/batch-worker.js';
import { mountBatches } from '../../shared/batches/mount-batches.js';
import { systemClock } from '../../shared/clock.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { seriousViolations } from '../support/accessibility.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';
import type { Harness } from '../support/harness.js';
import { type ServedHarness, serveHarness } from '../support/served-harness.js';

const SCREENSHOTS = new URL('../../test-output/console/', import.meta.url);
const README_SCREENSHOT = new URL('../../docs/console-overview.png', import.meta.url);
const KEY_CACHE_SECONDS = 1;
const PROFILE = 'amelia-hartmann';
const PROFILE_DETAILS_PRICE = catalog.find((operation) => operation.id === 'profiles.details')?.price ?? 0;
const PROFILE_PRICE = catalog.find((operation) => operation.id === 'profiles.experience')?.price ?? 0;

let harness: Harness;
let served: ServedHarness;
let batchWorkers: BatchWorkerPool;
/** A batch the setup ran to the end: a profile found, one not. */
let batchId: string;
let origin: string;
let fixtures: FixtureBrowser;
let page: Page;
let apiKey: string;
const cspViolations: string[] = [];
/** The request id of the setup's refunded 404. */
let refundedRequestId: string;

interface AccountAnswer {
  data: { credits: { balance: number } };
}
interface UsageAnswer {
  data: { rows: { date: string; operation: string; calls: number; creditsCharged: number }[] };
}
interface Drawn {
  metric: string;
  labels: string[];
  datasets: { label: string; data: number[] }[];
}

const api = (path: string, key: string) =>
  fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });

beforeAll(async () => {
  served = await serveHarness({ clock: systemClock, env: { KEY_CACHE_SECONDS: String(KEY_CACHE_SECONDS) } });
  ({ harness, origin } = served);
  mountConsole(harness, harness.store);
  batchWorkers = mountBatches(harness, harness.store).pool;
  ({ apiKey } = await harness.provision({ name: 'Acme Research', credits: 500 }));
  // Some history: charged lookups, a refunded 404, a free check.
  for (const path of [
    `/v1/profiles/experience/by-username?username=${PROFILE}`,
    `/v1/profiles/details/by-username?username=${PROFILE}`,
    '/v1/profiles/experience/by-username?username=nobody-at-all',
    '/v1/emails/disposable?email=someone@mailinator.com',
  ]) {
    const response = await api(path, apiKey);
    await response.arrayBuffer();
    if (response.status === 404) refundedRequestId = response.headers.get('x-request-id') as string;
  }
  const created = await fetch(`${origin}/v1/batches?operation=profiles.details`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/jsonl' },
    body: `{"username":"${PROFILE}"}\n{"username":"nobody-at-all"}\n`,
  });
  batchId = ((await created.json()) as { data: { id: string } }).data.id;
  for (let state = ''; state !== 'completed'; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    state = ((await (await api(`/v1/batches/${batchId}`, apiKey)).json()) as { data: { state: string } }).data
      .state;
  }
  fixtures = await startFixtureBrowser();
  page = await fixtures.browser.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.setViewport({ width: 1280, height: 900 });
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await batchWorkers?.stop();
  await fixtures?.close();
  await served?.close();
});

/** Checks the page as it is: accessible, no wider than a phone at 375 px, and its screenshots. */
async function checkPage(name: string): Promise<void> {
  expect(await seriousViolations(page), name).toEqual([]);
  await page.screenshot({
    path: new URL(`${name}.png`, SCREENSHOTS).pathname as `${string}.png`,
    fullPage: true,
  });
  await page.setViewport({ width: 375, height: 800 });
  // Let the chart follow the new width (Chart.js resizes on the next frames).
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth),
    `${name} at 375 px`,
  ).toBeLessThanOrEqual(375);
  expect(await seriousViolations(page), `${name} at 375 px`).toEqual([]);
  await page.screenshot({
    path: new URL(`${name}-375.png`, SCREENSHOTS).pathname as `${string}.png`,
    fullPage: true,
  });
  await page.setViewport({ width: 1280, height: 900 });
}

async function submit(selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

describe('the console in Chromium', () => {
  it('signs in with a key', async () => {
    await page.goto(`${origin}/console`);
    expect(page.url()).toBe(`${origin}/console/sign-in?session=required`);
    await checkPage('sign-in');
    await page.type('#api-key', apiKey);
    await submit('form[action="/console/sign-in"] button');
    expect(page.url()).toBe(`${origin}/console`);
    expect(await page.$eval('h1', (heading) => heading.textContent)).toBe('Overview');
  });

  it('shows the balance, and a chart of the usage, that the API answers', async () => {
    const account = (await (await api('/v1/account', apiKey)).json()) as AccountAnswer;
    const usage = (await (await api('/v1/account/usage', apiKey)).json()) as UsageAnswer;
    expect(usage.data.rows.length).toBeGreaterThan(0);
    expect(Number(await page.$eval('#balance', (cell) => cell.textContent))).toBe(
      account.data.credits.balance,
    );
    for (const metric of ['credits', 'calls'] as const) {
      await page.click(`input[name="chart-metric"][value="${metric}"]`);
      const drawn = JSON.parse(
        (await page.$eval('#usage-chart', (canvas) => canvas.getAttribute('data-drawn'))) ?? '{}',
      ) as Drawn;
      expect(drawn.metric).toBe(metric);
      expect(drawn.labels).toHaveLength(30);
      const plotted = drawn.datasets.flatMap((dataset) =>
        dataset.data.flatMap((value, index) =>
          value === 0 ? [] : [`${drawn.labels[index]} ${dataset.label} ${value}`],
        ),
      );
      const answered = usage.data.rows
        .map((row) => ({ ...row, value: metric === 'credits' ? row.creditsCharged : row.calls }))
        .filter((row) => row.value !== 0)
        .map((row) => `${row.date} ${row.operation} ${row.value}`);
      expect(plotted.sort()).toEqual(answered.sort());
    }
    await page.click('input[name="chart-metric"][value="credits"]');
    await checkPage('overview');
    if (process.env.UPDATE_DOCS_SCREENSHOTS === '1') {
      await page.screenshot({ path: README_SCREENSHOT.pathname as `${string}.png` });
    }
  });

  it('exports usage as CSV whose rows are the usage endpoint’s', async () => {
    await page.goto(`${origin}/console/usage`);
    await checkPage('usage');
    const href = await page.$eval('a[download]', (link) => (link as HTMLAnchorElement).href);
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href);
    const [header = '', ...lines] = csv.trim().split('\r\n');
    const columns = header.split(',');
    const rows = lines.map((line) => {
      const row: Record<string, unknown> = { callsByTransport: {} };
      line.split(',').forEach((value, index) => {
        const column = columns[index] as string;
        const [name, transport] = column.split('.');
        if (transport) (row.callsByTransport as Record<string, number>)[transport] = Number(value);
        else row[name as string] = ['date', 'operation'].includes(column) ? value : Number(value);
      });
      return row;
    });
    const usage = (await (await api('/v1/account/usage', apiKey)).json()) as UsageAnswer;
    expect(rows).toEqual(usage.data.rows);
  });

  it('finds a call by its X-Request-Id and says why it was refunded', async () => {
    await page.goto(`${origin}/console/activity`);
    await checkPage('activity');
    await page.type('#request-id', refundedRequestId);
    await submit('search form button');
    const rows = await page.$$eval('#activity tbody tr', (each) =>
      each.map((row) => ({
        id: row.getAttribute('data-request-id'),
        why: row.lastElementChild?.textContent,
      })),
    );
    expect(rows).toEqual([
      { id: refundedRequestId, why: expect.stringMatching(/^Refunded 1 credit: resource_not_found/) },
    ]);
  });

  it('lists the batches GET /v1/batches lists, and downloads a batch’s results as the results endpoint answers them', async () => {
    await page.goto(`${origin}/console/batches`);
    await checkPage('batches');
    const listed = (await (await api('/v1/batches', apiKey)).json()) as {
      data: { id: string; state: string; items: { succeeded: number; failed: number } }[];
    };
    const rows = await page.$$eval('#batches tbody tr', (each) =>
      each.map((row) => ({
        id: row.getAttribute('data-batch-id'),
        state: row.getAttribute('data-state'),
        cells: [...row.children].map((cell) => cell.textContent?.trim()),
      })),
    );
    expect(rows.map(({ id, state }) => ({ id, state }))).toEqual(
      listed.data.map(({ id, state }) => ({ id, state })),
    );
    expect(rows[0]?.cells.slice(0, 6)).toEqual([
      batchId,
      'profiles.details',
      'completed',
      '2',
      '1 succeeded, 1 failed, 0 invalid, 0 pending',
      `${PROFILE_DETAILS_PRICE} charged, ${PROFILE_DETAILS_PRICE} refunded`,
    ]);
    const href = await page.$eval(
      `a[href$="/${batchId}/results.csv"]`,
      (link) => (link as HTMLAnchorElement).href,
    );
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href);
    const fromApi = await (
      await fetch(`${origin}/v1/batches/${batchId}/results`, {
        headers: { Authorization: `Bearer ${apiKey}`, Accept: 'text/csv' },
      })
    ).text();
    expect(csv).toBe(fromApi);
    expect(csv.split('\r\n')[0]).toBe(
      'index,outcome,status,username,url,publicId,error_code,credit_cost,body',
    );
  });

  it('issues a key with a scope and a daily cap, shown once with a copy button; the key works within both', async () => {
    await page.goto(`${origin}/console/keys`);
    await checkPage('keys');
    await page.type('#label', 'browser agent');
    await page.click('input[name="scopes"][value="profiles"]');
    await page.type('#daily-cap', String(PROFILE_PRICE));
    await submit('form[action="/console/keys"] button[type="submit"]');
    const issued = (await page.$eval('#new-key', (code) => code.textContent)) ?? '';
    expect(
      await page.$eval('button[data-copy="new-key"]', (button) => (button as HTMLButtonElement).hidden),
    ).toBe(false);
    await checkPage('new-key');
    const lookup = `/v1/profiles/experience/by-username?username=${PROFILE}`;
    expect((await api(lookup, issued)).status).toBe(200);
    expect((await api('/v1/emails/disposable?email=someone@mailinator.com', issued)).status).toBe(403);
    // The cap is spent by the first lookup: the next is refused, naming the cap.
    const capped = await api(lookup, issued);
    expect(capped.status).toBe(402);
    expect(((await capped.json()) as { error: { message: string } }).error.message).toContain(
      'daily credit cap',
    );

    // Revoked in the console: refused once the key cache has let go of it.
    await page.goto(`${origin}/console/keys`);
    const row = await page.$$eval('tbody tr', (rows) =>
      rows.map((each) => ({ id: each.getAttribute('data-key-id'), label: each.children[1]?.textContent })),
    );
    const target = row.find((each) => each.label === 'browser agent')?.id as string;
    await submit(`tr[data-key-id="${target}"] form[action="/console/keys/revoke"] button`);
    expect(await page.$eval('.notice', (notice) => notice.textContent)).toContain(`Key ${target} is revoked`);
    await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_SECONDS * 1000 + 100));
    expect((await api('/v1/emails/disposable?email=someone@mailinator.com', issued)).status).toBe(401);
  });

  it('shows prices and connection set-ups with this service’s URL', async () => {
    await page.goto(`${origin}/console/prices`);
    const rows = await page.$$eval('#prices tbody tr', (each) => each.length);
    expect(rows).toBeGreaterThan(30);
    await checkPage('prices');
    await page.goto(`${origin}/console/connect`);
    expect(await page.$eval('#cursor', (pre) => pre.textContent)).toContain(`${origin}/mcp`);
    await checkPage('connect');
  });

  it('says on the Passkeys page why none can be registered at an IP address (WebAuthn needs a domain)', async () => {
    await page.goto(`${origin}/console/passkeys`);
    expect(await page.$eval('h1', (heading) => heading.textContent)).toBe('Passkeys');
    expect(await page.$eval('#passkeys-unavailable', (notice) => notice.textContent)).toContain(
      'domain name',
    );
    expect(await page.$('#passkey-register')).toBeNull();
    await checkPage('passkeys-unavailable');
  });

  it('refuses a form posted from a page of another loopback origin', async () => {
    const before = (
      await harness.repositories.keys.list(
        (
          await harness.authenticator.authenticateKey(apiKey)
        ).account.accountId,
      )
    ).length;
    await page.goto(`${fixtures.origin}/cross-site.html`);
    await Promise.all([
      page.waitForNavigation(),
      page.evaluate((target) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = `${target}/console/keys`;
        const label = document.createElement('input');
        label.name = 'label';
        label.value = 'forged';
        form.append(label);
        document.body.append(form);
        form.submit();
      }, origin),
    ]);
    expect(await page.$eval('h1', (heading) => heading.textContent)).toBe('Request refused');
    expect(await page.$eval('.error', (error) => error.textContent)).toContain(fixtures.origin);
    await checkPage('cross-site-refused');
    const after = (
      await harness.repositories.keys.list(
        (
          await harness.authenticator.authenticateKey(apiKey)
        ).account.accountId,
      )
    ).length;
    expect(after).toBe(before);
  });

  it('signs out, and the old cookie no longer works', async () => {
    await page.goto(`${origin}/console`);
    const [session] = (await page.cookies()).filter((cookie) => cookie.name === 'console_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    await submit('form[action="/console/sign-out"] button');
    expect(page.url()).toBe(`${origin}/console/sign-in?session=signed-out`);
    const replay = await fetch(`${origin}/console`, {
      headers: { cookie: `console_session=${session?.value}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/console/sign-in?session=ended');
  });

  it('met no Content-Security-Policy violation on the way', () => {
    expect(cspViolations).toEqual([]);
  });
});
