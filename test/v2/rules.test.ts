/**
 * The rules /api/v2 shares with v1 and the ones that are its own: one account's credits and rate
 * window across both families, the same pages of a profile's posts, cursors that do not cross
 * families, Authorization refused, 405 with Allow: GET, the JSON 404 for unknown paths, and the
 * ledger recording the transport.
 */
import { describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({ credits: 10_000 });

const username = fx.richProfile.username;
const v2 = (url: string, key = file.apiKey, init: RequestInit = {}) =>
  file.harness.app.request(url, { ...init, headers: { 'X-API-Key': key, ...(init.headers ?? {}) } });

describe('one account across v1 and v2', () => {
  it('admits exactly N calls of a limit of N split across both families', async () => {
    const limit = 6;
    const { apiKey: key } = await file.harness.provision({ rateLimit: { limit, windowSeconds: 60 } });
    const statuses: number[] = [];
    for (let call = 0; call < limit + 2; call += 1) {
      const response =
        call % 2 === 0
          ? await file.harness.get(`/v1/profiles/experience/by-username?username=${username}`, key)
          : await v2(`/api/v2/profiles/${username}/positions`, key);
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(limit).fill(200), 429, 429]);
  });

  it('moves one balance with calls of either family', async () => {
    const { apiKey: key } = await file.harness.provision({ credits: 20 });
    const first = await file.harness.get(`/v1/profiles/details/by-username?username=${username}`, key);
    const second = await v2(`/api/v2/profiles/${username}`, key);
    const third = await file.harness.get(`/v1/profiles/details/by-username?username=${username}`, key);
    expect([first, second, third].map((response) => response.headers.get('x-credits-remaining'))).toEqual([
      '18',
      '16',
      '14',
    ]);
  });

  it('records v2 calls in the ledger with the v2 transport', async () => {
    const response = await v2(`/api/v2/profiles/${username}/education`);
    const requestId = response.headers.get('x-request-id') as string;
    const { accountId } = (await file.harness.authenticator.authenticateKey(file.apiKey)).account;
    const entries = await file.harness.repositories.ledger.entries(accountId);
    expect(entries.find((entry) => entry.requestId === requestId)?.transport).toBe('v2');
  });
});

describe('cursor paging', () => {
  async function walk(first: string, next: (cursor: string) => string, key = file.apiKey) {
    const items: unknown[] = [];
    let url = first;
    for (;;) {
      const response = url.startsWith('/v1') ? await file.harness.get(url, key) : await v2(url, key);
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        data: { posts: unknown[] };
        meta: { paging?: { nextCursor: string | null } };
        paging?: { nextCursor: string | null };
      };
      items.push(...body.data.posts);
      const cursor = (body.paging ?? body.meta.paging)?.nextCursor;
      if (!cursor) return items;
      url = next(cursor);
    }
  }

  it('returns the same posts of a multi-page profile on v2 as on v1', async () => {
    const onV1 = await walk(
      `/v1/profiles/posts?username=${username}`,
      (cursor) => `/v1/profiles/posts?${new URLSearchParams({ username, cursor })}`,
    );
    const onV2 = await walk(
      `/api/v2/profiles/${username}/posts`,
      (cursor) => `/api/v2/profiles/${username}/posts?${new URLSearchParams({ cursor })}`,
    );
    expect(onV1.length).toBeGreaterThan(10);
    expect(onV2).toEqual(onV1);
  });

  it('refuses a v1 cursor on v2 and a v2 cursor on v1, saying which family issued it', async () => {
    const v1Page = await (
      await file.harness.get(`/v1/profiles/posts?username=${username}`, file.apiKey)
    ).json();
    const v1Cursor = (v1Page as { meta: { paging: { nextCursor: string } } }).meta.paging.nextCursor;
    const onV2 = await expectError(
      await v2(`/api/v2/profiles/${username}/posts?${new URLSearchParams({ cursor: v1Cursor })}`),
      400,
      'invalid_request',
    );
    expect(onV2.error.details).toEqual([
      expect.objectContaining({
        field: 'cursor',
        code: 'invalid_value',
        message: expect.stringMatching(/issued by the \/v1 endpoints/),
      }),
    ]);

    const v2Page = await (await v2(`/api/v2/profiles/${username}/posts`)).json();
    const v2Cursor = (v2Page as { paging: { nextCursor: string } }).paging.nextCursor;
    const onV1 = await expectError(
      await file.harness.get(
        `/v1/profiles/posts?${new URLSearchParams({ username, cursor: v2Cursor })}`,
        file.apiKey,
      ),
      400,
      'invalid_request',
    );
    expect(onV1.error.details[0]?.message).toMatch(/issued by the \/api\/v2 endpoints/);
  });
});

