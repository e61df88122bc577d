/**
 * The spec's three paging shapes through the real app: start-based (skills, company interests),
 * offset-based (company and domain search) and cursor-based (profile activity), walked to the end
 * and back to the start; cursor binding and expiry through an injected clock; every page billed.
 */
import { describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';

const clock = new ManualClock();
const file = harnessForFile(
  {
    credits: 100_000,
    rateLimit: { limit: 100_000, windowSeconds: 60 },
  },
  { clock },
);

interface Page {
  data: Record<string, unknown[]>;
  meta: { creditCost: number; paging: Record<string, unknown> };
}

async function page(path: string, parameters: Record<string, string>, key = file.apiKey) {
  const response = await file.harness.get(`${path}?${new URLSearchParams(parameters)}`, key);
  expect(response.status, await response.clone().text()).toBe(200);
  return {
    body: (await response.json()) as Page,
    credits: Number(response.headers.get('x-credits-remaining')),
  };
}

describe.each([
  ['/v1/profiles/skills/by-username', 'skills'],
  ['/v1/profiles/company-interests/by-username', 'companyInterests'],
])('start-based paging of %s', (path, list) => {
  it('walks pages of 10 to the end, then back to the start', async () => {
    const seen: unknown[] = [];
    let start = 0;
    for (let guard = 0; guard < 20; guard += 1) {
      const { body } = await page(path, { username: fx.richProfile.username, start: String(start) });
      const items = body.data[list] as unknown[];
      expect(body.meta.paging).toEqual({
        start,
        count: 10,
        returned: items.length,
        hasMore: body.meta.paging.hasMore,
        nextStart: body.meta.paging.hasMore ? start + items.length : null,
      });
      seen.push(...items);
      if (!body.meta.paging.hasMore) break;
      expect(items).toHaveLength(10);
      start = body.meta.paging.nextStart as number;
    }
    expect(seen.length).toBeGreaterThan(25);
    expect(new Set(seen.map((item) => JSON.stringify(item))).size).toBe(seen.length);
    const again = await page(path, { username: fx.richProfile.username, start: '0' });
    expect(again.body.data[list]).toEqual(seen.slice(0, 10));
    const omitted = await page(path, { username: fx.richProfile.username });
    expect(omitted.body.data[list]).toEqual(seen.slice(0, 10));
  });
});

describe.each([
  ['/v1/companies/search', { keywords: fx.broadCompanyKeyword }, 25],
  ['/v1/companies/search/by-domain', { domain: fx.sharedDomain.domain }, fx.sharedDomain.companyCount],
])('offset-based paging of %s', (path, parameters, atLeast) => {
  it('walks pages of 10 to the end, billing every page, then back to offset 0', async () => {
    const names: string[] = [];
    let offset = 0;
    let credits: number | undefined;
    for (let guard = 0; guard < 20; guard += 1) {
      const result = await page(path, { ...parameters, offset: String(offset) });
      const companies = result.body.data.companies as { slug: string }[];
      const { paging } = result.body.meta;
      expect(paging).toMatchObject({ offset, limit: 10, returned: companies.length });
      expect(result.body.meta.creditCost).toBe(1);
      if (credits !== undefined) expect(result.credits).toBe(credits - 1);
      credits = result.credits;
      names.push(...companies.map((company) => company.slug));
      if (!paging.hasMore) {
        expect(paging.nextOffset).toBeNull();
        break;
      }
      offset = paging.nextOffset as number;
    }
    expect(names.length).toBeGreaterThanOrEqual(atLeast);
    expect(new Set(names).size).toBe(names.length);
    const first = await page(path, { ...parameters, offset: '0' });
    expect((first.body.data.companies as { slug: string }[]).map((company) => company.slug)).toEqual(
      names.slice(0, 10),
    );
  });

  it('bills an empty page past the end', async () => {
    const result = await page(path, { ...parameters, offset: '9990' });
    expect(result.body.data.companies).toEqual([]);
    expect(result.body.meta).toMatchObject({
      creditCost: 1,
      paging: { returned: 0, hasMore: false, nextOffset: null },
    });
  });
});

async function walkActivity(path: string, list: string, username = fx.richProfile.username) {
  const pages: { items: unknown[]; hasMore: boolean }[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 50; guard += 1) {
    const { body } = await page(path, { username, ...(cursor ? { cursor } : {}) });
    const { hasMore, nextCursor } = body.meta.paging as { hasMore: boolean; nextCursor: string | null };
    expect(body.meta.creditCost).toBe(1);
    expect(nextCursor === null).toBe(!hasMore);
    pages.push({ items: body.data[list] as unknown[], hasMore });
    if (!hasMore) break;
    cursor = nextCursor as string;
  }
  return pages;
}

describe('cursor-based paging', () => {
  it('walks reactions across many pages, through an empty page while more exist', async () => {
    const pages = await walkActivity('/v1/profiles/reactions', 'reactions');
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.some((walked) => walked.items.length === 0 && walked.hasMore)).toBe(true);
    expect(pages.at(-1)?.hasMore).toBe(false);
    const reactions = pages.flatMap((walked) => walked.items) as { postSlug: string }[];
    expect(reactions.length).toBeGreaterThan(25);
  });

  it.each([
    ['/v1/profiles/posts', 'posts'],
    ['/v1/profiles/comments', 'comments'],
  ])('walks %s to the end and starts again without a cursor', async (path, list) => {
    const pages = await walkActivity(path, list);
    const all = pages.flatMap((walked) => walked.items);
    expect(all.length).toBeGreaterThan(25);
    const [first] = await walkActivity(path, list).then((again) => again.slice(0, 1));
    expect(first?.items).toEqual(pages[0]?.items);
  });

  it('ends at once for a profile without activity', async () => {
    const pages = await walkActivity('/v1/profiles/posts', 'posts', fx.emptyProfile.username);
    expect(pages).toEqual([{ items: [], hasMore: false }]);
  });

  async function firstCursor(path = '/v1/profiles/posts', key = file.apiKey) {
    const { body } = await page(path, { username: fx.richProfile.username }, key);
    return (body.meta.paging as { nextCursor: string }).nextCursor;
  }

  it('expires a cursor after 15 minutes, even once its item is gone', async () => {
    const cursor = await firstCursor();
    clock.advance(15 * 60_000 - 1_000);
    expect(
      (
        await file.harness.get(
          `/v1/profiles/posts?username=${fx.richProfile.username}&cursor=${cursor}`,
          file.apiKey,
        )
      ).status,
    ).toBe(200);

    const stale = await firstCursor();
    clock.advance(15 * 60_000 + 1_000);
    const body = await expectError(
      await file.harness.get(
        `/v1/profiles/posts?username=${fx.richProfile.username}&cursor=${stale}`,
        file.apiKey,
      ),
      400,
      'cursor_expired',
    );
    expect(body.error.message).toMatch(/restart without a cursor/);

    // The expired record is deleted (as the store's sweep or DynamoDB's TTL would): still expired.
    expect(await file.harness.store.sweepExpired(clock.now())).toBeGreaterThan(0);
    await expectError(
      await file.harness.get(
        `/v1/profiles/posts?username=${fx.richProfile.username}&cursor=${stale}`,
        file.apiKey,
      ),
      400,
      'cursor_expired',
    );
  });

  it.each([
    ['another endpoint', '/v1/profiles/comments', fx.richProfile.username, false],
    ['another username', '/v1/profiles/posts', fx.manyPositionsProfile.username, false],
    ['another account', '/v1/profiles/posts', fx.richProfile.username, true],
  ])('refuses a cursor used on %s', async (_, path, username, otherAccount) => {
    const cursor = await firstCursor();
    const key = otherAccount ? (await file.harness.provision({ credits: 10 })).apiKey : file.apiKey;
    const body = await expectError(
      await file.harness.get(`${path}?${new URLSearchParams({ username, cursor })}`, key),
      400,
      'invalid_request',
    );
    expect(body.error.details).toEqual([expect.objectContaining({ field: 'cursor', code: 'invalid_value' })]);
  });

  it.each([
    ['a tampered signature', (cursor: string) => `${cursor.slice(0, -2)}AA`],
    [
      'a forged issue time',
      (cursor: string) =>
        cursor.replace(/\.([0-9a-z]+)\./, (_, at) => `.${(Number.parseInt(at, 36) + 1).toString(36)}.`),
    ],
    ['garbage', () => 'not-a-cursor'],
  ])('refuses %s', async (_, forge) => {
    const cursor = forge(await firstCursor());
    await expectError(
      await file.harness.get(
        `/v1/profiles/posts?${new URLSearchParams({ username: fx.richProfile.username, cursor })}`,
        file.apiKey,
      ),
      400,
      'invalid_request',
    );
  });
});
