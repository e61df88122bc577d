/**
 * The embedded server's API lane (shared/http/api-lane.ts) answers exactly as the app does: one
 * service behind two node:http servers built as `npm start` builds its own, one with the lane and
 * one without, each request of the table sent to both and the answers compared (status, headers,
 * decompressed body, the log line), with a count of the requests the lane left to the app.
 */
import { type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiLane } from '../../shared/http/api-lane.js';
import { createNodeServer } from '../../shared/http/node-server.js';
import {
  FAILURE_LIMIT,
  type LaneHarness,
  startLaneHarness,
  VOLATILE_HEADERS,
} from '../support/lane-harness.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request as the table gives it: path and headers (a list sends the field more than once). */
interface Sent {
  method?: string;
  path: string;
  headers?: Record<string, string | string[]>;
  /** The local address to send from (all of 127/8 is loopback): the throttle counts by address. */
  from?: string;
  /** A body, which no GET may carry. */
  body?: string;
}

let laneHarness: LaneHarness;
let apiKey: string;
let withLane: Server;
let appOnly: Server;
/** Requests the lane's server left to the app. */
let passedToApp = 0;

beforeAll(async () => {
  laneHarness = await startLaneHarness();
  ({ apiKey } = laneHarness);
  const { harness } = laneHarness;
  const counted = {
    fetch: (incoming: Request, env: unknown) => {
      passedToApp += 1;
      return harness.app.fetch(incoming, env);
    },
  };
  const lane = new ApiLane(harness.apiEndpoints, harness.pipeline, harness.requestEdge);
  withLane = createNodeServer(counted, harness.logger, harness.config, lane);
  appOnly = createNodeServer(harness.app, harness.logger, harness.config);
  await Promise.all([withLane, appOnly].map((server) => listen(server)));
});

afterAll(async () => {
  for (const server of [withLane, appOnly]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await laneHarness?.harness.close();
});

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

function send(server: Server, sent: Sent): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: sent.method ?? 'GET',
        path: sent.path,
        headers: sent.headers ?? {},
        agent: false,
        ...(sent.from ? { localAddress: sent.from } : {}),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const encoding = incoming.headers['content-encoding'];
          const body =
            encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes;
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: body.toString('utf8'),
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(sent.body);
  });
}

/** What differs between two answers to the same request by nature (a compressed body's length too). */
const VOLATILE = new Set([...VOLATILE_HEADERS, 'content-length']);

function comparable(answer: Answer) {
  const requestId = answer.headers['x-request-id'] as string;
  const headers = Object.fromEntries(
    Object.entries(answer.headers).map(([name, value]) => [name, VOLATILE.has(name) ? typeof value : value]),
  );
  return { status: answer.status, headers, body: answer.body.replaceAll(requestId, '<request id>') };
}

/** Sends the request both ways; returns both answers after checking they are alike. */
async function bothWays(sent: Sent): Promise<{ lane: Answer; app: Answer }> {
  const lane = await send(withLane, sent);
  const app = await send(appOnly, sent);
  expect(comparable(lane)).toEqual(comparable(app));
  await new Promise((resolve) => setImmediate(resolve));
  expect(laneHarness.logLineOf(lane.headers['x-request-id'] as string)).toEqual(
    laneHarness.logLineOf(app.headers['x-request-id'] as string),
  );
  return { lane, app };
}

const bearer = () => ({ authorization: `Bearer ${apiKey}` });
/** A GET of `path` with the key as /api/v2 takes it. */
const withV2Key = (path: string) => (): Sent => ({ path, headers: { 'x-api-key': apiKey } });

