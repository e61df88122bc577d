/**
 * The console's Batches page over HTTP (issue 28): the account's batches as GET /v1/batches shows
 * them (state and pause reason, counts, credits), newest first and paged, never another account's;
 * their results downloaded through the session, byte for byte what the API answers. The batches are
 * real: created over the API and run by the worker pool `npm start` mounts. One service, on SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchWorkerPool } from '../../shared/batches/batch-worker.js';
import { mountBatches } from '../../shared/batches/mount-batches.js';
import { BATCHES_PER_PAGE } from '../../shared/console/batch-page-routes.js';
import { CONTENT_SECURITY_POLICY } from '../../shared/console/console-security.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { ConsoleClient } from '../support/console-client.js';
import { type Harness, startHarness } from '../support/harness.js';

const BASE = 'https://lookup.example';
const PROFILE = 'amelia-hartmann';
const PROFILE_PRICE = 2;

interface Batch {
  id: string;
  state: string;
  pauseReason: string | null;
  items: { total: number; succeeded: number; failed: number; invalid: number; pending: number };
  credits: { charged: number; refunded: number };
  createdAt: string;
}

let harness: Harness;
let workers: BatchWorkerPool;
/** Rich enough for every batch here. */
let funded: string;
/** Two credits: its batch of three profiles pauses after the first. */
let poor: string;
let stranger: string;

beforeAll(async () => {
  harness = await startHarness({
    env: { PUBLIC_BASE_URL: BASE, BATCH_POLL_MS: '20', ACCOUNT_RATE_LIMIT: '100000' },
  });
  mountConsole(harness, harness.store);
  workers = mountBatches(harness, harness.store).pool;
  const rateLimit = { limit: 100_000, windowSeconds: 60 };
  ({ apiKey: funded } = await harness.provision({ name: 'Acme Research', credits: 1_000, rateLimit }));
  ({ apiKey: poor } = await harness.provision({ name: 'Thrifty', credits: PROFILE_PRICE, rateLimit }));
  ({ apiKey: stranger } = await harness.provision({ name: 'Someone else', credits: 100, rateLimit }));
});

afterAll(async () => {
  await workers?.stop();
  await harness?.close();
});

const api = (apiKey: string, path: string, init: RequestInit = {}) =>
  harness.get(`${BASE}${path}`, apiKey, init);

async function createBatch(apiKey: string, items: readonly Record<string, unknown>[]): Promise<Batch> {
  const response = await api(apiKey, '/v1/batches?operation=profiles.details&invalidItems=mark', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(items),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { data: Batch }).data;
}

