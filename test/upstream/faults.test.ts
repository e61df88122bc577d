/**
 * The upstream adapter against a misbehaving /api/v2 on loopback (a node:http server of this file,
 * whose behaviour the looked-up username picks): late, not JSON, off the schema, 500, 429 and 503
 * with Retry-After, a reset connection, 404, a refused key, an expired cursor. The real app
 * (DATA_SOURCE=upstream) answers each with the right status, code, `retryable` and Retry-After,
 * gives the credit back and says why in the ledger; it sends only its own key, never a caller's,
 * logs that key nowhere, keeps connections alive, never has more than UPSTREAM_MAX_IN_FLIGHT
 * requests out, and lets go of an upstream request when the lookup's own deadline passes.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { createLogger } from '../../shared/logger.js';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';

const TIMEOUT_MS = 500;
const MAX_IN_FLIGHT = 2;
/** A deadline of the contact lookup shorter than TIMEOUT_MS: the caller's signal ends the upstream request. */
const CONTACT_DEADLINE_MS = 200;
const UPSTREAM_KEY = `upstream-key-${'k'.repeat(40)}`;

const errorBody = (code: string) =>
  JSON.stringify({
    error: { code, message: 'upstream says no', retryable: false, details: [] },
    meta: { requestId: 'u1' },
  });
const positionsBody = (positions: unknown[]) =>
  JSON.stringify({
    data: { positions },
    paging: null,
    meta: { requestId: 'u1', operation: 'profiles.experience', creditCost: 1 },
  });

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(body);
}

/** What the upstream does, by the username in the path. */
const behaviours: Record<string, (res: ServerResponse, headers: IncomingHttpHeaders) => void> = {
  ok: (res) => setTimeout(() => send(res, 200, positionsBody([])), 150),
  slow: (res) => setTimeout(() => send(res, 200, positionsBody([])), 3 * TIMEOUT_MS),
  'wrong-json': (res) => send(res, 200, '{"data": {"positions": ['),
  'off-schema': (res) => send(res, 200, positionsBody([{ title: 42 }])),
  'status-500': (res) => send(res, 500, errorBody('internal_error')),
  'status-429': (res) => send(res, 429, errorBody('rate_limit_exceeded'), { 'Retry-After': '17' }),
  'status-503': (res) => send(res, 503, errorBody('service_unavailable'), { 'Retry-After': '99999' }),
  reset: (res) => res.socket?.destroy(),
  missing: (res) => send(res, 404, errorBody('resource_not_found')),
  'refused-key': (res) => send(res, 401, errorBody('invalid_api_key')),
  'cursor-expired': (res) => send(res, 400, errorBody('cursor_expired')),
  // A hostile upstream puts the key it was sent where a schema failure would quote it.
  'echo-key': (res, headers) =>
    send(
      res,
      200,
      JSON.stringify({
        data: {
          publicId: 'ACoAAEchoEchoEchoEchoEchoEcho',
          username: 'echo-key',
          fullName: 'Echo',
          headline: null,
          location: null,
          networkUrl: 'https://www.linkedin.com/in/echo-key/',
          summary: null,
          experience: [],
          education: [],
          skills: [],
        },
        paging: null,
        meta: {
          requestId: 'u1',
          operation: 'profiles.details',
          creditCost: 2,
          sections: { [`${headers['x-api-key']}`]: 'no such status' },
          skills: { hasMore: null },
        },
      }),
    ),
};

/** The misbehaving upstream: what it was sent, how many connections, and how many requests at once. */
const upstream = {
  requests: [] as { path: string; headers: IncomingHttpHeaders }[],
  connections: 0,
  active: 0,
  mostActive: 0,
  /** Every request the client gave up on before an answer: its path, and milliseconds from arrival to close. */
  abandoned: [] as { path: string; afterMs: number }[],
  origin: '',
};
const sockets = new Set<Socket>();
const server = createServer((req, res) => {
  const arrived = Date.now();
  upstream.requests.push({ path: req.url ?? '', headers: req.headers });
  upstream.active += 1;
  upstream.mostActive = Math.max(upstream.mostActive, upstream.active);
  res.on('close', () => {
    upstream.active -= 1;
    if (!res.writableEnded) upstream.abandoned.push({ path: req.url ?? '', afterMs: Date.now() - arrived });
  });
  const username = decodeURIComponent(/^\/api\/v2\/profiles\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '');
  const behave = behaviours[username];
  if (behave) behave(res, req.headers);
  else send(res, 404, errorBody('resource_not_found'));
});
server.on('connection', (socket) => {
  upstream.connections += 1;
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});

const logLines: string[] = [];
let app: Harness;
let callerKey: string;
let callerAccount: string;

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  upstream.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await startHarness({
    env: {
      DATA_SOURCE: 'upstream',
      UPSTREAM_URL: upstream.origin,
      UPSTREAM_API_KEY: UPSTREAM_KEY,
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      UPSTREAM_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
    },
    operations: catalog.map((operation) =>
      operation.id === 'profiles.contact'
        ? { ...operation, runtime: { ...operation.runtime, timeoutMs: CONTACT_DEADLINE_MS } }
        : operation,
    ),
    logger: createLogger(
      'debug',
      new Writable({
        write(chunk, _encoding, done) {
          logLines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      }),
    ),
  });
  const caller = await app.provision({ credits: 1000 });
  callerKey = caller.apiKey;
  callerAccount = caller.account.accountId;
});