describe('requests the lane answers', () => {
  // Each entry: what is sent, and the status both ways must answer.
  const cases: Array<[string, () => Sent, number]> = [
    [
      'a free check',
      () => ({ path: '/v1/emails/disposable?email=someone%40example.com', headers: bearer() }),
      200,
    ],
    [
      'a billed lookup, brotli',
      () => ({
        path: '/v1/profiles/details/by-username?username=amelia-hartmann',
        headers: { ...bearer(), 'accept-encoding': 'br, gzip' },
      }),
      200,
    ],
    [
      'a billed lookup, gzip',
      () => ({
        path: '/v1/profiles/details/by-username?username=amelia-hartmann',
        headers: { ...bearer(), 'accept-encoding': 'gzip;q=1, br;q=0' },
      }),
      200,
    ],
    [
      'an unknown profile (refunded)',
      () => ({ path: '/v1/profiles/details/by-username?username=zz-nobody-zz', headers: bearer() }),
      404,
    ],
    ['a missing parameter', () => ({ path: '/v1/emails/disposable', headers: bearer() }), 400],
    [
      'an unknown and a repeated parameter',
      () => ({
        path: '/v1/emails/disposable?email=a%40b.com&email=c%40d.com&constructor=1',
        headers: bearer(),
      }),
      400,
    ],
    [
      'a broken percent-encoding',
      () => ({ path: '/v1/emails/disposable?email=a%zz', headers: bearer() }),
      400,
    ],
    [
      'characters URL parsing re-encodes',
      () => ({ path: '/v1/emails/disposable?email=a\'b"c%40d.com', headers: bearer() }),
      200,
    ],
    ['no key', () => ({ path: '/v1/emails/disposable?email=a%40b.com' }), 401],
    ['a v2 key header on v1', withV2Key('/v1/emails/disposable?email=a%40b.com'), 401],
    [
      'two Authorization fields',
      () => ({
        path: '/v1/emails/disposable?email=a%40b.com',
        // Read alone, the last one would pass: the fields are joined, as the app reads them.
        headers: { authorization: ['Bearer x', `Bearer ${apiKey}`] },
      }),
      401,
    ],
    ['v2 with its key', withV2Key('/api/v2/ext/emails/disposable?email=a%40b.com'), 200],
    [
      'v2 with a bearer token',
      () => ({ path: '/api/v2/ext/emails/disposable?email=a%40b.com', headers: bearer() }),
      401,
    ],
    ['a v2 path parameter', withV2Key('/api/v2/profiles/amelia-hartmann'), 200],
    [
      'a v2 path parameter before a fixed segment',
      withV2Key('/api/v2/profiles/amelia-hartmann/positions'),
      200,
    ],
    ['a v2 path parameter nobody has', withV2Key('/api/v2/companies/constructor'), 404],
    [
      'a v2 path parameter the identifier rules refuse',
      withV2Key('/api/v2/profiles/__proto__/positions'),
      400,
    ],
    [
      'a v2 path parameter and a query parameter naming it',
      withV2Key('/api/v2/profiles/amelia-hartmann?public_identifier=x'),
      400,
    ],
    [
      'JSON not acceptable',
      () => ({
        path: '/v1/emails/disposable?email=a%40b.com',
        headers: { ...bearer(), accept: 'text/html' },
      }),
      406,
    ],
    [
      'a declared body',
      () => ({
        path: '/v1/emails/disposable?email=a%40b.com',
        headers: { ...bearer(), 'content-type': 'text/plain' },
      }),
      415,
    ],
    [
      'header names an object would inherit',
      () => ({
        path: '/v1/emails/disposable?email=a%40b.com',
        // Computed, so that `__proto__` is a field sent rather than the literal's prototype.
        headers: { ...bearer(), ['__proto__']: 'x', constructor: 'y' },
      }),
      200,
    ],
    [
      'a body',
      () => ({
        path: '/v1/emails/disposable?email=a%40b.com',
        headers: { ...bearer(), 'content-type': 'application/json', 'content-length': '19' },
        body: '{"email":"a@b.com"}',
      }),
      415,
    ],
  ];

  it.each(cases)('%s', async (_name, sent, status) => {
    const before = passedToApp;
    const { lane } = await bothWays(sent());
    expect(lane.status).toBe(status);
    expect(passedToApp).toBe(before);
  });

  it('compresses a large answer as the app does, and a small one not at all', async () => {
    const { lane } = await bothWays({
      path: '/v1/profiles/details/by-username?username=amelia-hartmann',
      headers: { ...bearer(), 'accept-encoding': 'br' },
    });
    expect(lane.headers['content-encoding']).toBe('br');
    expect(lane.headers.vary).toBe('Accept-Encoding');
    const small = await bothWays({
      path: '/v1/emails/disposable?email=a%40b.com',
      headers: { ...bearer(), 'accept-encoding': 'br' },
    });
    expect(small.lane.headers['content-encoding']).toBeUndefined();
  });

  it('counts refused credentials with the app: the same address is throttled whichever way it comes', async () => {
    const from = '127.0.0.2';
    const wrongKey = {
      path: '/v1/emails/disposable?email=a%40b.com',
      headers: { authorization: 'Bearer lk_live_wrong' },
      from,
    };
    for (let attempt = 0; attempt < FAILURE_LIMIT; attempt += 1)
      expect((await send(attempt % 2 === 0 ? withLane : appOnly, wrongKey)).status).toBe(401);
    const before = passedToApp;
    const { lane } = await bothWays({ ...wrongKey, headers: bearer() });
    expect(lane.status).toBe(429);
    expect(passedToApp).toBe(before);
  });
});

describe('requests the lane leaves to the app', () => {
  const cases: Array<[string, () => Sent]> = [
    [
      'another method',
      () => ({ method: 'HEAD', path: '/v1/emails/disposable?email=a%40b.com', headers: bearer() }),
    ],
    ['a path parameter with an escape', withV2Key('/api/v2/profiles/a%2Fb/skills')],
    ['a dot segment', withV2Key('/api/v2/profiles/../profiles/amelia-hartmann')],
    [
      'an unknown path beside the parameterized ones',
      withV2Key('/api/v2/profiles/amelia-hartmann/nothing-here'),
    ],
    [
      'a path spelled otherwise',
      () => ({ path: '/v1/emails/disposable/?email=a%40b.com', headers: bearer() }),
    ],
    [
      'a Host the adaptor parses',
      () => ({ path: '/v1/emails/disposable?email=a%40b.com', headers: { ...bearer(), host: 'LOCALHOST' } }),
    ],
    ['a page', () => ({ path: '/healthz' })],
  ];

  it.each(cases)('%s', async (_name, sent) => {
    const before = passedToApp;
    await bothWays(sent());
    expect(passedToApp).toBe(before + 1);
  });
});