describe('transport rules', () => {
  it('refuses an Authorization header, even with a good key, naming X-API-Key', async () => {
    const response = await file.harness.app.request(`/api/v2/profiles/${username}`, {
      headers: { Authorization: `Bearer ${file.apiKey}` },
    });
    const body = await expectError(response, 401, 'invalid_api_key');
    expect(body.error.details).toEqual([
      expect.objectContaining({ field: 'Authorization', message: expect.stringContaining('X-API-Key') }),
    ]);
    expect(response.headers.get('www-authenticate')).toContain('X-API-Key');
  });

  it('answers another method with 405 and Allow: GET', async () => {
    const response = await v2(`/api/v2/profiles/${username}`, file.apiKey, { method: 'POST' });
    await expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET');
  });

  it.each([
    ['/api/v2/profiles/%ZZ', 400],
    ['/api/v2/profiles/%00', 400],
    [`/api/v2/profiles/${'a'.repeat(5000)}`, 400],
    ['/api/v2/profiles/__proto__/positions', 400],
    ['/api/v2/profiles/a%2Fb/skills', 400],
    ['/api/v2/companies/constructor', 404],
    ['/api/v2/search/hashtags/%E0%A4%A', 400],
  ])('answers a hostile path parameter %s with %i, never a 500', async (path, status) => {
    const body = await expectError(
      await v2(path),
      status,
      status === 400 ? 'invalid_request' : 'resource_not_found',
    );
    if (status === 400) expect(body.error.details).toHaveLength(1);
  });

  it.each([
    ['/api/v2/profiles/a', 'public_identifier'],
    ['/api/v2/profiles/a/positions', 'public_identifier'],
    ['/api/v2/profiles/id/ACoA-too-short', 'profile_id'],
    ['/api/v2/companies/a%20b/posts', 'universal_name'],
    ['/api/v2/companies/id/northwind', 'company_id'],
    ['/api/v2/posts/7265401938275610624/comments', 'post_slug'],
    ['/api/v2/search/hashtags/%20', 'hashtag'],
  ])('names a bad path parameter of %s as the listing does: %s', async (path, field) => {
    const body = await expectError(await v2(path), 400, 'invalid_request');
    expect(body.error.details).toEqual([
      { field, code: expect.any(String), message: expect.stringMatching(new RegExp(`^${field}[ :]`)) },
    ]);
    expect(body.error.details[0]?.message).not.toMatch(/\busername\b/);
  });

  it('names the path parameter and the extra identifier when the query sends another', async () => {
    const url = encodeURIComponent(`https://www.linkedin.com/in/${username}/`);
    const body = await expectError(
      await v2(`/api/v2/profiles/${username}?url=${url}`),
      400,
      'invalid_request',
    );
    expect(body.error.details).toEqual([
      {
        field: 'public_identifier',
        code: 'identifier_count',
        message:
          'This path takes exactly one identifier, public_identifier; url was sent as well: remove it.',
      },
    ]);
  });

  it('refuses the identifier in the query of a path that carries it, saying where it goes', async () => {
    const body = await expectError(
      await v2(`/api/v2/profiles/${username}?username=${username}`),
      400,
      'invalid_request',
    );
    expect(body.error.details).toEqual([
      {
        field: 'username',
        code: 'unknown_parameter',
        message: expect.stringContaining('{public_identifier}'),
      },
    ]);
  });

  it.each([
    '/api/v2',
    '/api/v2/profiles',
    `/api/v2/profiles/${username}/nothing-here`,
    '/api/v2/ext/emails/nothing',
  ])('answers the JSON 404 at %s', async (path) => {
    const body = await expectError(await v2(path), 404, 'resource_not_found');
    expect(body.error.message).toBe('No endpoint at this path.');
  });
});
