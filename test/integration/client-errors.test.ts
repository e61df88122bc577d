/**
 * Requests Node's HTTP parser refuses before any route sees them, sent over a raw socket to a server
 * started the way `npm start` starts: every answer is the service's error envelope with its headers,
 * never Node's bare status line.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../schemas/errors.js';
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  startServer,
} from '../support/processes.js';

afterAll(cleanUpProcesses);

interface RawAnswer {
  statusLine: string;
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Everything the server sent on one connection, until it closed it. */
function conversation(url: string, request: string | Buffer, options: { localAddress?: string } = {}) {
  const { hostname, port } = new URL(url);
  return new Promise<Buffer>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...options });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.write(request);
  });
}

/** The HTTP/1.1 responses in `bytes`, in order (bodies framed by Content-Length, as the service sends them). */
function responsesIn(bytes: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) throw new Error(`Not an HTTP response: ${JSON.stringify(rest.toString('latin1'))}`);
    const [statusLine = '', ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers = new Map(
      lines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
      }),
    );
    const length = Number(headers.get('content-length') ?? 0);
    const bodyStart = headEnd + 4;
    const body = rest.subarray(bodyStart, bodyStart + length).toString('utf8');
    answers.push({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.subarray(bodyStart + length);
  }
  return answers;
}

/** Writes bytes on a fresh connection and reads the one answer until the server closes it. */
async function exchange(url: string, request: string | Buffer): Promise<RawAnswer> {
  const answers = responsesIn(await conversation(url, request));
  expect(answers).toHaveLength(1);
  return answers[0] as RawAnswer;
}

/** The headers and body every error of the service carries. */
function expectServiceError(answer: RawAnswer, status: number, code: string) {
  expect(answer.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} \\S`));
  const body = errorBodySchema().parse(JSON.parse(answer.body));
  expect(body.error.code).toBe(code);
  expect(answer.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]+$/);
  expect(body.meta.requestId).toBe(answer.headers.get('x-request-id'));
  expect(answer.headers.get('cache-control')).toBe('private, no-store');
  expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(Date.parse(answer.headers.get('date') ?? '')).not.toBeNaN();
  expect(answer.headers.get('connection')).toBe('close');
  expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(answer.body)));
  return body;
}

let server: RunningServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = await freshDataDir();
  server = await startServer(dataDir);
});
afterAll(() => server?.stop());

describe('requests the HTTP parser refuses', () => {
  it('answers a method token Node does not know with 405 and Allow: GET', async () => {
    const answer = await exchange(server.url, 'FOO /v1/emails/disposable HTTP/1.1\r\nHost: x\r\n\r\n');
    const body = expectServiceError(answer, 405, 'method_not_allowed');
    expect(answer.headers.get('allow')).toBe('GET');
    expect(body.error.message).toBe('Method FOO is not allowed; use GET.');
  });

  it('quotes at most 32 characters of a long method token', async () => {
    const answer = await exchange(server.url, `${'X'.repeat(2_000)} / HTTP/1.1\r\nHost: x\r\n\r\n`);
    const body = expectServiceError(answer, 405, 'method_not_allowed');
    expect(body.error.message).toBe(`Method ${'X'.repeat(32)}… is not allowed; use GET.`);
  });

  it('answers a request line and headers over the size limit with 431 and a JSON body', async () => {
    const answer = await exchange(
      server.url,
      `GET /v1/emails/disposable?email=a%40b.com HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const body = expectServiceError(answer, 431, 'invalid_request');
    expect(body.error.message).toMatch(/too large/);
  });

  it('answers a long request line the same way', async () => {
    const answer = await exchange(server.url, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectServiceError(answer, 431, 'invalid_request');
  });

  it.each([
    ['a malformed header line', 'GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n'],
    [
      'a TLS handshake on the plain port',
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc]),
    ],
    ['an unknown protocol version', 'GET / HTTP/7.3\r\nHost: x\r\n\r\n'],
  ])('answers %s with 400 invalid_request', async (_, request) => {
    const answer = await exchange(server.url, request);
    const body = expectServiceError(answer, 400, 'invalid_request');
    expect(body.error.message).toMatch(/not well-formed HTTP/);
  });

  it('keeps serving ordinary requests afterwards', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    await response.arrayBuffer();
    expect(response.status).toBe(200);
  });
});

/** A billed lookup (2 credits) of a profile the sample holds. */
const BILLED_PATH = '/v1/profiles/details/by-username?username=amelia-hartmann';

interface UsageEntry {
  requestId: string;
  status: string;
  httpStatus?: number;
}

