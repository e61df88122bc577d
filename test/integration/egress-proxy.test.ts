/**
 * The egress proxy without a browser: CONNECT tunnels, absolute-form HTTP and WebSocket upgrades sent
 * by hand. Names go through an injected resolver that counts its calls and connections through an
 * injected dialer that records the address it was asked for and only ever connects to a loopback
 * server the test routed that address to (no route → it throws, so no test can reach a real address).
 * The proxy must resolve each name once, refuse if any answer is non-public, and dial exactly the
 * address it checked: that is what makes DNS rebinding fail.
 */
import { request } from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.js';
import { parseAllowHosts } from '../../shared/net/address-policy.js';
import {
  EGRESS_DENIAL_HEADER,
  EGRESS_FAILURE_HEADER,
  type EgressProxy,
  startEgressProxy,
} from '../../shared/websites/egress-proxy.js';
import { readResponseHead, startWebServer, type WebServer } from '../support/web-servers.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

type Answers = string[] | ((call: number) => string[]) | Error;

interface Harness {
  proxy: EgressProxy;
  /** Every name the proxy asked the resolver for, in order. */
  resolutions: string[];
  /** Every address:port the proxy asked the dialer for, in order. */
  dials: string[];
  logs: Array<Record<string, unknown>>;
}

let upstream: WebServer;
let trap: WebServer;
const proxies: EgressProxy[] = [];

beforeAll(async () => {
  upstream = await startWebServer({
    routes: {
      '/hello': (req, res) => {
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
        res.setHeader('Keep-Alive', 'timeout=99');
        res.setHeader('Proxy-Authenticate', 'Basic realm="upstream"');
        res.setHeader(EGRESS_DENIAL_HEADER, 'forged-by-target');
        res.setHeader(EGRESS_FAILURE_HEADER, 'forged-by-target ERR_NAME_NOT_RESOLVED');
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`upstream ok ${req.method} ${req.url}`);
      },
      '/prototype-headers': (_req, res) => {
        res.setHeader('constructor', 'c');
        res.setHeader('__proto__', 'p');
        res.setHeader('toString', 't');
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('odd headers');
      },
    },
  });
  trap = await startWebServer();
});

