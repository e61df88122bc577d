/**
 * Identifiers in every script, through the real app: usernames sent composed (NFC) or decomposed
 * (NFD), as a parameter and inside a percent-encoded profile URL, and the unusual company slugs the
 * network hands out (periods, ampersands, a leading underscore, non-English letters), by slug and by
 * URL. What can never be a slug is still refused with a clear message.
 */
import { describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({ credits: 10_000 });

const get = (path: string, parameters: Record<string, string>) =>
  file.harness.get(`${path}?${new URLSearchParams(parameters)}`, file.apiKey);

async function dataOf<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

const forms = (username: string) =>
  [
    ['composed (NFC)', username.normalize('NFC')],
    ['decomposed (NFD)', username.normalize('NFD')],
  ] as const;

describe('usernames in every script', () => {
  it('holds people whose usernames are Latin with accents, Cyrillic, Devanagari, Arabic, CJK and Thai', () => {
    const scripts = ['Latin', 'Cyrillic', 'Devanagari', 'Arabic', 'Han', 'Thai'];
    for (const script of scripts) {
      const pattern = new RegExp(`\\p{Script=${script}}`, 'u');
      expect(
        fx.nonEnglishUsernames.some((username) => pattern.test(username) && /[^\p{ASCII}]/u.test(username)),
        script,
      ).toBe(true);
    }
  });

  describe.each(fx.nonEnglishUsernames)('%s', (username) => {
    it.each(forms(username))('is found by username sent %s', async (_, sent) => {
      const data = await dataOf<{ username: string }>(
        await get('/v1/profiles/details/by-username', { username: sent }),
      );
      expect(data.username).toBe(username);
    });

    it.each(forms(username))('is found by a profile URL carrying it %s, percent-encoded', async (_, sent) => {
      const url = `https://www.linkedin.com/in/${encodeURIComponent(sent)}/`;
      const data = await dataOf<{ username: string }>(await get('/v1/profiles/details/by-url', { url }));
      expect(data.username).toBe(username);
    });

    it('is found by the activity and similar-profile lookups, sent decomposed', async () => {
      const sent = username.normalize('NFD');
      for (const path of ['/v1/profiles/posts', '/v1/profiles/similar', '/v1/profiles/skills/by-username']) {
        expect((await get(path, { username: sent })).status, path).toBe(200);
      }
    });
  });

  it('still refuses a username that starts with a combining mark', async () => {
    const body = await expectError(
      await get('/v1/profiles/details/by-username', { username: '\u0301abc' }),
      400,
      'invalid_request',
    );
    expect(body.error.details).toContainEqual(expect.objectContaining({ field: 'username' }));
  });
});

describe('company slugs the network hands out', () => {
  it.each(fx.unusualSlugs)('looks up %s by slug, by URL and by the lists about it', async (slug) => {
    const bySlug = await dataOf<{ slug: string; publicId: string }>(
      await get('/v1/companies/details/by-slug', { slug }),
    );
    expect(bySlug.slug).toBe(slug);
    const url = `https://www.linkedin.com/company/${encodeURIComponent(slug)}/`;
    expect(await dataOf(await get('/v1/companies/details/by-url', { url }))).toEqual(bySlug);
    for (const list of ['posts', 'similar', 'people', 'products', 'jobs']) {
      expect((await get(`/v1/companies/${list}/by-slug`, { slug })).status, list).toBe(200);
    }
  });

  it('looks up a slug with non-English letters sent decomposed', async () => {
    const data = await dataOf<{ slug: string }>(
      await get('/v1/companies/details/by-slug', { slug: 'café-münchen'.normalize('NFD') }),
    );
    expect(data.slug).toBe('café-münchen');
  });

  it('looks up the networkUrl company search returns for acme.co', async () => {
    const search = await dataOf<{ companies: { slug: string; networkUrl: string }[] }>(
      await get('/v1/companies/search', { keywords: 'acme' }),
    );
    const acme = search.companies.find((company) => company.slug === 'acme.co');
    expect(acme).toBeDefined();
    expect((await get('/v1/companies/details/by-url', { url: acme?.networkUrl ?? '' })).status).toBe(200);
  });

  it.each([
    ['a slash', 'acme/co'],
    ['a space', 'acme co'],
    ['a tab', 'acme\tco'],
    ['a control character', 'acme\u0000co'],
    ['a question mark', 'acme?co'],
    ['a hash', 'acme#co'],
    ['a percent sign', 'acme%2Eco'],
    ['more than 100 characters', 'a'.repeat(101)],
  ])('refuses a slug with %s, saying what a slug may hold', async (_, slug) => {
    const body = await expectError(
      await get('/v1/companies/details/by-slug', { slug }),
      400,
      'invalid_request',
    );
    const detail = body.error.details.find((candidate) => candidate.field === 'slug');
    expect(detail?.code).toMatch(/^(invalid_format|too_long)$/);
    expect(detail?.message).toMatch(/slug/);
  });

  it('refuses a company URL whose slug decodes to a percent sign', async () => {
    const body = await expectError(
      await get('/v1/companies/details/by-url', { url: 'https://www.linkedin.com/company/acme%25co/' }),
      400,
      'invalid_request',
    );
    expect(body.error.details).toContainEqual(
      expect.objectContaining({ field: 'url', code: 'invalid_format' }),
    );
  });
});
