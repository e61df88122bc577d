/**
 * The console over HTTP, without a browser: the security headers and cookie attributes, CSRF
 * refusals (origin and token), the throttle of failed sign-ins, session expiry with an injected
 * clock, sign-out, a revoked key ending its sessions after KEY_CACHE_SECONDS, rotation, and hostile
 * form input answered with clear pages. One service for the file, on SQLite.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../shared/console/console-security.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { runBatchItem } from '../support/batch-item.js';
import { ConsoleClient } from '../support/console-client.js';
import { type Harness, startHarness } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';

const BASE = 'https://lookup.example';
const SESSION_SECONDS = 3_600;
const KEY_CACHE_SECONDS = 5;
const FAILURE_LIMIT = 3;

let harness: Harness;
let clock: ManualClock;
let apiKey: string;
let accountId: string;

beforeAll(async () => {
  clock = new ManualClock();
  harness = await startHarness({
    clock,
    env: {
      PUBLIC_BASE_URL: BASE,
      CONSOLE_SESSION_SECONDS: String(SESSION_SECONDS),
      KEY_CACHE_SECONDS: String(KEY_CACHE_SECONDS),
      AUTH_FAILURE_LIMIT: String(FAILURE_LIMIT),
    },
  });
  mountConsole(harness, harness.store);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ name: 'Acme Research', credits: 40 }));
});

afterAll(() => harness?.close());

const client = (address?: string) => new ConsoleClient(harness.app, BASE, address);
const sessionIdOf = (console: ConsoleClient) => console.cookies.get('console_session') as string;

describe('every console answer', () => {
  it('carries the strict CSP, nosniff, a same-origin referrer policy and no-store', async () => {
    const { response } = await client().get('/console/sign-in');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('has no inline script, style or event handler on any page', async () => {
    const console = client();
    await console.signIn(apiKey);
    for (const path of [
      '/console',
      '/console/batches',
      '/console/keys',
      '/console/prices',
      '/console/connect',
      '/console/sign-in',
    ]) {
      const { response, html } = await console.get(path);
      expect(response.status, path).toBe(200);
      expect(html, path).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
      expect(html, path).not.toMatch(/<style\b/i);
      expect(html, path).not.toMatch(/\sstyle=/i);
      expect(html, path).not.toMatch(/\son[a-z]+=/i);
    }
  });

  it('serves its script and stylesheet by content hash, cached as immutable', async () => {
    const console = client();
    const { html } = await console.get('/console/sign-in');
    const paths = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(paths).toHaveLength(2);
    for (const path of paths) {
      const response = await harness.app.request(`${BASE}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      const body = new Uint8Array(await response.arrayBuffer());
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
      expect(path).toContain(hash);
    }
    expect((await harness.app.request(`${BASE}/console/assets/console-0000.js`)).status).not.toBe(200);
  });
});

describe('sign-in', () => {
  it('exchanges a key for a session cookie: HttpOnly, SameSite=Strict, Secure, Path=/console, with expiry; only its hash is stored', async () => {
    const console = client();
    await console.get('/console/sign-in');
    const { response } = await console.post('/console/sign-in', { apiKey });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/console');
    const cookie = response.headers.getSetCookie().find((header) => header.startsWith('console_session='));
    expect(cookie).toBeDefined();
    const attributes = (cookie as string).split('; ').slice(1);
    expect(attributes).toEqual(
      expect.arrayContaining([
        'Path=/console',
        `Max-Age=${SESSION_SECONDS}`,
        'HttpOnly',
        'SameSite=Strict',
        'Secure',
      ]),
    );
    const sessionId = sessionIdOf(console);
    expect(await harness.store.consoleSessions.get(sessionId)).toBeUndefined();
    const stored = await harness.store.consoleSessions.get(
      createHash('sha256').update(sessionId).digest('hex'),
    );
    expect(stored).toMatchObject({ accountId, method: 'api_key' });
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect((await console.get('/console')).html).toContain('Acme Research');
  });

  it('refuses a wrong key with 401 and, after AUTH_FAILURE_LIMIT of them, throttles the address with 429', async () => {
    const attacker = client('203.0.113.9');
    await attacker.get('/console/sign-in');
    for (let attempt = 0; attempt < FAILURE_LIMIT; attempt += 1) {
      const { response, html } = await attacker.post('/console/sign-in', {
        apiKey: `lk_live_${'x'.repeat(66)}`,
      });
      expect(response.status).toBe(401);
      expect(html).toContain('That key is wrong or no longer active');
    }
    const throttled = await attacker.post('/console/sign-in', { apiKey });
    expect(throttled.response.status).toBe(429);
    expect(Number(throttled.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(attacker.cookies.has('console_session')).toBe(false);
    // Another address is not held up.
    expect((await client('203.0.113.10').signIn(apiKey)).status).toBe(303);
  });

  it.each([
    ['scoped', { scopes: ['profiles' as const] }],
    ['capped', { dailyCreditCap: 5 }],
  ])('refuses a %s key with 403: a limited key cannot manage the account', async (_, limits) => {
    const limited = await harness.repositories.keys.issue(accountId, limits);
    const console = client();
    await console.get('/console/sign-in');
    const { response, html } = await console.post('/console/sign-in', { apiKey: limited.apiKey });
    expect(response.status).toBe(403);
    expect(html).toContain('cannot manage the account');
    expect(console.cookies.has('console_session')).toBe(false);
  });

  it('refuses a sign-in form without the sign-in page’s token', async () => {
    const console = client();
    const { response } = await console.post('/console/sign-in', { apiKey, csrf: 'forged' });
    expect(response.status).toBe(403);
    expect(console.cookies.has('console_session')).toBe(false);
  });
});

describe('state changes (CSRF)', () => {
  const keyCount = async () => (await harness.repositories.keys.list(accountId)).length;

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['an opaque origin', { origin: 'null' }],
    [
      'an opaque origin in a cross-site fetch',
      { origin: 'null', headers: { 'sec-fetch-site': 'cross-site' } },
    ],
    ['no Origin and a cross-site fetch', { origin: null, headers: { 'sec-fetch-site': 'cross-site' } }],
    ['neither Origin nor Sec-Fetch-Site', { origin: null }],
  ] as const)('refuses a post from %s with a 403 page, changing nothing', async (_, options) => {
    const console = client();
    await console.signIn(apiKey);
    const before = await keyCount();
    const { response, html } = await console.post('/console/keys', { label: 'csrf' }, options);
    expect(response.status).toBe(403);
    expect(html).toContain('Nothing was changed');
    expect(await keyCount()).toBe(before);
  });

  it('refuses a same-origin post without this session’s token, and accepts it with the token', async () => {
    const console = client();
    await console.signIn(apiKey);
    const other = client();
    await other.signIn(apiKey);
    const before = await keyCount();
    for (const csrf of ['', 'x', other.token as string]) {
      const { response } = await console.post('/console/keys', { label: 'csrf', csrf });
      expect(response.status).toBe(403);
    }
    expect(await keyCount()).toBe(before);
    const sameSite = await console.post(
      '/console/keys',
      { label: 'ok' },
      { origin: null, headers: { 'sec-fetch-site': 'same-origin' } },
    );
    expect(sameSite.response.status).toBe(201);
    expect(await keyCount()).toBe(before + 1);
  });
});

describe('sessions end', () => {
  it('at sign-out, on the server: the old cookie no longer works', async () => {
    const console = client();
    await console.signIn(apiKey);
    const oldCookie = console.cookieHeader();
    const { response } = await console.post('/console/sign-out', {});
    expect(response.status).toBe(303);
    const replay = await harness.app.request(`${BASE}/console/keys`, { headers: { cookie: oldCookie } });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/console/sign-in?session=ended');
  });

  it('after CONSOLE_SESSION_SECONDS (injected clock), and the sweep deletes them', async () => {
    const console = client();
    await console.signIn(apiKey);
    clock.advance(SESSION_SECONDS * 1000 - 1_000);
    expect((await console.get('/console')).response.status).toBe(200);
    clock.advance(1_000);
    const expired = await console.get('/console');
    expect(expired.response.status).toBe(303);
    expect(console.cookies.has('console_session')).toBe(false);
    expect(await harness.store.sweepExpired(clock.now() + 1)).toBeGreaterThan(0);
  });

  it('when its key is revoked, after KEY_CACHE_SECONDS', async () => {
    const { apiKey: ownKey } = await harness.provision({ name: 'Revoked Co' });
    const console = client();
    await console.signIn(ownKey);
    const keyId = (
      await harness.repositories.keys.list(
        (
          await harness.authenticator.authenticateKey(ownKey)
        ).account.accountId,
      )
    )[0]?.keyId as string;
    await console.get('/console/keys');
    expect((await console.post('/console/keys/revoke', { keyId })).response.status).toBe(303);
    clock.advance(KEY_CACHE_SECONDS * 1000);
    const after = await console.get('/console/keys');
    expect(after.response.status).toBe(303);
    expect(after.response.headers.get('location')).toBe('/console/sign-in?session=ended');
  });
});

describe('keys', () => {
  it('rotates a key: a new key with the same scopes and caps, the old one expiring after the chosen overlap', async () => {
    const console = client();
    await console.signIn(apiKey);
    const issued = await console.post('/console/keys', {
      label: 'agent',
      scopes: ['emails', 'profiles'],
      dailyCreditCap: '25',
      monthlyCreditCap: '',
    });
    expect(issued.response.status).toBe(201);
    const oldKey = /id="new-key"[^>]*>([^<]+)</.exec(issued.html)?.[1] as string;
    const oldId = (await harness.authenticator.authenticateKey(oldKey)).key?.keyId as string;
    const rotated = await console.post('/console/keys/rotate', { keyId: oldId, overlap: '1h' });
    expect(rotated.response.status).toBe(201);
    const newKey = /id="new-key"[^>]*>([^<]+)</.exec(rotated.html)?.[1] as string;
    const fresh = await harness.authenticator.authenticateKey(newKey);
    expect(fresh.key).toMatchObject({
      label: 'agent',
      scopes: ['emails', 'profiles'],
      dailyCreditCap: 25,
      monthlyCreditCap: null,
    });
    const old = (await harness.repositories.keys.list(accountId)).find((key) => key.keyId === oldId);
    expect(old?.expiresAt).toBe(new Date(clock.now() + 3_600_000).toISOString());
  });

  it.each([
    ['a scope that is no family', { scopes: ['__proto__'] }, 400],
    ['a label too long', { label: 'x'.repeat(101) }, 400],
    ['an expiry that is no date', { expires: '2026-13-45' }, 400],
    ['an expiry in the past', { expires: '2020-01-01' }, 400],
    ['a daily cap of 0', { dailyCreditCap: '0' }, 400],
    ['a monthly cap that is no whole number', { monthlyCreditCap: '2.5' }, 400],
  ] as const)('answers %s with a 400 page naming the problem', async (_, fields, status) => {
    const console = client();
    await console.signIn(apiKey);
    const { response, html } = await console.post('/console/keys', fields);
    expect(response.status).toBe(status);
    expect(html).toContain('class="error"');
  });

  it('answers unknown keys, overlaps and bodies with clear pages, never 500', async () => {
    const console = client();
    await console.signIn(apiKey);
    expect((await console.post('/console/keys/revoke', { keyId: 'key_nope' })).response.status).toBe(404);
    expect((await console.post('/console/keys/revoke', { keyId: 'constructor' })).response.status).toBe(404);
    const keyId = (await harness.repositories.keys.list(accountId))[0]?.keyId as string;
    expect((await console.post('/console/keys/rotate', { keyId, overlap: 'forever' })).response.status).toBe(
      400,
    );
    const json = await console.post('/console/keys', {}, { headers: { 'content-type': 'application/json' } });
    expect(json.response.status).toBe(400);
    expect((await console.get('/console/nowhere')).response.status).toBe(404);
    for (const cookie of [
      'console_session=%E0%A4%A',
      'console_session=__proto__',
      `console_session=${'a'.repeat(5000)}`,
    ]) {
      const response = await harness.app.request(`${BASE}/console`, { headers: { cookie } });
      expect(response.status, cookie).toBe(303);
    }
  });
});

describe('an agent connection page', () => {
  it('without an authorization pending in this browser, answers a clear page, never 500', async () => {
    const console = client();
    await console.signIn(apiKey);
    for (const uid of ['abc', '__proto__']) {
      const { response, html } = await console.get(`/console/connect/${uid}`);
      expect(response.status, uid).toBe(400);
      expect(html).toContain('Connection request expired');
    }
  });
});

describe('usage and activity', () => {
  it('exports CSV whose rows are the usage endpoint’s, for the same range', async () => {
    await harness.get('/v1/profiles/experience/by-username?username=amelia-hartmann', apiKey);
    await harness.get('/v1/profiles/experience/by-username?username=nobody-at-all', apiKey);
    const console = client();
    await console.signIn(apiKey);
    const csv = await console.get('/console/usage.csv');
    expect(csv.response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const answered = (await (await harness.get('/v1/account/usage', apiKey)).json()) as {
      data: {
        rows: {
          date: string;
          operation: string;
          calls: number;
          creditsCharged: number;
          creditsRefunded: number;
          callsByTransport: Record<string, number>;
        }[];
      };
    };
    expect(answered.data.rows.length).toBeGreaterThan(0);
    const [header, ...lines] = csv.html.trim().split('\r\n');
    expect(header).toBe(
      'date,operation,calls,creditsCharged,creditsRefunded,callsByTransport.rest,callsByTransport.mcp,callsByTransport.v2,callsByTransport.batch',
    );
    expect(lines).toEqual(
      answered.data.rows.map((row) =>
        [
          row.date,
          row.operation,
          row.calls,
          row.creditsCharged,
          row.creditsRefunded,
          row.callsByTransport.rest,
          row.callsByTransport.mcp,
          row.callsByTransport.v2,
          row.callsByTransport.batch,
        ].join(','),
      ),
    );
  });

  it('shows a batch item’s batch id and index in Activity, and its calls under batch in Usage', async () => {
    const item = await runBatchItem(
      harness,
      apiKey,
      'emails.disposable',
      { email: 'a@mailinator.com' },
      {
        batchId: 'bat_console_test',
        index: 17,
      },
    );
    expect(item.status).toBe(200);
    const single = await harness.get('/v1/emails/disposable?email=b%40example.com', apiKey);
    const console = client();
    await console.signIn(apiKey);
    const { html } = await console.get('/console/activity');
    const rowOf = (requestId: string | null) =>
      new RegExp(`<tr data-request-id="${requestId}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    expect(rowOf(item.requestId)).toContain('<td>batch</td>');
    expect(rowOf(item.requestId)).toContain('bat_console_test');
    expect(rowOf(item.requestId)).toMatch(/item 17\b/);
    expect(rowOf(single.headers.get('x-request-id'))).not.toContain('bat_');
    const usage = await console.get('/console/usage');
    expect(usage.html).toContain('Calls over batch');
  });

  it.each([
    ['/console/usage?from=yesterday', 'YYYY-MM-DD'],
    ['/console/usage?from=2026-01-01&to=2026-12-31', '92'],
    ['/console/usage?from=2026-11-20&to=2026-11-01', 'after'],
    ['/console/activity?cursor=not-a-cursor', 'cursor'],
    [`/console/activity?requestId=${'x'.repeat(101)}`, '100 characters'],
  ])('answers %s with a 400 page saying why', async (path, words) => {
    const console = client();
    await console.signIn(apiKey);
    const { response, html } = await console.get(path);
    expect(response.status).toBe(400);
    expect(html).toContain(words);
  });
});
