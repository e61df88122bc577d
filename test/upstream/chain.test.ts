/**
 * The v1 → upstream → v2 chain: instance B is the real app on the embedded dataset, listening on
 * loopback; instance A is the real app with DATA_SOURCE=upstream, reading every lookup from B's
 * /api/v2 with a key B issued. For every data lookup A answers what B answers from its dataset,
 * page after page, whatever letters the identifiers hold; a miss is a refunded 404; and neither
 * instance ever logs the key A sends B.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import type { Family } from '../../schemas/operation-definition.js';
import { createLogger } from '../../shared/logger.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type ListeningApp, listen } from '../support/mcp-server.js';
import { identifierValues, sampleRequests, unknownIdentifiers } from '../support/sample-inputs.js';
import { selfContained, v2SampleRequest } from '../support/v2-inputs.js';

const DATA_FAMILIES: readonly Family[] = ['profiles', 'companies', 'posts', 'jobs', 'search'];
const plenty = { credits: 1_000_000, rateLimit: { limit: 1_000_000, windowSeconds: 60 } };

/** The instance-A account on B, the one A's upstream key belongs to. */
let upstreamAccount: string;

/** Every line each instance logs (info and up), to look for the upstream key in. */
const logLines = { a: [] as string[], b: [] as string[] };
const sink = (lines: string[]) =>
  createLogger(
    'info',
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
  );

let b: Harness;
let bListening: ListeningApp;
let a: Harness;
/** The key A sends B, as X-API-Key. */
let upstreamKey: string;
/** A key of B's for asking B directly, as a client of the dataset would. */
let directKey: string;
/** A key of A's, for A's callers, and its account. */
let callerKey: string;
let callerAccount: string;

beforeAll(async () => {
  b = await startHarness({ logger: sink(logLines.b) });
  const instanceA = await b.provision({ name: 'instance A', ...plenty });
  upstreamKey = instanceA.apiKey;
  upstreamAccount = instanceA.account.accountId;
  ({ apiKey: directKey } = await b.provision({ name: 'direct client', ...plenty }));
  bListening = await listen(b);
  a = await startHarness({
    logger: sink(logLines.a),
    env: { DATA_SOURCE: 'upstream', UPSTREAM_URL: bListening.origin, UPSTREAM_API_KEY: upstreamKey },
  });
  const caller = await a.provision(plenty);
  callerKey = caller.apiKey;
  callerAccount = caller.account.accountId;
});

afterAll(async () => {
  await a?.close();
  await bListening?.close();
  await b?.close();
});

interface Body {
  data: unknown;
  meta: { paging?: { hasMore: boolean; nextCursor?: string | null; nextStart?: number | null } };
}

const viaA = (url: string) => a.get(url, callerKey);
const fromB = (url: string) => b.get(url, directKey);

async function body(response: Response): Promise<Body> {
  expect(response.status).toBe(200);
  return (await response.json()) as Body;
}

/** Cursors are tokens of the instance that issued them: compared by whether there is one. */
function comparable(answer: Body) {
  const paging = answer.meta.paging;
  if (!paging || !('nextCursor' in paging)) return answer;
  return {
    ...answer,
    meta: { ...answer.meta, paging: { ...paging, nextCursor: paging.nextCursor !== null } },
  };
}

const withQuery = (path: string, parameters: Record<string, string>) => {
  const query = new URLSearchParams(parameters).toString();
  return query ? `${path}?${query}` : path;
};

const v1Lookups = catalog.filter(
  (operation) => DATA_FAMILIES.includes(operation.family) && operation.variants.length > 0,
);
const v1Cases = v1Lookups.flatMap((operation) =>
  sampleRequests(operation).map(
    (sample) => [sample.path, withQuery(sample.path, sample.parameters)] as const,
  ),
);

describe('every v1 data lookup', () => {
  it('covers every path of every data operation', () => {
    expect(v1Cases.length).toBe(v1Lookups.reduce((sum, operation) => sum + operation.variants.length, 0));
    expect(v1Cases.length).toBeGreaterThan(50);
  });

  it.each(v1Cases)('%s answers through the upstream what the dataset answers', async (_, url) => {
    const [throughA, direct] = await Promise.all([body(await viaA(url)), body(await fromB(url))]);
    expect(comparable(throughA)).toEqual(comparable(direct));
  });
});

describe('every /api/v2 data route', () => {
  const routes = v2Routes.filter(
    (route) => selfContained.has(route.operation.id) && DATA_FAMILIES.includes(route.operation.family),
  );

  it.each(routes.map((route) => [route.path, route] as const))(
    '%s answers through the upstream what the dataset answers',
    async (_, route) => {
      const { url } = v2SampleRequest(route);
      const [throughA, direct] = await Promise.all([
        a.app.request(url, { headers: { 'X-API-Key': callerKey } }),
        b.app.request(url, { headers: { 'X-API-Key': directKey } }),
      ]);
      expect(throughA.status).toBe(200);
      expect(direct.status).toBe(200);
      expect(((await throughA.json()) as Body).data).toEqual(((await direct.json()) as Body).data);
    },
  );
});

