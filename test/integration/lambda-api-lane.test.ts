/**
 * An operation function's API lane (functions/lambda/rest-adapter.ts over shared/http/api-lane.ts)
 * answers API Gateway's events exactly as the app behind Hono's Lambda adaptor does: one service, two
 * response-streaming handlers made as the functions make theirs, one with the lane and one without,
 * each event of the table sent to both and the streamed answers compared (status, every header,
 * decompressed body, the log line), with a count of the events the lane left to the app. The
 * handlers run in this process under the runtime's `awslambda` global, as the functions' stand-in
 * runs them.
 */
import { randomUUID } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StreamingRestHandler, toRestHandler } from '../../functions/lambda/rest-adapter.js';
import { installAwsLambdaGlobal, ResponseStream } from '../../local-aws/awslambda-global.mjs';
import { proxyEvent } from '../../local-aws/proxy-event.js';
import type { RestEnv } from '../../shared/http/api-binding.js';
import { ApiLane } from '../../shared/http/api-lane.js';
import {
  FAILURE_LIMIT,
  type LaneHarness,
  startLaneHarness,
  VOLATILE_HEADERS,
} from '../support/lane-harness.js';
import { API_HOST, streamedRestAnswer } from '../support/rest-api-event.js';

/** An event as the table gives it: fields in the order sent, a name repeated where it repeats. */
interface Sent {
  method?: string;
  path: string;
  query?: [string, string][];
  headers?: [string, string][];
  /** The client's address: the throttle counts by it. */
  from?: string;
  body?: string;
  /** A change to the event as proxyEvent builds it (a field only in one of the maps, a domain name). */
  edit?: (event: APIGatewayProxyEvent) => void;
}

