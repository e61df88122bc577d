/**
 * The input rules of the data lookups, each with its own test, through the real app.
 */
import { describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({ credits: 10_000 });

const get = (path: string, parameters: Record<string, string> | string) =>
  file.harness.get(
    `${path}?${typeof parameters === 'string' ? parameters : new URLSearchParams(parameters)}`,
    file.apiKey,
  );

async function refused(
  path: string,
  parameters: Record<string, string> | string,
  field: string,
  code: string,
) {
  const body = await expectError(await get(path, parameters), 400, 'invalid_request');
  const detail = body.error.details.find((candidate) => candidate.field === field);
  expect(detail, JSON.stringify(body.error.details)).toMatchObject({ code });
  return detail?.message as string;
}

describe('usernames', () => {
  it.each(fx.nonEnglishUsernames)(
    'finds %s when its non-English letters are URL-encoded',
    async (username) => {
      const response = await get('/v1/profiles/details/by-username', { username });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { username: string } }).data.username).toBe(username);
    },
  );

  it('finds a non-English username inside a percent-encoded profile URL', async () => {
    const [username] = fx.nonEnglishUsernames;
    const url = `https://www.linkedin.com/in/${encodeURIComponent(username)}/`;
    const response = await get('/v1/profiles/details/by-url', { url });
    expect(((await response.json()) as { data: { username: string } }).data.username).toBe(username);
  });
});

describe('profile and company URLs are parsed strictly', () => {
  const path = '/v1/profiles/details/by-url';
  it.each([
    ['https://de.linkedin.com/in/amelia-hartmann', 'a country subdomain'],
    ['http://linkedin.com/in/amelia-hartmann/?trk=public_profile', 'http, no www, a tracking query'],
  ])('accepts %s (%s)', async (url) => {
    expect((await get(path, { url })).status).toBe(200);
  });

  it.each([
    ['https://evil.example/in/amelia-hartmann', 'another host'],
    ['https://linkedin.com.evil.example/in/amelia-hartmann', 'a host that only starts like the network'],
    ['https://www.linkedin.com/company/northwind-analytics', 'a company URL on a profile path'],
    ['https://www.linkedin.com/in/amelia-hartmann/details/skills', 'a deeper path'],
    ['https://www.linkedin.com/in/', 'no username'],
    ['https://user:pass@www.linkedin.com/in/amelia-hartmann', 'credentials'],
    ['https://www.linkedin.com:8443/in/amelia-hartmann', 'a port'],
    ['ftp://www.linkedin.com/in/amelia-hartmann', 'another scheme'],
    ['amelia-hartmann', 'not a URL'],
  ])('refuses %s (%s)', async (url) => {
    await refused(path, { url }, 'url', 'invalid_format');
  });

  it('refuses a profile URL where a company URL is expected', async () => {
    await refused(
      '/v1/companies/details/by-url',
      { url: 'https://www.linkedin.com/in/amelia-hartmann' },
      'url',
      'invalid_format',
    );
  });
});

describe('company search parameters', () => {
  const path = '/v1/companies/search';
  it('takes keywords of 1 to 120 characters', async () => {
    await refused(path, { keywords: '' }, 'keywords', 'invalid_value');
    await refused(path, { keywords: 'k'.repeat(121) }, 'keywords', 'too_long');
    expect((await get(path, { keywords: 'k'.repeat(120) })).status).toBe(200);
  });

  it.each([
    ['-1', 'invalid_format'],
    ['1.5', 'invalid_format'],
    ['ten', 'invalid_format'],
    ['10001', 'invalid_value'],
  ])('refuses offset=%s (%s)', async (offset, code) => {
    await refused(path, { keywords: 'software', offset }, 'offset', code);
  });

  it('takes offset 10000, the last one allowed', async () => {
    expect((await get(path, { keywords: 'software', offset: '10000' })).status).toBe(200);
  });

  it('takes at most 10 unique ids per filter (repeats count once)', async () => {
    const ids = (count: number) => Array.from({ length: count }, (_, index) => String(100 + index));
    await refused(path, { keywords: 'software', location: ids(11).join(',') }, 'location', 'invalid_value');
    await refused(path, { keywords: 'software', industry: ids(11).join(',') }, 'industry', 'invalid_value');
    const repeated = [...ids(10), ...ids(10)].join(',');
    expect((await get(path, { keywords: 'software', location: repeated })).status).toBe(200);
  });

  it('refuses names where ids are expected', async () => {
    await refused(path, { keywords: 'software', location: 'Berlin' }, 'location', 'invalid_format');
  });

  it.each(['A', 'b', 'J', 'B,,C', 'B C'])('refuses companySize=%s', async (companySize) => {
    await refused(path, { keywords: 'software', companySize }, 'companySize', 'invalid_value');
  });

  it.each(['false', 'TRUE', '1', ''])('refuses hasJobs=%s', async (hasJobs) => {
    await refused(path, { keywords: 'software', hasJobs }, 'hasJobs', 'invalid_value');
  });

  it.each(['limit', 'count'])('refuses %s, saying the page size is fixed', async (name) => {
    const message = await refused(path, { keywords: 'software', [name]: '5' }, name, 'unknown_parameter');
    expect(message).toMatch(/fixed at 10/);
  });

  it('refuses a parameter sent twice', async () => {
    await refused(path, 'keywords=a&keywords=b', 'keywords', 'repeated_parameter');
  });
});

describe('profile details', () => {
  it('refuses includeContact and points at the contact endpoint', async () => {
    const message = await refused(
      '/v1/profiles/details/by-username',
      { username: fx.richProfile.username, includeContact: 'true' },
      'includeContact',
      'unknown_parameter',
    );
    expect(message).toMatch(/\/v1\/profiles\/contact/);
  });

  it('refuses the identifier of another path with identifier_count', async () => {
    await refused(
      '/v1/profiles/details/by-username',
      { publicId: fx.richProfile.publicId },
      'username',
      'identifier_count',
    );
  });
});

describe('posts', () => {
  it('refuses a numeric post id where the full slug is needed, and says so', async () => {
    const message = await refused(
      '/v1/posts/details/by-slug',
      { slug: '7265401938275610624' },
      'slug',
      'invalid_format',
    );
    expect(message).toMatch(/full post slug/);
  });

  it('requires reactionType from the documented list', async () => {
    const base = { slug: fx.post.slug };
    await refused('/v1/posts/reactions/by-slug', base, 'reactionType', 'invalid_value');
    await refused(
      '/v1/posts/reactions/by-slug',
      { ...base, reactionType: 'love' },
      'reactionType',
      'invalid_value',
    );
    expect((await get('/v1/posts/reactions/by-slug', { ...base, reactionType: 'PRAISE' })).status).toBe(200);
  });
});