/** Follows `next` from the first page to the last on both instances; the pages, compared one by one. */
async function followBoth(first: string, next: (url: string, answer: Body) => string | null) {
  let pages = 0;
  let urls: [string | null, string | null] = [first, first];
  while (urls[0] !== null && urls[1] !== null) {
    const [throughA, direct] = await Promise.all([body(await viaA(urls[0])), body(await fromB(urls[1]))]);
    expect(comparable(throughA)).toEqual(comparable(direct));
    urls = [next(urls[0], throughA), next(urls[1], direct)];
    pages += 1;
  }
  expect(urls).toEqual([null, null]);
  return pages;
}

/** The same URL with one parameter set to the value paging hands over. */
function nextUrl(url: string, parameter: string, value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const parsed = new URL(url, 'http://local');
  parsed.searchParams.set(parameter, String(value));
  return `${parsed.pathname}${parsed.search}`;
}

describe('paging through the upstream', () => {
  const { username } = fx.richProfile;

  it.each(['posts', 'reactions'])('follows the %s cursor to the end, page for page', async (stream) => {
    const pages = await followBoth(`/v1/profiles/${stream}?username=${username}`, (url, answer) =>
      answer.meta.paging?.hasMore ? nextUrl(url, 'cursor', answer.meta.paging.nextCursor) : null,
    );
    expect(pages).toBeGreaterThan(2);
  });

  it('follows skills by start to the end', async () => {
    const pages = await followBoth(`/v1/profiles/skills/by-username?username=${username}`, (url, answer) =>
      nextUrl(url, 'start', answer.meta.paging?.nextStart),
    );
    expect(pages).toBeGreaterThan(2);
  });

  it.each([
    ['company search', `/v1/companies/search?keywords=${fx.broadCompanyKeyword}`],
    ['domain search', `/v1/companies/search/by-domain?domain=${fx.sharedDomain.domain}`],
  ])('follows %s by offset to the end', async (_, first) => {
    const pages = await followBoth(first, (url, answer) =>
      nextUrl(url, 'offset', (answer.meta.paging as { nextOffset?: number | null }).nextOffset),
    );
    expect(pages).toBeGreaterThan(1);
  });
});

describe('identifiers the path must carry', () => {
  const usernames = fx.nonEnglishUsernames.map((username) => [username] as const);
  const slugs = fx.unusualSlugs.map((slug) => [slug] as const);

  it.each(usernames)('reads the profile %s', async (username) => {
    for (const path of ['/v1/profiles/details/by-username', '/v1/profiles/experience/by-username']) {
      const url = withQuery(path, { username });
      expect((await body(await viaA(url))).data).toEqual((await body(await fromB(url))).data);
    }
  });

  it.each(slugs)('reads the company %s', async (slug) => {
    for (const path of [
      '/v1/companies/details/by-slug',
      '/v1/companies/people/by-slug',
      '/v1/companies/similar/by-slug',
    ]) {
      const url = withQuery(path, { slug });
      const answer = await body(await viaA(url));
      expect(answer.data).toEqual((await body(await fromB(url))).data);
      if (path.includes('details')) expect(answer.data).toMatchObject({ slug });
    }
  });
});

describe('nothing matched', () => {
  it.each([
    ['a profile', `/v1/profiles/details/by-username?username=${unknownIdentifiers.profiles?.username}`],
    [
      'a profile by publicId',
      `/v1/profiles/company-interests/by-id?publicId=${unknownIdentifiers.profiles?.publicId}`,
    ],
    ['a company', `/v1/companies/posts/by-slug?slug=${unknownIdentifiers.companies?.slug}`],
  ])('%s: a 404 through the upstream, refunded, the ledger saying why', async (_, url) => {
    const before = (await a.repositories.ledger.state(callerAccount)).balance;
    const response = await viaA(url);
    const error = await expectError(response, 404, 'resource_not_found');
    expect(error.error.retryable).toBe(false);
    expect((await a.repositories.ledger.state(callerAccount)).balance).toBe(before);
    const entries = await a.repositories.ledger.entries(callerAccount);
    expect(entries.find((entry) => entry.requestId === response.headers.get('x-request-id'))).toMatchObject({
      status: 'refunded',
      refundReason: 'resource_not_found',
      httpStatus: 404,
    });
  });
});

it('reads the profile a publicId names through details by id', async () => {
  const url = `/v1/profiles/company-interests/by-id?publicId=${identifierValues.profiles?.publicId}`;
  expect(comparable(await body(await viaA(url)))).toEqual(comparable(await body(await fromB(url))));
});

it("reaches B only through B's /api/v2, under the key B issued A", async () => {
  const calls = await b.repositories.ledger.entries(upstreamAccount, { limit: 10_000 });
  expect(calls.length).toBeGreaterThan(v1Cases.length);
  expect(new Set(calls.map((call) => call.transport))).toEqual(new Set(['v2']));
});

it('logs, on both instances, never the key A sends B', () => {
  const requests = (lines: string[]) => lines.filter((line) => line.includes('"msg":"request"'));
  expect(requests(logLines.a).length).toBeGreaterThan(100);
  expect(requests(logLines.b).length).toBeGreaterThan(100);
  for (const line of [...logLines.a, ...logLines.b]) {
    expect(line).not.toContain(upstreamKey);
    expect(line).not.toContain(upstreamKey.slice(-40));
  }
});