afterAll(async () => {
  await app?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const experience = (username: string) =>
  app.get(`/v1/profiles/experience/by-username?username=${username}`, callerKey);

/** The ledger entry of a response's request. */
async function ledgerEntry(response: Response) {
  const entries = await app.repositories.ledger.entries(callerAccount, { limit: 1000 });
  return entries.find((entry) => entry.requestId === response.headers.get('x-request-id'));
}

describe('a misbehaving upstream', () => {
  it.each([
    ['slow past the deadline', 'slow', 504, 'upstream_timeout', null],
    ['wrong JSON', 'wrong-json', 502, 'upstream_error', null],
    ['a body off the schema', 'off-schema', 502, 'upstream_error', null],
    ['a 500', 'status-500', 502, 'upstream_error', null],
    ['a 429 with Retry-After', 'status-429', 503, 'service_unavailable', '17'],
    ['a 503 asking for too long a wait', 'status-503', 503, 'service_unavailable', '600'],
    ['a reset connection', 'reset', 502, 'upstream_error', null],
    ['a refusal of our own key', 'refused-key', 503, 'service_unavailable', '60'],
    ['a 404', 'missing', 404, 'resource_not_found', null],
  ])(
    '%s: %s answers %i %s, refunded, the ledger saying why',
    async (_, username, status, code, retryAfter) => {
      const before = (await app.repositories.ledger.state(callerAccount)).balance;
      const response = await experience(username);
      const body = await expectError(response, status, code);
      expect(body.error.retryable).toBe(status !== 404);
      expect(body.error.message).not.toContain(UPSTREAM_KEY);
      expect(response.headers.get('retry-after')).toBe(retryAfter);
      expect(response.headers.get('x-credits-remaining')).toBe(String(before));
      expect((await app.repositories.ledger.state(callerAccount)).balance).toBe(before);
      expect(await ledgerEntry(response)).toMatchObject({
        status: 'refunded',
        refundReason: code,
        httpStatus: status,
      });
    },
  );

  it('an expired upstream cursor is our expired cursor, refunded', async () => {
    const response = await app.get('/v1/profiles/posts?username=cursor-expired', callerKey);
    await expectError(response, 400, 'cursor_expired');
    expect(await ledgerEntry(response)).toMatchObject({ status: 'refunded', refundReason: 'cursor_expired' });
  });

  it('answers within the deadline, not when the upstream finally does', async () => {
    const started = Date.now();
    await expectError(await experience('slow'), 504, 'upstream_timeout');
    expect(Date.now() - started).toBeLessThan(2 * TIMEOUT_MS);
  });

  it("lets go of the upstream request when the lookup's own deadline passes first", async () => {
    const response = await app.get('/v1/profiles/contact/by-username?username=slow', callerKey);
    const body = await expectError(response, 504, 'upstream_timeout');
    expect(body.error.message).toContain(`${CONTACT_DEADLINE_MS} ms`);
    const contact = () => upstream.abandoned.find(({ path }) => path === '/api/v2/profiles/slow/contact');
    await expect.poll(contact).toBeDefined();
    expect(contact()?.afterMs).toBeLessThan(TIMEOUT_MS);
  });
});

describe('requests in flight', () => {
  it(`sends at most ${MAX_IN_FLIGHT} at once: the next one waits for a free slot`, async () => {
    await expect.poll(() => upstream.active).toBe(0);
    upstream.mostActive = 0;
    const responses = await Promise.all(Array.from({ length: MAX_IN_FLIGHT + 1 }, () => experience('ok')));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(upstream.mostActive).toBe(MAX_IN_FLIGHT);
  });

  it('keeps connections alive from one request to the next', async () => {
    const connections = upstream.connections;
    for (let i = 0; i < 3; i += 1) expect((await experience('ok')).status).toBe(200);
    expect(upstream.connections - connections).toBeLessThanOrEqual(1);
  });
});

describe('keys', () => {
  it("sends the upstream its own key alone, never the caller's", () => {
    expect(upstream.requests.length).toBeGreaterThan(10);
    for (const { headers } of upstream.requests) {
      expect(headers['x-api-key']).toBe(UPSTREAM_KEY);
      expect(headers.authorization).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(callerKey);
    }
  });

  it('logs the upstream key nowhere, even when the upstream echoes it into what we log', async () => {
    await expectError(
      await app.get('/v1/profiles/details/by-username?username=echo-key', callerKey),
      502,
      'upstream_error',
    );
    const logged = logLines.join('\n');
    expect(logged).toContain('answered 500 internal_error');
    expect(logged).toContain('off the schema');
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(UPSTREAM_KEY);
  });
});
