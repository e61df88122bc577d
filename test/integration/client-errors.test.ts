/**
 * Requests Node's HTTP parser refuses before any route sees them, sent over a raw socket to a server
 * started the way `npm start` starts: every answer is the service's error envelope with its headers,
 * never Node's bare status line.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../schemas/errors.js';
import { cleanUpProcesses, freshDataDir, type RunningServer, startServer } from '../support/processes.js';

afterAll(cleanUpProcesses);

interface RawAnswer {
  statusLine: string;
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Writes bytes on a fresh connection and reads until the server closes it. */
function exchange(url: string, request: string | Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split(/\r\n\r\n(.*)/s);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
        }),
      );
      resolve({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.write(request);
  });
}

/** The headers and body every error of the service carries. */
function expectServiceError(answer: RawAnswer, status: number, code: string) {
  expect(answer.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} \\S`));
  const body = errorBodySchema.parse(JSON.parse(answer.body));
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

describe('requests the HTTP parser refuses', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(await freshDataDir());
  });
  afterAll(() => server?.stop());

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