/** The batch once it reached `state` (the pool runs it meanwhile). */
async function settled(apiKey: string, id: string, state: string): Promise<Batch> {
  for (let tries = 0; tries < 400; tries++) {
    const { data } = (await (await api(apiKey, `/v1/batches/${id}`)).json()) as { data: Batch };
    if (data.state === state) return data;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Batch ${id} never became ${state}.`);
}

async function signedIn(apiKey: string): Promise<ConsoleClient> {
  const console = new ConsoleClient(harness.app, BASE);
  await console.get('/console/sign-in');
  await console.signIn(apiKey);
  return console;
}

/** The rows of the batches table: id, then every cell's text. */
function rowsOf(html: string): string[][] {
  return [...html.matchAll(/<tr data-batch-id="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)].map(([, id, row]) => [
    id as string,
    ...[...(row as string).matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) =>
      (cell as string)
        .replace(/<[^>]+>/g, '')
        .replace(/&#39;/g, "'")
        .trim(),
    ),
  ]);
}

describe('the Batches page', () => {
  let completed: Batch;
  let paused: Batch;

  beforeAll(async () => {
    const created = await createBatch(funded, [
      { username: PROFILE },
      { username: 'nobody-here-at-all' },
      { username: 'not valid!' },
    ]);
    completed = await settled(funded, created.id, 'completed');
    const starved = await createBatch(poor, [
      { username: PROFILE },
      { username: PROFILE },
      { username: PROFILE },
    ]);
    paused = await settled(poor, starved.id, 'paused');
  }, 30_000);

  it('lists a batch with its state, counts, credits, creation time and links to its results', async () => {
    const { response, html } = await (await signedIn(funded)).get('/console/batches');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(html).toContain('aria-current="page"');
    expect(completed.items).toEqual({ total: 3, succeeded: 1, failed: 1, invalid: 1, pending: 0 });
    const [row] = rowsOf(html);
    expect(row?.slice(0, 8)).toEqual([
      completed.id,
      completed.id,
      'profiles.details',
      'completed',
      '3',
      '1 succeeded, 1 failed, 1 invalid, 0 pending',
      `${completed.credits.charged} charged, ${completed.credits.refunded} refunded`,
      completed.createdAt.replace('T', ' ').slice(0, 19),
    ]);
    expect(completed.credits).toEqual({ charged: PROFILE_PRICE, refunded: PROFILE_PRICE });
    expect(html).toContain(`href="/console/batches/${completed.id}/results.csv"`);
    expect(html).toContain(`href="/console/batches/${completed.id}/results.jsonl"`);
  });

  it('says why a paused batch waits', async () => {
    expect(paused.pauseReason).toBe('insufficient_credits');
    const { html } = await (await signedIn(poor)).get('/console/batches');
    const [row] = rowsOf(html);
    expect(row?.[0]).toBe(paused.id);
    expect(row?.[3]).toBe('paused: out of credits; resumes when credits are granted');
  });

  it('downloads the results as CSV and JSONL through the session, the same bytes the API answers', async () => {
    const console = await signedIn(funded);
    for (const [file, accept, type] of [
      ['results.csv', 'text/csv', 'text/csv; charset=utf-8'],
      ['results.jsonl', 'application/jsonl', 'application/jsonl; charset=utf-8'],
    ] as const) {
      const { response, html: body } = await console.get(`/console/batches/${completed.id}/${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="${completed.id}.${file.split('.')[1]}"`,
      );
      const fromApi = await (
        await api(funded, `/v1/batches/${completed.id}/results`, { headers: { Accept: accept } })
      ).text();
      expect(body).toBe(fromApi);
      expect(body.split(/\r?\n/).filter(Boolean)).toHaveLength(file.endsWith('csv') ? 4 : 3);
    }
  });

  it("never shows or serves another account's batch", async () => {
    const console = await signedIn(stranger);
    const { html } = await console.get('/console/batches');
    expect(rowsOf(html)).toEqual([]);
    expect(html).toContain('No batches yet.');
    const { response, html: refused } = await console.get(`/console/batches/${completed.id}/results.csv`);
    expect(response.status).toBe(404);
    expect(refused).toContain(`There is no batch ${completed.id} in this account.`);
    expect(refused).not.toContain(PROFILE);
    expect((await console.get('/console/batches/bat_1/results.csv')).response.status).toBe(404);
    expect((await console.get(`/console/batches/${completed.id}/results.xlsx`)).response.status).toBe(404);
  });

  it('answers a cursor it did not issue with 400 and the page', async () => {
    const { response, html } = await (await signedIn(funded)).get('/console/batches?cursor=__proto__');
    expect(response.status).toBe(400);
    expect(html).toContain('That is not a cursor of this page');
  });

  it('sends a browser without a session to sign in', async () => {
    const { response } = await new ConsoleClient(harness.app, BASE).get('/console/batches');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/console/sign-in?session=required');
  });
});

describe('paging', () => {
  it(`shows ${BATCHES_PER_PAGE} batches a page, newest first, and the older ones behind a link`, {
    timeout: 60_000,
  }, async () => {
    const { apiKey } = await harness.provision({
      name: 'Many batches',
      credits: 10,
      rateLimit: { limit: 100_000, windowSeconds: 60 },
    });
    // Items refused up front are never run: cheap batches that still complete.
    const ids: string[] = [];
    for (let index = 0; index <= BATCHES_PER_PAGE; index++)
      ids.push((await createBatch(apiKey, [{ username: `bad name ${index}` }])).id);
    const listed = ((await (await api(apiKey, '/v1/batches?limit=100')).json()) as { data: Batch[] }).data;
    const console = await signedIn(apiKey);
    const first = await console.get('/console/batches');
    const firstRows = rowsOf(first.html).map(([id]) => id);
    expect(firstRows).toEqual(listed.slice(0, BATCHES_PER_PAGE).map((batch) => batch.id));
    const older = /href="(\/console\/batches\?cursor=[^"]+)"/.exec(first.html)?.[1];
    expect(older).toBeDefined();
    const second = await console.get((older as string).replaceAll('&amp;', '&'));
    expect(rowsOf(second.html).map(([id]) => id)).toEqual(
      listed.slice(BATCHES_PER_PAGE).map((batch) => batch.id),
    );
    expect(second.html).not.toContain('Older batches');
    expect(new Set([...firstRows, ...rowsOf(second.html).map(([id]) => id)])).toEqual(new Set(ids));
  });
});
