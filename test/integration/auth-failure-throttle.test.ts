/**
 * A flood of wrong keys against a server started the way `npm start` starts: after
 * AUTH_FAILURE_LIMIT refusals within the window one client address gets 429 before any store
 * lookup, while a valid key from another address (127.0.0.2: all of 127/8 is loopback) is served;
 * refusals are logged below error level; silent and surplus connections are not held.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../schemas/errors.js';
import { generateApiKey } from '../../shared/auth/api-keys.js';
import { cleanUpProcesses, freshDataDir, type RunningServer, startServer } from '../support/processes.js';

afterAll(cleanUpProcesses);

/** The documented default of AUTH_FAILURE_LIMIT (README configuration table). */
const DOCUMENTED_LIMIT = 20;
const MAX_CONNECTIONS = 12;
const HEADERS_TIMEOUT_SECONDS = 2;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer(await freshDataDir(), {
    LOG_LEVEL: 'info',
    HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    HTTP_HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_SECONDS),
  });
});
afterAll(() => server?.stop());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET from a chosen local address, with the key as a bearer token. */
function get(path: string, key: string, localAddress: string, agent?: Agent): Promise<Answer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path, localAddress, agent, headers: { Authorization: `Bearer ${key}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const DETAILS = '/v1/profiles/details/by-username?username=amelia-hartmann';

describe('repeated authentication failures from one address', () => {
  const refusedIds: string[] = [];

  it(`answers 429 rate_limit_exceeded with Retry-After after ${DOCUMENTED_LIMIT} refused keys`, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let attempt = 0; attempt < DOCUMENTED_LIMIT; attempt++) {
        const answer = await get(DETAILS, generateApiKey(), '127.0.0.1', agent);
        expect(answer.status, `attempt ${attempt + 1}`).toBe(401);
        refusedIds.push(String(answer.headers['x-request-id']));
      }
      const throttled = await get(DETAILS, generateApiKey(), '127.0.0.1', agent);
      expect(throttled.status).toBe(429);
      const body = errorBodySchema().parse(JSON.parse(throttled.body));
      expect(body.error.code).toBe('rate_limit_exceeded');
      expect(body.error.retryable).toBe(true);
      expect(body.meta.requestId).toBe(throttled.headers['x-request-id']);
      const retryAfter = Number(throttled.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Even the right key waits: the address is refused before any key is looked up.
      expect((await get(DETAILS, server.demoKey, '127.0.0.1', agent)).status).toBe(429);
    } finally {
      agent.destroy();
    }
  });

  it('still serves a valid key from another address', async () => {
    const answer = await get(DETAILS, server.demoKey, '127.0.0.2');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ data: { username: 'amelia-hartmann' } });
  });

  it('logs each refusal below error level', () => {
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; requestId?: string; status?: number });
    const refusals = lines.filter((line) => line.status === 401 || line.status === 429);
    expect(refusals.length).toBeGreaterThanOrEqual(DOCUMENTED_LIMIT + 2);
    for (const id of refusedIds) expect(lines.some((line) => line.requestId === id)).toBe(true);
    // pino's levels: 50 is error.
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});

describe('connections', () => {
  /** Opens a connection that sends nothing; resolves when the server closes it, with what it sent. */
  function silentConnection(): {
    opened: Promise<void>;
    closed: Promise<{ afterMs: number; bytes: string }>;
  } {
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port) });
    const started = Date.now();
    let bytes = '';
    socket.on('data', (chunk: Buffer) => (bytes += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    return {
      opened: new Promise((resolve) => socket.once('connect', () => resolve())),
      closed: new Promise((resolve) =>
        socket.once('close', () => resolve({ afterMs: Date.now() - started, bytes })),
      ),
    };
  }

  it('closes a connection that sends nothing after the headers timeout, with a 408', async () => {
    const { afterMs, bytes } = await silentConnection().closed;
    // Node's own defaults would hold it 60 s or more; the bound is generous for a busy machine.
    expect(afterMs).toBeLessThan(HEADERS_TIMEOUT_SECONDS * 1_000 + 5_000);
    expect(bytes).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes connections beyond HTTP_MAX_CONNECTIONS at once', async () => {
    const held = Array.from({ length: MAX_CONNECTIONS }, silentConnection);
    await Promise.all(held.map((connection) => connection.opened));
    const surplus = await silentConnection().closed;
    expect(surplus.bytes).toBe('');
    expect(surplus.afterMs).toBeLessThan(HEADERS_TIMEOUT_SECONDS * 1_000);
    await Promise.all(held.map((connection) => connection.closed));
    expect((await get('/healthz', server.demoKey, '127.0.0.3')).status).toBe(200);
  });
});