interface Answer {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

let laneHarness: LaneHarness;
let apiKey: string;
let withLane: StreamingRestHandler;
let appOnly: StreamingRestHandler;
/** Events the lane's handler left to the app. */
let passedToApp = 0;

beforeAll(async () => {
  installAwsLambdaGlobal();
  laneHarness = await startLaneHarness();
  ({ apiKey } = laneHarness);
  const { harness } = laneHarness;
  const counted = new Proxy(harness.app, {
    get(app, property, receiver) {
      if (property !== 'fetch') return Reflect.get(app, property, receiver);
      return (...args: Parameters<Hono<RestEnv>['fetch']>) => {
        passedToApp += 1;
        return app.fetch(...args);
      };
    },
  });
  withLane = toRestHandler(counted, new ApiLane(harness.apiEndpoints, harness.pipeline, harness.requestEdge));
  appOnly = toRestHandler(harness.app);
});

afterAll(async () => {
  await laneHarness?.harness.close();
});

function eventOf(sent: Sent): APIGatewayProxyEvent {
  const event = proxyEvent(
    {
      httpMethod: sent.method ?? 'GET',
      path: sent.path,
      query: sent.query ?? [],
      headers: [['Host', API_HOST], ['X-Forwarded-Proto', 'https'], ...(sent.headers ?? [])],
      body: sent.body ?? null,
      sourceIp: sent.from ?? '203.0.113.7',
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
    },
    {
      resourcePath: sent.path,
      pathParameters: null,
      stage: 'prod',
      apiId: 'a1b2c3d4e5',
      accountId: '123456789012',
    },
  );
  sent.edit?.(event);
  return event;
}

async function invoke(handler: StreamingRestHandler, sent: Sent): Promise<Answer> {
  const stream = new ResponseStream();
  await handler(eventOf(sent), stream as never, { awsRequestId: randomUUID() } as Context);
  await finished(stream);
  const answer = streamedRestAnswer({ contentType: stream.contentType, body: Buffer.concat(stream.chunks) });
  const encoding = answer.headers['content-encoding']?.[0];
  const body =
    encoding === 'br'
      ? brotliDecompressSync(answer.body)
      : encoding === 'gzip'
        ? gunzipSync(answer.body)
        : answer.body;
  return {
    status: answer.status,
    headers: answer.headers as Record<string, string[]>,
    body: body.toString('utf8'),
  };
}

function comparable(answer: Answer) {
  const [requestId = ''] = answer.headers['x-request-id'] ?? [];
  const headers = Object.entries(answer.headers).map(([name, values]) => [
    name,
    VOLATILE_HEADERS.has(name) ? typeof values[0] : values,
  ]);
  return { status: answer.status, headers, body: answer.body.replaceAll(requestId, '<request id>') };
}

/** The log line of the answer's request. */
function logLineOf(answer: Answer) {
  const [requestId = ''] = answer.headers['x-request-id'] ?? [];
  return laneHarness.logLineOf(requestId);
}

/** Sends the event both ways; returns the lane's answer after checking both are alike, in order. */
async function bothWays(sent: Sent): Promise<Answer> {
  const lane = await invoke(withLane, sent);
  const app = await invoke(appOnly, sent);
  // Headers in the same order too: what reaches API Gateway is the same metadata.
  expect(comparable(lane)).toEqual(comparable(app));
  expect(logLineOf(lane)).toEqual(logLineOf(app));
  return lane;
}

const bearer = (): [string, string][] => [['Authorization', `Bearer ${apiKey}`]];
const v2Key = (): [string, string][] => [['X-API-Key', apiKey]];
const email = (value: string): [string, string][] => [['email', value]];

describe('events the lane answers', () => {
  // Each entry: what is sent, and the status both ways must answer.
  const cases: Array<[string, () => Sent, number]> = [
    [
      'a free check',
      () => ({ path: '/v1/emails/disposable', query: email('someone@example.com'), headers: bearer() }),
      200,
    ],
    [
      'a billed lookup, brotli',
      () => ({
        path: '/v1/profiles/details/by-username',
        query: [['username', 'amelia-hartmann']],
        headers: [...bearer(), ['Accept-Encoding', 'br, gzip']],
      }),
      200,
    ],
    [
      'a billed lookup, gzip',
      () => ({
        path: '/v1/profiles/details/by-username',
        query: [['username', 'amelia-hartmann']],
        headers: [...bearer(), ['accept-encoding', 'gzip;q=1, br;q=0']],
      }),
      200,
    ],
    [
      'an unknown profile (refunded)',
      () => ({
        path: '/v1/profiles/details/by-username',
        query: [['username', 'zz-nobody-zz']],
        headers: bearer(),
      }),
      404,
    ],
    ['a missing parameter', () => ({ path: '/v1/emails/disposable', headers: bearer() }), 400],
    [
      'an unknown and a repeated parameter',
      () => ({
        path: '/v1/emails/disposable',
        query: [...email('a@b.com'), ...email('c@d.com'), ['constructor', '1']],
        headers: bearer(),
      }),
      400,
    ],
    [
      'characters the query is written with escapes for',
      () => ({ path: '/v1/emails/disposable', query: email('a\'b"c d%zz@d.com'), headers: bearer() }),
      200,
    ],
    [
      'a parameter name an object would inherit',
      () => ({ path: '/v1/emails/disposable', query: [['__proto__', 'x']], headers: bearer() }),
      400,
    ],
    ['no key', () => ({ path: '/v1/emails/disposable', query: email('a@b.com') }), 401],
    [
      'a v2 key header on v1',
      () => ({ path: '/v1/emails/disposable', query: email('a@b.com'), headers: v2Key() }),
      401,
    ],
    [
      'two Authorization fields',
      () => ({
        path: '/v1/emails/disposable',
        query: email('a@b.com'),
        // Read alone, the last one would pass: the fields are joined, as the app reads them.
        headers: [['Authorization', 'Bearer x'], ...bearer()],
      }),
      401,
    ],
    [
      'v2 with its key',
      () => ({ path: '/api/v2/ext/emails/disposable', query: email('a@b.com'), headers: v2Key() }),
      200,
    ],
    [
      'v2 with a bearer token',
      () => ({ path: '/api/v2/ext/emails/disposable', query: email('a@b.com'), headers: bearer() }),
      401,
    ],
    ['a v2 path parameter', () => ({ path: '/api/v2/profiles/amelia-hartmann', headers: v2Key() }), 200],
    [
      'a v2 path parameter the identifier rules refuse',
      () => ({ path: '/api/v2/profiles/__proto__/positions', headers: v2Key() }),
      400,
    ],
    [
      'JSON not acceptable',
      () => ({
        path: '/v1/emails/disposable',
        query: email('a@b.com'),
        headers: [...bearer(), ['Accept', 'text/html']],
      }),
      406,
    ],
    [
      'a declared body',
      () => ({
        path: '/v1/emails/disposable',
        query: email('a@b.com'),
        headers: [...bearer(), ['Content-Type', 'text/plain']],
      }),
      415,
    ],
    [
      'header names an object would inherit',
      () => ({
        path: '/v1/emails/disposable',
        query: email('a@b.com'),
        headers: [...bearer(), ['__proto__', 'x'], ['constructor', 'y']],
      }),
      200,
    ],
    [
      'a header only in the single-value map',
      () => ({
        path: '/v1/emails/disposable',
        query: email('a@b.com'),
        edit: (event) => {
          event.headers.authorization = `Bearer ${apiKey}`;
        },
      }),
      200,
    ],
  ];

  it.each(cases)('%s', async (_name, sent, status) => {
    const before = passedToApp;
    const lane = await bothWays(sent());
    expect(lane.status).toBe(status);
    expect(passedToApp).toBe(before);
  });

  it('compresses a large answer as the app does, and a small one not at all', async () => {
    const large = await bothWays({
      path: '/v1/profiles/details/by-username',
      query: [['username', 'amelia-hartmann']],
      headers: [...bearer(), ['Accept-Encoding', 'br']],
    });
    expect(large.headers['content-encoding']).toEqual(['br']);
    expect(large.headers.vary).toEqual(['Accept-Encoding']);
    const small = await bothWays({
      path: '/v1/emails/disposable',
      query: email('a@b.com'),
      headers: [...bearer(), ['Accept-Encoding', 'br']],
    });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('counts refused credentials with the app: the same address is throttled whichever way it comes', async () => {
    const from = '198.51.100.9';
    const wrongKey: Sent = {
      path: '/v1/emails/disposable',
      query: email('a@b.com'),
      headers: [['Authorization', 'Bearer lk_live_wrong']],
      from,
    };
    for (let attempt = 0; attempt < FAILURE_LIMIT; attempt += 1)
      expect((await invoke(attempt % 2 === 0 ? withLane : appOnly, wrongKey)).status).toBe(401);
    const before = passedToApp;
    const lane = await bothWays({ ...wrongKey, headers: bearer() });
    expect(lane.status).toBe(429);
    expect(passedToApp).toBe(before);
  });
});

describe('a lone surrogate, which only a hand-made event carries', () => {
  // Hono's adaptor cannot write one into the Request's URL and would answer a bare 500; the handler
  // makes it U+FFFD first, as a UTF-8 decoder would, and both ways answer as for any other value.
  const cases: Array<[string, () => Sent, number, 'lane' | 'app']> = [
    [
      'in a query value',
      () => ({ path: '/v1/emails/disposable', query: email('a\ud800@b.com'), headers: bearer() }),
      200,
      'lane',
    ],
    [
      'in a query name',
      () => ({
        path: '/v1/emails/disposable',
        query: [...email('a@b.com'), ['x\udc00', '1']],
        headers: bearer(),
      }),
      400,
      'lane',
    ],
    [
      'in a header value',
      () => ({
        path: '/v1/emails/disposable',
        query: email('a@b.com'),
        headers: [...bearer(), ['X-Note', '\ud800']],
      }),
      200,
      'app',
    ],
    [
      'in the query of another method',
      () => ({
        method: 'HEAD',
        path: '/v1/emails/disposable',
        query: email('a\ud800@b.com'),
        headers: bearer(),
      }),
      405,
      'app',
    ],
  ];

  it.each(cases)('%s', async (_name, sent, status, way) => {
    const before = passedToApp;
    const answer = await bothWays(sent());
    expect(answer.status).toBe(status);
    expect(passedToApp).toBe(way === 'app' ? before + 1 : before);
  });
});

describe('events the lane leaves to the app', () => {
  const cases: Array<[string, () => Sent]> = [
    ['another method', () => ({ method: 'HEAD', path: '/v1/emails/disposable', headers: bearer() })],
    ['a body', () => ({ path: '/v1/emails/disposable', headers: bearer(), body: '{"email":"a@b.com"}' })],
    ['a path parameter with an escape', () => ({ path: '/api/v2/profiles/a%2Fb/skills', headers: v2Key() })],
    ['a dot segment', () => ({ path: '/api/v2/profiles/../profiles/amelia-hartmann', headers: v2Key() })],
    ['a path spelled otherwise', () => ({ path: '/v1/emails/disposable/', headers: bearer() })],
    [
      'a header value Hono percent-encodes',
      () => ({ path: '/v1/emails/disposable', headers: [...bearer(), ['X-Note', 'café']] }),
    ],
    [
      'a header value the fetch API trims',
      () => ({ path: '/v1/emails/disposable', headers: [['Authorization', ` Bearer ${apiKey}`]] }),
    ],
    [
      'a domain name the URL parser rewrites',
      () => ({
        path: '/v1/emails/disposable',
        headers: bearer(),
        edit: (event) => {
          event.requestContext.domainName = 'API.EXAMPLE.COM';
        },
      }),
    ],
    ['a page', () => ({ path: '/healthz' })],
  ];

  it.each(cases)('%s', async (_name, sent) => {
    const before = passedToApp;
    await bothWays(sent());
    expect(passedToApp).toBe(before + 1);
  });
});
