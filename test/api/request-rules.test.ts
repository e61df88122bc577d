/**
 * Rules a client's code relies on, each found broken by black-box testing once: request-supplied
 * names never index plain objects, error text stays within the spec's bounds, one identifier rule on
 * every path, blank values, RFC 9110 Accept precedence, the rate-limit reset inside the window, a 404
 * lookup refunded, and the health check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';

let harness: Harness;
let apiKey: string;
const clock = new ManualClock(Date.UTC(2026, 10, 24, 12, 0, 0));

beforeAll(async () => {
  harness = await startHarness({ clock });
  ({ apiKey } = await harness.provision({ credits: 1_000 }));
});
afterAll(async () => harness?.close());

const DETAILS = '/v1/profiles/details/by-username?username=amelia-hartmann';

describe('parameter names that are also Object.prototype names', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'reports %s as an unknown parameter with a message',
    async (name) => {
      const response = await harness.get(`${DETAILS}&${name}=1`, apiKey);
      const body = await expectError(response, 400, 'invalid_request');
      expect(body.error.details).toEqual([
        { field: name, code: 'unknown_parameter', message: `Unknown parameter ${name}.` },
      ]);
    },
  );

  it('still gives the hint of a parameter the operation names', async () => {
    const response = await harness.get(`${DETAILS}&includeContact=true`, apiKey);
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.details[0]?.message).toMatch(/contact/);
  });
});

describe('error text bounds', () => {
  it('quotes at most a short prefix of a long Content-Type in the 415', async () => {
    const contentType = `text/${'x'.repeat(1_050)}`;
    const response = await harness.get(DETAILS, apiKey, { headers: { 'Content-Type': contentType } });
    const body = await expectError(response, 415, 'unsupported_media_type');
    expect(body.error.message.length).toBeLessThan(160);
    expect(body.error.message).toContain('"text/xxx');
  });

  it('reports a very long unknown parameter name as a field of at most 128 printable characters', async () => {
    const name = `${'é'.repeat(100)}${'n'.repeat(200)}`;
    const response = await harness.get(`${DETAILS}&${encodeURIComponent(name)}=1`, apiKey);
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.details[0]?.field).toHaveLength(128);
    expect(body.error.details[0]?.field.startsWith('?'.repeat(100))).toBe(true);
  });
});

describe('one identifier rule on every path', () => {
  it.each(['/v1/profiles/posts', '/v1/profiles/comments', '/v1/profiles/reactions', '/v1/profiles/similar'])(
    'answers a missing username on %s with identifier_count',
    async (path) => {
      const body = await expectError(await harness.get(path, apiKey), 400, 'invalid_request');
      expect(body.error.details).toEqual([
        expect.objectContaining({ field: 'username', code: 'identifier_count' }),
      ]);
    },
  );

  it('answers a missing url on job details with identifier_count', async () => {
    const body = await expectError(
      await harness.get('/v1/jobs/details/by-url', apiKey),
      400,
      'invalid_request',
    );
    expect(body.error.details).toEqual([expect.objectContaining({ field: 'url', code: 'identifier_count' })]);
  });

  it.each([
    '/v1/profiles/details/by-username?username=a-b&username=c-d',
    '/v1/profiles/posts?username=a-b&username=c-d',
  ])('answers a repeated identifier with one detail, repeated_parameter (%s)', async (path) => {
    const body = await expectError(await harness.get(path, apiKey), 400, 'invalid_request');
    expect(body.error.details).toEqual([
      expect.objectContaining({ field: 'username', code: 'repeated_parameter' }),
    ]);
  });

  it('answers two different identifiers with identifier_count', async () => {
    const path =
      '/v1/profiles/details/by-username?username=amelia-hartmann&url=https%3A%2F%2Fwww.linkedin.com%2Fin%2Fx1';
    const body = await expectError(await harness.get(path, apiKey), 400, 'invalid_request');
    expect(body.error.details).toEqual([
      {
        field: 'username',
        code: 'identifier_count',
        message: 'This path takes exactly one identifier, username; url was sent as well: remove it.',
      },
    ]);
  });

  it('answers the identifier of another path, named, with identifier_count', async () => {
    const path = '/v1/profiles/details/by-username?publicId=ACoAAAbcdefghijklmnopqrstuvwx&url=x';
    const body = await expectError(await harness.get(path, apiKey), 400, 'invalid_request');
    expect(body.error.details).toContainEqual({
      field: 'username',
      code: 'identifier_count',
      message:
        'This path takes exactly one identifier, username, and received url and publicId instead: ' +
        'send username (the other identifiers have paths of their own).',
    });
  });

  it('answers no identifier with identifier_count, saying none was sent', async () => {
    const body = await expectError(await harness.get('/v1/profiles/posts', apiKey), 400, 'invalid_request');
    expect(body.error.details[0]?.message).toBe(
      'This path takes exactly one identifier, username; none was sent.',
    );
  });
});

describe('blank values', () => {
  it.each([
    ['keywords', '/v1/companies/search?keywords=%20'],
    ['keywords', '/v1/search/people?keywords=%20+%20'],
    ['query', '/v1/search/typeahead?query=%20'],
    ['username', '/v1/profiles/posts?username=%20'],
    ['cursor', '/v1/profiles/posts?username=amelia-hartmann&cursor=%20'],
  ])('refuses a blank %s with invalid_value, uncharged', async (field, path) => {
    const response = await harness.get(path, apiKey);
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.details).toEqual([
      { field, code: 'invalid_value', message: `${field} must not be empty or blank.` },
    ]);
    expect(response.headers.get('x-credits-remaining')).toBeNull();
  });
});

describe('Accept negotiation (RFC 9110: the most specific range decides)', () => {
  it.each(['application/json;q=0, */*', '*/*, application/json;q=0', 'application/*;q=0, */*', 'text/html'])(
    'answers 406 to %s',
    async (accept) => {
      await expectError(
        await harness.get(DETAILS, apiKey, { headers: { Accept: accept } }),
        406,
        'not_acceptable',
      );
    },
  );

  it.each(['application/json', 'application/*', '*/*;q=0.1', 'text/html, application/json;q=0.2', ''])(
    'answers JSON to %j',
    async (accept) => {
      const response = await harness.get(DETAILS, apiKey, { headers: { Accept: accept } });
      expect(response.status).toBe(200);
    },
  );
});