afterAll(async () => {
  await upstream.close();
  await trap.close();
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/**
 * A proxy with a scripted resolver and a dialer that connects only where `routes` says, always to
 * 127.0.0.1 (the key is the address the proxy asked for, the value a loopback port).
 */
async function harness(
  options: {
    answers?: Record<string, Answers>;
    routes?: Record<string, number>;
    allowHosts?: string;
    maxRequests?: number;
    resolveDelay?: Promise<void>;
  } = {},
): Promise<Harness> {
  const resolutions: string[] = [];
  const dials: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const calls = new Map<string, number>();
  const logger = createLogger('info', {
    write: (line: string) => {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const proxy = await startEgressProxy({
    allowHosts: parseAllowHosts(options.allowHosts),
    logger,
    ...(options.maxRequests === undefined ? {} : { maxRequests: options.maxRequests }),
    resolve: async (host) => {
      resolutions.push(host);
      const call = (calls.get(host) ?? 0) + 1;
      calls.set(host, call);
      await options.resolveDelay;
      const answers = options.answers?.[host];
      if (answers === undefined)
        throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      if (answers instanceof Error) throw answers;
      return typeof answers === 'function' ? answers(call) : answers;
    },
    dial: (address, port) => {
      const key = net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
      dials.push(key);
      const loopbackPort = options.routes?.[key];
      if (loopbackPort === undefined) throw new Error(`test dialer: no route for ${key}`);
      return net.connect({ host: '127.0.0.1', port: loopbackPort });
    },
  });
  proxies.push(proxy);
  return { proxy, resolutions, dials, logs };
}

/** Sends `CONNECT authority` and reads the proxy's answer; the socket stays open for a tunnel. */
async function connectVia(proxy: EgressProxy, authority: string) {
  const socket = net.connect({ host: '127.0.0.1', port: proxy.port });
  socket.on('error', () => undefined);
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  const head = await readResponseHead(socket);
  return { ...head, socket };
}

/** Sends one request through the tunnel and returns the raw answer (the upstream closes after it). */
function exchangeInTunnel(socket: net.Socket, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no answer in the tunnel: ${text}`)), 5_000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An absolute-form request through the proxy, the way a browser sends plain HTTP to a proxy. */
function getVia(proxy: EgressProxy, url: string, headers: Record<string, string> = {}): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: proxy.port,
        path: url,
        agent: false,
        headers: { Host: new URL(url).host, ...headers },
        timeout: 5_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

function deniedLogs(h: Harness) {
  return h.logs.filter((line) => line.msg === 'egress denied');
}

describe('a name is resolved once and dialled at the address that was checked', () => {
  it('forwards plain HTTP for a public name to exactly the public answer, with hop-by-hop headers removed', async () => {
    const h = await harness({
      answers: { 'public.test': [PUBLIC_V4] },
      routes: { [`${PUBLIC_V4}:80`]: upstream.port },
    });
    const before = upstream.requests.length;

    const res = await getVia(h.proxy, 'http://public.test/hello?x=1', {
      'Proxy-Connection': 'keep-alive',
      'Proxy-Authorization': 'Basic c2VjcmV0',
      Connection: 'keep-alive, X-Hop-Secret',
      'X-Hop-Secret': 'must not travel',
      'User-Agent': 'test-agent/1.0',
    });

    expect(res.status).toBe(200);
    expect(res.body).toBe('upstream ok GET /hello?x=1');
    expect(h.resolutions).toEqual(['public.test']);
    expect(h.dials).toEqual([`${PUBLIC_V4}:80`]);
    const seen = upstream.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('/hello?x=1');
    expect(seen[0]?.headers).toMatchObject({ host: 'public.test', 'user-agent': 'test-agent/1.0' });
    for (const hop of ['proxy-connection', 'proxy-authorization', 'x-hop-secret', 'keep-alive']) {
      expect(seen[0]?.headers).not.toHaveProperty(hop);
    }
    // Set-Cookie stays two fields; the upstream's hop-by-hop and forged proxy headers are dropped.
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers).not.toHaveProperty('proxy-authenticate');
    expect(res.headers).not.toHaveProperty(EGRESS_DENIAL_HEADER);
    expect(res.headers).not.toHaveProperty(EGRESS_FAILURE_HEADER);
    expect(h.proxy.denials).toEqual([]);
  });

  it('relays response headers named like Object properties as ordinary headers', async () => {
    const h = await harness({
      answers: { 'public.test': [PUBLIC_V4] },
      routes: { [`${PUBLIC_V4}:80`]: upstream.port },
    });
    const res = await getVia(h.proxy, 'http://public.test/prototype-headers');
    expect(res.status).toBe(200);
    expect(res.body).toBe('odd headers');
    expect(Object.hasOwn(res.headers, 'constructor') && res.headers.constructor).toBe('c');
    expect(Object.hasOwn(res.headers, 'tostring') && res.headers.tostring).toBe('t');
  });

  it('tunnels CONNECT for a public name to exactly the public answer', async () => {
    const h = await harness({
      answers: { 'public.test': [PUBLIC_V4] },
      routes: { [`${PUBLIC_V4}:443`]: upstream.port },
    });

    const tunnel = await connectVia(h.proxy, 'public.test:443');
    expect(tunnel.status).toBe(200);
    const answer = await exchangeInTunnel(tunnel.socket, '/hello', 'public.test');

    expect(answer).toContain('upstream ok GET /hello');
    expect(h.resolutions).toEqual(['public.test']);
    expect(h.dials).toEqual([`${PUBLIC_V4}:443`]);
  });

  it('tries the next checked answer when one fails to connect, and only checked answers', async () => {
    const h = await harness({
      answers: { 'dual.test': [PUBLIC_V6, PUBLIC_V4] },
      routes: { [`${PUBLIC_V4}:443`]: upstream.port },
    });

    const tunnel = await connectVia(h.proxy, 'dual.test:443');

    expect(tunnel.status).toBe(200);
    expect(h.resolutions).toEqual(['dual.test']);
    expect(h.dials).toEqual([`[${PUBLIC_V6}]:443`, `${PUBLIC_V4}:443`]);
    tunnel.socket.destroy();
  });

  it('defeats DNS rebinding: the public answer is dialled and the later 127.0.0.1 answer never is', async () => {
    const h = await harness({
      answers: { 'rebind.test': (call) => (call === 1 ? [PUBLIC_V4] : ['127.0.0.1']) },
      routes: { [`${PUBLIC_V4}:443`]: upstream.port, [`${PUBLIC_V4}:80`]: upstream.port },
    });
    const trapBefore = trap.counts.connections;

    const tunnel = await connectVia(h.proxy, 'rebind.test:443');
    expect(tunnel.status).toBe(200);
    const answer = await exchangeInTunnel(tunnel.socket, '/hello', 'rebind.test');
    expect(answer).toContain('upstream ok');
    // One resolution for the request, one dial, at the address that resolution returned and was checked.
    expect(h.resolutions).toEqual(['rebind.test']);
    expect(h.dials).toEqual([`${PUBLIC_V4}:443`]);

    // The next request resolves afresh, gets 127.0.0.1 and is refused before any dial.
    const again = await connectVia(h.proxy, 'rebind.test:443');
    expect(again.status).toBe(403);
    expect(h.resolutions).toEqual(['rebind.test', 'rebind.test']);
    expect(h.dials).toEqual([`${PUBLIC_V4}:443`]);
    expect(h.proxy.denials.at(-1)).toMatchObject({
      host: 'rebind.test',
      port: 443,
      reason: 'loopback',
      address: '127.0.0.1',
    });
    expect(trap.counts.connections).toBe(trapBefore);
  });
});

describe('a name with a non-public answer is refused before anything is dialled', () => {
  const cases: Array<[string, string]> = [
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['fd00:ec2::254', 'unique_local'],
    ['100.64.0.1', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'nat64'],
  ];

  it.each(cases)('CONNECT to a name answering %s → 403 %s', async (address, reason) => {
    const h = await harness({ answers: { 'internal.test': [address] } });

    const res = await connectVia(h.proxy, 'internal.test:443');
    res.socket.destroy();

    expect(res.status).toBe(403);
    expect(h.dials).toEqual([]);
    expect(h.resolutions).toEqual(['internal.test']);
    expect(h.proxy.denials).toHaveLength(1);
    expect(h.proxy.denials[0]).toMatchObject({ host: 'internal.test', port: 443, reason });
    expect(res.headers[EGRESS_DENIAL_HEADER]).toBe(h.proxy.denials[0]?.id);
    expect(deniedLogs(h)).toEqual([
      expect.objectContaining({ level: 40, host: 'internal.test', port: 443, reason }),
    ]);
  });

  it.each(cases)('GET http://name/ answering %s → 403 %s with a short text', async (address, reason) => {
    const h = await harness({ answers: { 'internal.test': [address] } });

    const res = await getVia(h.proxy, 'http://internal.test/latest/meta-data/');

    expect(res.status).toBe(403);
    expect(res.body).toBe(`Egress denied: ${reason}\n`);
    expect(h.dials).toEqual([]);
    expect(h.proxy.denials[0]).toMatchObject({ host: 'internal.test', port: 80, reason });
    expect(res.headers[EGRESS_DENIAL_HEADER]).toBe(h.proxy.denials[0]?.id);
  });

  it.each([
    [[PUBLIC_V4, '10.0.0.1'], 'private'],
    [['127.0.0.1', PUBLIC_V4], 'loopback'],
    [[PUBLIC_V6, PUBLIC_V4, 'fd00:ec2::254'], 'unique_local'],
  ])('refuses a name mixing public and non-public answers %j (%s)', async (answers, reason) => {
    const h = await harness({
      answers: { 'mixed.test': answers },
      routes: { [`${PUBLIC_V4}:443`]: upstream.port, [`[${PUBLIC_V6}]:443`]: upstream.port },
    });

    const res = await connectVia(h.proxy, 'mixed.test:443');
    res.socket.destroy();

    expect(res.status).toBe(403);
    expect(h.proxy.denials[0]).toMatchObject({ host: 'mixed.test', reason });
    expect(h.dials).toEqual([]);
  });
});

describe('targets refused by their URL, before any resolution', () => {
  it.each([
    ['127.0.0.1:443', '127.0.0.1', 443, 'loopback'],
    ['[::1]:443', '::1', 443, 'loopback'],
    ['[::ffff:127.0.0.1]:443', '127.0.0.1', 443, 'loopback'],
    ['2130706433:443', '127.0.0.1', 443, 'loopback'],
    ['0x7f.1:80', '127.0.0.1', 80, 'loopback'],
    ['0.0.0.0:443', '0.0.0.0', 443, 'unspecified'],
    ['169.254.169.254:80', '169.254.169.254', 80, 'link_local'],
    ['[fd00:ec2::254]:443', 'fd00:ec2::254', 443, 'unique_local'],
    ['100.64.0.1:443', '100.64.0.1', 443, 'cgnat'],
    ['192.168.1.1:443', '192.168.1.1', 443, 'private'],
    ['localhost:443', 'localhost', 443, 'loopback_name'],
    ['api.localhost:80', 'api.localhost', 80, 'loopback_name'],
    ['public.test:8080', 'public.test', 8080, 'port'],
    [`${PUBLIC_V4}:22`, PUBLIC_V4, 22, 'port'],
    [`127.0.0.1:${0}`, '127.0.0.1:0', 0, 'invalid_target'],
  ])('CONNECT %s → refused (%s, %i, %s)', async (authority, host, port, reason) => {
    const h = await harness({ answers: { 'public.test': [PUBLIC_V4] } });

    const res = await connectVia(h.proxy, authority);
    res.socket.destroy();

    expect(res.status).toBe(reason === 'invalid_target' ? 400 : 403);
    expect(h.proxy.denials).toEqual([expect.objectContaining({ host, port, reason })]);
    expect(h.resolutions).toEqual([]);
    expect(h.dials).toEqual([]);
  });

  it.each([
    ['http://public.test:8080/', 'public.test', 8080, 'port'],
    [`http://127.0.0.1:${8080}/`, '127.0.0.1', 8080, 'port'],
    ['http://user:pass@public.test/', 'public.test', 80, 'credentials'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 80, 'link_local'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254', 80, 'unique_local'],
    ['https://public.test/', 'public.test', 443, 'scheme'],
    ['ftp://public.test/', 'public.test', 0, 'scheme'],
  ])('GET %s → 403 (%s, %i, %s)', async (url, host, port, reason) => {
    const h = await harness({ answers: { 'public.test': [PUBLIC_V4] } });

    const res = await getVia(h.proxy, url);

    expect(res.status).toBe(403);
    expect(h.proxy.denials).toEqual([expect.objectContaining({ host, port, reason })]);
    expect(h.resolutions).toEqual([]);
    expect(h.dials).toEqual([]);
  });

  it('answers 400 to an origin-form request: the proxy is not a web server', async () => {
    const h = await harness();

    const socket = net.connect({ host: '127.0.0.1', port: h.proxy.port });
    socket.write('GET /latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n');
    const head = await readResponseHead(socket);
    socket.destroy();
    expect(head.status).toBe(400);
    expect(h.proxy.denials.at(-1)).toMatchObject({ reason: 'invalid_target' });
    expect(h.dials).toEqual([]);
  });
});

describe('allowHosts', () => {
  it('lets exactly the listed 127.0.0.1:PORT through, over the real dialer, and nothing else on loopback', async () => {
    const proxy = await startEgressProxy({
      allowHosts: parseAllowHosts(upstream.hostPort),
      logger: createLogger('silent'),
    });
    proxies.push(proxy);
    const trapBefore = { ...trap.counts };

    const page = await getVia(proxy, `${upstream.origin}/hello`);
    expect(page.status).toBe(200);
    expect(page.body).toBe('upstream ok GET /hello');

    const tunnel = await connectVia(proxy, upstream.hostPort);
    expect(tunnel.status).toBe(200);
    expect(await exchangeInTunnel(tunnel.socket, '/hello', upstream.hostPort)).toContain('upstream ok');

    const toTrap = await getVia(proxy, `${trap.origin}/`);
    expect(toTrap.status).toBe(403);
    const tunnelToTrap = await connectVia(proxy, trap.hostPort);
    tunnelToTrap.socket.destroy();
    expect(tunnelToTrap.status).toBe(403);
    expect(proxy.denials).toEqual([
      expect.objectContaining({ host: '127.0.0.1', port: trap.port, reason: 'port' }),
      expect.objectContaining({ host: '127.0.0.1', port: trap.port, reason: 'port' }),
    ]);
    expect(trap.counts).toEqual(trapBefore);
  });

  it('relays a plain-HTTP WebSocket upgrade to an allowed host and refuses one to the trap', async () => {
    const proxy = await startEgressProxy({
      allowHosts: parseAllowHosts(upstream.hostPort),
      logger: createLogger('silent'),
    });
    proxies.push(proxy);
    const trapBefore = { ...trap.counts };
    const upgrade = async (origin: string) => {
      const socket = net.connect({ host: '127.0.0.1', port: proxy.port });
      socket.on('error', () => undefined);
      socket.write(
        [
          `GET ${origin}/socket HTTP/1.1`,
          `Host: ${new URL(origin).host}`,
          'Connection: Upgrade',
          'Upgrade: websocket',
          'Proxy-Connection: keep-alive',
          'Sec-WebSocket-Version: 13',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          '',
          '',
        ].join('\r\n'),
      );
      const head = await readResponseHead(socket);
      return { head, socket };
    };

    const allowed = await upgrade(upstream.origin);
    expect(allowed.head.status).toBe(101);
    expect(allowed.head.headers['sec-websocket-accept']).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    allowed.socket.destroy();
    expect(upstream.requests.at(-1)).toMatchObject({ url: '/socket' });
    expect(upstream.requests.at(-1)?.headers).not.toHaveProperty('proxy-connection');

    const refused = await upgrade(trap.origin);
    refused.socket.destroy();
    expect(refused.head.status).toBe(403);
    expect(trap.counts).toEqual(trapBefore);
  });
});

describe('failures upstream are 502, not denials', () => {
  it('answers 502 when the checked address refuses the connection', async () => {
    const closed = await startWebServer();
    await closed.close();
    const proxy = await startEgressProxy({
      allowHosts: parseAllowHosts(closed.hostPort),
      logger: createLogger('silent'),
    });
    proxies.push(proxy);

    const tunnel = await connectVia(proxy, closed.hostPort);
    tunnel.socket.destroy();
    const page = await getVia(proxy, `${closed.origin}/`);

    expect(tunnel.status).toBe(502);
    expect(page.status).toBe(502);
    // Each failure is recorded, and the plain-HTTP answer names its record, so the browser layer
    // never reads the proxy's 502 as the page's.
    const port = Number(closed.hostPort.split(':')[1]);
    expect(proxy.failures).toEqual([
      { id: expect.any(String), host: '127.0.0.1', port, failure: 'ERR_CONNECTION_FAILED' },
      { id: expect.any(String), host: '127.0.0.1', port, failure: 'ERR_CONNECTION_FAILED' },
    ]);
    expect(page.headers[EGRESS_FAILURE_HEADER]).toBe(proxy.failures[1]?.id);
    expect(proxy.denials).toEqual([]);
  });

  it('answers 502 when the dialer fails, the name does not resolve or has no address', async () => {
    const h = await harness({
      answers: { 'public.test': [PUBLIC_V4], 'empty.test': [], 'servfail.test': new Error('SERVFAIL') },
    });

    for (const authority of ['public.test:443', 'nxdomain.test:443', 'empty.test:443', 'servfail.test:443']) {
      const res = await connectVia(h.proxy, authority);
      res.socket.destroy();
      expect(res.status, authority).toBe(502);
    }
    const failures = [
      ['public.test', 'ERR_CONNECTION_FAILED'],
      ['nxdomain.test', 'ERR_NAME_NOT_RESOLVED'],
      ['empty.test', 'ERR_NAME_NOT_RESOLVED'],
      ['servfail.test', 'ERR_NAME_NOT_RESOLVED'],
    ] as const;
    expect(h.proxy.failures.map(({ host, port, failure }) => [host, port, failure])).toEqual(
      failures.map(([host, failure]) => [host, 443, failure]),
    );
    for (const [host, failure] of failures) {
      const page = await getVia(h.proxy, `http://${host}/`);
      const record = h.proxy.failures.at(-1);
      expect([page.status, page.headers[EGRESS_FAILURE_HEADER]], host).toEqual([502, record?.id]);
      expect(record, host).toMatchObject({ host, port: 80, failure });
    }
    expect(h.dials).toEqual([`${PUBLIC_V4}:443`, `${PUBLIC_V4}:80`]);
    expect(h.proxy.denials).toEqual([]);
  });
});

describe('robustness and bounds', () => {
  it('survives clients that reset mid-decision, mid-tunnel and with garbage, and keeps serving', async () => {
    let release: () => void = () => undefined;
    const resolveDelay = new Promise<void>((resolve) => {
      release = resolve;
    });
    const h = await harness({
      answers: { 'public.test': [PUBLIC_V4] },
      routes: { [`${PUBLIC_V4}:443`]: upstream.port },
      resolveDelay,
    });

    const early = net.connect({ host: '127.0.0.1', port: h.proxy.port });
    early.on('error', () => undefined);
    early.write('CONNECT public.test:443 HTTP/1.1\r\nHost: public.test:443\r\n\r\n');
    await expect.poll(() => h.resolutions.length, { timeout: 2_000 }).toBe(1);
    early.resetAndDestroy();
    release();

    const garbage = net.connect({ host: '127.0.0.1', port: h.proxy.port });
    garbage.on('error', () => undefined);
    garbage.write('\u0000\u0001 not http at all\r\n\r\n');
    const garbageHead = await readResponseHead(garbage);
    expect(garbageHead.status).toBe(400);

    const tunnel = await connectVia(h.proxy, 'public.test:443');
    expect(tunnel.status).toBe(200);
    tunnel.socket.resetAndDestroy();

    const last = await connectVia(h.proxy, 'public.test:443');
    expect(last.status).toBe(200);
    expect(await exchangeInTunnel(last.socket, '/hello', 'public.test')).toContain('upstream ok');
  });

  it('refuses requests beyond maxRequests with reason request_limit', async () => {
    const h = await harness({
      answers: { 'public.test': [PUBLIC_V4] },
      routes: { [`${PUBLIC_V4}:80`]: upstream.port },
      maxRequests: 2,
    });

    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await getVia(h.proxy, 'http://public.test/hello')).status);

    expect(statuses).toEqual([200, 200, 403]);
    expect(h.proxy.denials).toEqual([
      expect.objectContaining({ host: 'public.test', port: 80, reason: 'request_limit' }),
    ]);
    expect(h.dials).toHaveLength(2);
  });

  it('answers 431 to oversized request headers without dialling', async () => {
    const h = await harness({ answers: { 'public.test': [PUBLIC_V4] } });

    const res = await getVia(h.proxy, 'http://public.test/hello', { 'X-Big': 'x'.repeat(20_000) });

    expect(res.status).toBe(431);
    expect(h.resolutions).toEqual([]);
    expect(h.dials).toEqual([]);
  });
});