describe('a malformed request pipelined after a billed one', () => {
  let account: { accountId: string; apiKey: string };
  /** The X-Request-Id of every billed answer the tests below received. */
  const answered: string[] = [];
  beforeAll(async () => {
    account = await cli(dataDir, ...['accounts', 'create', '--name', 'Pipelining', '--credits', '10']);
  });

  it.each([
    ['garbage bytes', Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc]), 400],
    ['an unknown method token', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 405],
    ['Transfer-Encoding: xchunked', 'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n', 400],
    ['an oversized header', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('answers the billed request, then %s with its error, then closes', async (_, malformed, errorStatus) => {
    const billed = `GET ${BILLED_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.apiKey}\r\n\r\n`;
    const bytes = await conversation(
      server.url,
      Buffer.concat([Buffer.from(billed), Buffer.from(malformed)]),
    );

    const [first, second, ...more] = responsesIn(bytes);
    expect(more).toEqual([]);
    expect(first?.status).toBe(200);
    expect(JSON.parse(first?.body ?? '')).toMatchObject({ data: { username: 'amelia-hartmann' } });
    answered.push(first?.headers.get('x-request-id') ?? '');
    expect(second).toBeDefined();
    const error = expectServiceError(
      second as RawAnswer,
      errorStatus,
      errorStatus === 405 ? 'method_not_allowed' : 'invalid_request',
    );
    expect(error.meta.requestId).not.toBe(first?.headers.get('x-request-id'));
  });

  it('charged each of those billed requests once, as answered with 200', { timeout: 30_000 }, async () => {
    expect(answered).toHaveLength(4);
    // Ledger entries are settled after the answer is written: wait for them.
    await expect
      .poll(
        async () => {
          const usage = await cli<{ recent: UsageEntry[] }>(dataDir, 'usage', account.accountId);
          return usage.recent
            .map(({ requestId, status, httpStatus }) => ({ requestId, status, httpStatus }))
            .sort((a, b) => (a.requestId < b.requestId ? -1 : 1));
        },
        { timeout: 20_000, interval: 250 },
      )
      .toEqual(answered.sort().map((requestId) => ({ requestId, status: 'charged', httpStatus: 200 })));
  });

  it('answers a lone GET with Transfer-Encoding: xchunked with 400 and closes', async () => {
    const answer = await exchange(
      server.url,
      'GET /v1/emails/disposable?email=a%40b.com HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n',
    );
    const body = expectServiceError(answer, 400, 'invalid_request');
    expect(body.error.message).toMatch(/Transfer-Encoding/);
  });
});

describe('the Host header', () => {
  const v1 = 'GET /v1/emails/disposable?email=a%40b.com HTTP/1.1';
  const mcp = 'POST /mcp HTTP/1.1';
  const mcpBody = 'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
  it.each([
    [
      'a host name URL parsing refuses, on /mcp',
      `${mcp}\r\nHost: 1.2.3.256\r\n${mcpBody}`,
      /"1.2.3.256" is not a valid host/,
    ],
    [
      'a host name URL parsing refuses, on v1',
      `${v1}\r\nHost: 1.2.3.256\r\n\r\n`,
      /"1.2.3.256" is not a valid host/,
    ],
    [
      'a host name URL parsing refuses, on v2',
      'GET /api/v2/profiles/amelia-hartmann HTTP/1.1\r\nHost: 1.2.3.256\r\n\r\n',
      /"1.2.3.256" is not a valid host/,
    ],
    ['a host with a path', `${v1}\r\nHost: a.example/b\r\n\r\n`, /not a valid host/],
    ['a host with user info', `${v1}\r\nHost: user@a.example\r\n\r\n`, /not a valid host/],
    ['a port out of range', `${v1}\r\nHost: a.example:70000\r\n\r\n`, /not a valid host/],
    ['no Host header', `${v1}\r\n\r\n`, /no Host header/],
    ['two Host headers', `${v1}\r\nHost: a.example\r\nHost: b.example\r\n\r\n`, /2 Host headers/],
  ])('answers %s with 400 invalid_request and the error body', async (_, request, message) => {
    const body = expectServiceError(await exchange(server.url, request), 400, 'invalid_request');
    expect(body.error.message).toMatch(message);
  });

  it('answers a request target the adaptor cannot parse with 400 and the error body', async () => {
    const answer = await exchange(
      server.url,
      'GET /v1/emails/disposable\\x HTTP/1.1\r\nHost: a.example\r\n\r\n',
    );
    const body = expectServiceError(answer, 400, 'invalid_request');
    expect(body.error.message).toMatch(/request target/);
  });

  it('still serves a Host with a port, in upper case, or an IP literal', async () => {
    for (const host of ['LOOKUP.example:8787', '127.0.0.1', '[::1]:80']) {
      const bytes = await conversation(server.url, `${v1}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(
        responsesIn(bytes).map((answer) => answer.status),
        host,
      ).toEqual([401]);
    }
  });
});