describe('X-RateLimit-Reset', () => {
  it('counts the seconds until the current window ends, never more than its length', async () => {
    const { apiKey: key } = await harness.provision({ rateLimit: { limit: 3, windowSeconds: 60 } });
    const windowStart = Math.floor(clock.now() / 60_000) * 60_000;
    clock.set(windowStart + 15_400);
    const resets: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await harness.get('/v1/emails/disposable?email=a%40b.com', key);
      expect(response.status).toBe(200);
      resets.push(Number(response.headers.get('x-ratelimit-reset')));
    }
    const limited = await harness.get('/v1/emails/disposable?email=a%40b.com', key);
    await expectError(limited, 429, 'rate_limit_exceeded');
    expect([...resets, Number(limited.headers.get('x-ratelimit-reset'))]).toEqual([45, 45, 45, 45]);
    // One more fits only once the next window has weighed this one down enough: later than the reset.
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(45);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(120);
  });

  it('is 30 or less with a 30-second window', async () => {
    const { apiKey: key } = await harness.provision({ rateLimit: { limit: 1, windowSeconds: 30 } });
    await harness.get('/v1/emails/disposable?email=a%40b.com', key);
    const limited = await harness.get('/v1/emails/disposable?email=a%40b.com', key);
    await expectError(limited, 429, 'rate_limit_exceeded');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(30);
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(1);
  });
});

describe('a lookup that matches nothing', () => {
  it('answers 404 with X-Credits-Remaining, refunded, and the ledger says why', async () => {
    const { apiKey: key, account } = await harness.provision({ credits: 10 });
    const response = await harness.get('/v1/profiles/details/by-username?username=nobody-at-all-here', key);
    await expectError(response, 404, 'resource_not_found');
    expect(response.headers.get('x-credits-remaining')).toBe('10');
    expect(await harness.repositories.ledger.entries(account.accountId)).toEqual([
      expect.objectContaining({ status: 'refunded', refundReason: 'resource_not_found', httpStatus: 404 }),
    ]);
  });
});

describe('GET /healthz', () => {
  it('answers 200 with the version and the store state, without a key and without billing', async () => {
    const response = await harness.app.request('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      store: 'ok',
    });
  });

  it('answers 503 when the store is unreachable', async () => {
    const broken = await startHarness();
    await broken.close();
    const response = await broken.app.request('/healthz');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual(
      expect.objectContaining({ status: 'unavailable', store: 'unreachable' }),
    );
  });
});

describe('the version /healthz reports', () => {
  it('is the version of package.json', async () => {
    const { default: manifest } = await import('../../package.json', { with: { type: 'json' } });
    const body = (await (await harness.app.request('/healthz')).json()) as { version: string };
    expect(body.version).toBe(manifest.version);
  });
});
