/**
 * The SSRF battery against real Chromium behind the egress proxy. An allowed site is served on
 * loopback (reachable only through its exact `127.0.0.1:PORT` allow-hosts pair) and a TRAP listens on
 * another loopback port (TCP on 127.0.0.1 and [::1], UDP on 127.0.0.1) counting everything that reaches
 * it. The allowed pages try every way a page can send traffic to the trap; the trap must count zero
 * after each test, and where the request got as far as the proxy, its denials must name the reason.
 *
 * Every vector is tried twice: at the trap's literal address (proves nothing goes direct: any bypass of
 * the proxy would reach the trap) and at a name `<vector>.trap.test` that the proxy's injected resolver
 * answers with 127.0.0.1 (proves the vector reached the proxy, which refused it: Chromium itself resolves
 * nothing). Positive controls (same-site fetch, a WebSocket and a worker fetch to the allowed site) prove
 * the vectors work when allowed, so a zero at the trap means refused, not broken.
 *
 * No test traffic leaves the machine: the injected resolver answers only *.test names, and the injected
 * dialer connects to loopback only (it records and refuses any other address the proxy asks for).
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.js';
import { parseAllowHosts } from '../../shared/net/address-policy.js';
import {
  createWebsiteRuntime,
  EgressDeniedError,
  NavigationFailedError,
  PageBudgetError,
  type PageHandle,
  type WebsiteRuntime,
} from '../../shared/websites/website-runtime.js';
import { startWebServer, type WebServer } from '../support/web-servers.js';

const USER_AGENT = 'LookupServiceTest/1.0 (+https://example.invalid/bot)';
const PUBLIC_V4 = '93.184.216.34';
/** Vectors the battery page tries against `<name>.trap.test`, each of which must reach the proxy. */
const NAMED_VECTORS = [
  'iframe',
  'img',
  'css',
  'script',
  'fetch',
  'xhr',
  'ws',
  'worker',
  'worker-ws',
  'sharedworker',
  'eventsource',
  'beacon',
] as const;

let site: WebServer;
let trap: WebServer;
let trap6: WebServer;
let udpTrap: UdpSocket;
let udpDatagrams = 0;
let runtime: WebsiteRuntime;
const resolutions: string[] = [];
const dials: string[] = [];
const logs: Array<Record<string, unknown>> = [];
const open: PageHandle[] = [];

const trapCounts = () => ({
  v4: { ...trap.counts },
  v6: { ...trap6.counts },
  udp: udpDatagrams,
});
const ZERO = {
  v4: { connections: 0, requests: 0, upgrades: 0 },
  v6: { connections: 0, requests: 0, upgrades: 0 },
  udp: 0,
};

function html(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
}

/** The page that tries every subresource, script and socket vector at once, then sets window.__done. */
function batteryPage(): string {
  const T = `http://127.0.0.1:${trap.port}`;
  const named = (vector: string) => `http://${vector}.trap.test`;
  const workerTargets = [
    `${T}/worker`,
    `http://2130706433:${trap.port}/`,
    `http://0x7f.1:${trap.port}/`,
    `http://[::ffff:127.0.0.1]:${trap.port}/`,
    `http://[::1]:${trap.port}/`,
    `http://0.0.0.0:${trap.port}/`,
    `http://localhost:${trap.port}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://100.64.0.1/',
    `${named('worker')}/`,
  ];
  return html(
    'Battery',
    `
<link rel="dns-prefetch" href="//dnsprefetch.trap.test">
<link rel="dns-prefetch" href="${T}">
<link rel="preconnect" href="${T}">
<link rel="preconnect" href="${named('preconnect')}">
<link rel="prefetch" href="${T}/prefetch">
<link rel="stylesheet" href="${T}/style.css">
<link rel="stylesheet" href="${named('css')}/style.css">
<iframe src="${T}/iframe"></iframe>
<iframe src="${named('iframe')}/"></iframe>
<iframe src="file:///etc/passwd" id="fileframe"></iframe>
<img src="${T}/img.png"><img src="${named('img')}/img.png">
<script src="${T}/script.js"></script>
<script src="${named('script')}/script.js"></script>
<script>
const results = {};
window.__results = results;
const limit = (promise, ms = 3000) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), ms))]);
const attempt = (name, make) =>
  limit(Promise.resolve().then(make)).then(
    (value) => { results[name] = 'reached:' + value; },
    (error) => { results[name] = 'blocked:' + (error && error.message ? error.message : error); },
  );
const socket = (url) => new Promise((resolve, reject) => {
  const ws = new WebSocket(url);
  ws.onmessage = (event) => { resolve(String(event.data)); ws.close(); };
  ws.onerror = () => reject(new Error('websocket error'));
  ws.onclose = () => reject(new Error('websocket closed'));
});
const xhr = (url) => new Promise((resolve, reject) => {
  const request = new XMLHttpRequest();
  request.open('GET', url);
  request.onload = () => resolve(request.status);
  request.onerror = () => reject(new Error('xhr error'));
  request.send();
});
const inWorker = (worker, message) => new Promise((resolve, reject) => {
  const port = worker.port || worker;
  port.onmessage = (event) => resolve(JSON.stringify(event.data));
  worker.onerror = (event) => reject(new Error('worker error ' + (event.message || '')));
  port.postMessage(message);
});
const workerJob = {
  fetch: ${JSON.stringify([...workerTargets, '/ok'])},
  sockets: ['ws://127.0.0.1:${trap.port}/worker-ws', '${named('worker-ws').replace('http', 'ws')}/'],
};
const peer = async () => {
  const pc = new RTCPeerConnection({ iceServers: [
    { urls: 'stun:127.0.0.1:${trap.port}' },
    { urls: 'turn:127.0.0.1:${trap.port}?transport=tcp', username: 'u', credential: 'p' },
    { urls: 'turn:127.0.0.1:${trap.port}?transport=udp', username: 'u', credential: 'p' },
  ] });
  pc.createDataChannel('x');
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const sdp = pc.localDescription ? pc.localDescription.sdp : '';
  pc.close();
  return 'candidates:' + (sdp.match(/a=candidate/g) || []).length;
};
Promise.all([
  attempt('control-fetch', () => fetch('/ok').then((r) => r.text())),
  attempt('control-ws', () => socket('ws://127.0.0.1:${site.port}/ws')),
  attempt('fetch', () => fetch('${T}/fetch').then((r) => r.status)),
  attempt('fetch-name', () => fetch('${named('fetch')}/').then((r) => r.status)),
  attempt('fetch-file', () => fetch('file:///etc/passwd').then((r) => r.text())),
  attempt('xhr', () => xhr('${T}/xhr')),
  attempt('xhr-name', () => xhr('${named('xhr')}/')),
  attempt('ws', () => socket('ws://127.0.0.1:${trap.port}/ws')),
  attempt('ws-name', () => socket('${named('ws').replace('http', 'ws')}/')),
  attempt('worker', () => inWorker(new Worker('/worker.js'), workerJob)),
  attempt('sharedworker', () => inWorker(new SharedWorker('/worker.js', 'shared'), {
    fetch: ${JSON.stringify([...workerTargets, `${T}/sharedworker`, `${named('sharedworker')}/`, '/ok'])},
    sockets: [],
  })),
  attempt('serviceworker', () => navigator.serviceWorker.register('/sw.js').then((r) => 'registered ' + r.scope)),
  attempt('eventsource', () => new Promise((resolve, reject) => {
    const a = new EventSource('${T}/events');
    const b = new EventSource('${named('eventsource')}/events');
    let errors = 0;
    for (const source of [a, b]) {
      source.onopen = () => resolve('open');
      source.onerror = () => { source.close(); if (++errors === 2) reject(new Error('eventsource error')); };
    }
  })),
  attempt('beacon', () => [navigator.sendBeacon('${T}/beacon', 'x'), navigator.sendBeacon('${named('beacon')}/', 'x')]),
  attempt('import', () => import('${T}/module.js')),
  attempt('popup', () => String(window.open('${T}/popup')) + ' ' + String(window.open('${named('popup')}/'))),
  attempt('webrtc', peer),
]).then(() => { window.__done = true; });
</script>`,
  );
}

const WORKER_SCRIPT = `
const run = async ({ fetch: urls, sockets }) => {
  const out = {};
  await Promise.all(urls.map((url) =>
    fetch(url).then((r) => r.text()).then((t) => { out[url] = 'reached:' + t.slice(0, 20); }, (e) => { out[url] = 'blocked:' + e.message; })));
  await Promise.all(sockets.map((url) => new Promise((resolve) => {
    const ws = new WebSocket(url);
    const done = (what) => { out[url] = what; resolve(); };
    ws.onopen = () => done('reached');
    ws.onerror = () => done('blocked');
    setTimeout(() => done('timeout'), 3000);
  })));
  return out;
};
self.onmessage = (event) => run(event.data).then((out) => self.postMessage(out));
self.onconnect = (event) => {
  const port = event.ports[0];
  port.onmessage = (message) => run(message.data).then((out) => port.postMessage(out));
};`;

const SERVICE_WORKER_SCRIPT = `
self.addEventListener('install', (event) => {
  event.waitUntil(Promise.allSettled([fetch('http://127.0.0.1:TRAP/sw'), fetch('http://sw.trap.test/')]));
});`;

/** A loopback-only dialer: records every request, refuses (throws) for any address not on loopback. */
function loopbackDialer(address: string, port: number): net.Socket {
  const key = net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
  dials.push(key);
  if (address !== '127.0.0.1' && address !== '::1') {
    throw new Error(`test dialer: refusing to connect to non-loopback ${key}`);
  }
  return net.connect({ host: address, port });
}

async function resolveTestName(host: string): Promise<string[]> {
  resolutions.push(host);
  if (host.endsWith('.trap.test')) return host === 'metadata.trap.test' ? ['169.254.169.254'] : ['127.0.0.1'];
  if (host.endsWith('.site.test')) return ['127.0.0.1'];
  if (host === 'rebind.test') {
    return resolutions.filter((name) => name === host).length === 1 ? [PUBLIC_V4] : ['127.0.0.1'];
  }
  throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
}

async function openPage(
  overrides: Partial<{ budgetMs: number; maxRequests: number; maxHosts: number }> = {},
) {
  const handle = await runtime.openPage({ budgetMs: 20_000, maxRequests: 200, maxHosts: 50, ...overrides });
  open.push(handle);
  return handle;
}

function denialsFor(host: string) {
  return runtime.egress.denials.filter((denial) => denial.host === host);
}

/** Gives late attempts (beacons, preconnects, retries) time to arrive before the trap is read. */
const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms));

async function startTraps(): Promise<void> {
  // The IPv6 and UDP traps share the IPv4 trap's port number; retry on the rare collision.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const v4 = await startWebServer();
    try {
      const v6 = await startWebServer({ host: '::1', port: v4.port });
      const udp = createSocket('udp4');
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(v4.port, '127.0.0.1', () => resolve());
      });
      udp.on('message', () => {
        udpDatagrams += 1;
      });
      trap = v4;
      trap6 = v6;
      udpTrap = udp;
      return;
    } catch {
      await v4.close();
    }
  }
  throw new Error('could not start the trap on one port for IPv4, IPv6 and UDP');
}

beforeAll(async () => {
  await startTraps();
  site = await startWebServer({
    routes: {
      '/': html(
        'Allowed page',
        '<h1>Hello from the allowed page</h1><p id="status">static</p>' +
          '<script>document.getElementById("status").textContent = "rendered by script";</script>',
      ),
      '/ok': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
        res.end('ok');
      },
      '/battery': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(batteryPage());
      },
      '/worker.js': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/javascript' });
        res.end(WORKER_SCRIPT);
      },
      '/sw.js': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/javascript' });
        res.end(SERVICE_WORKER_SCRIPT.replace('TRAP', String(trap.port)));
      },
      '/set-state': (_req, res) => {
        res.writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Set-Cookie': 'session=first-request; Path=/',
        });
        res.end(html('State', '<script>localStorage.setItem("visited", "yes");</script>'));
      },
      '/read-state': html(
        'Read state',
        '<pre id="state"></pre><script>document.getElementById("state").textContent = ' +
          'JSON.stringify({ cookie: document.cookie, visited: localStorage.getItem("visited") });</script>',
      ),
      '/redirect-to-trap': (_req, res) => {
        res.writeHead(302, { Location: `http://127.0.0.1:${trap.port}/redirected` });
        res.end();
      },
      '/redirect-to-name': (_req, res) => {
        res.writeHead(302, { Location: 'http://redirect.trap.test/redirected' });
        res.end();
      },
      '/redirect-to-tls-name': (_req, res) => {
        res.writeHead(302, { Location: 'https://tls.trap.test/redirected' });
        res.end();
      },
      '/redirect-to-file': (_req, res) => {
        res.writeHead(302, { Location: 'file:///etc/passwd' });
        res.end();
      },
      '/meta-refresh': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(
          html('Meta', `<meta http-equiv="refresh" content="0;url=http://127.0.0.1:${trap.port}/meta">`),
        );
      },
      '/meta-refresh-name': html(
        'Meta',
        '<meta http-equiv="refresh" content="0;url=http://meta.trap.test/">',
      ),
      '/form': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(
          html(
            'Form',
            `<form id="f" method="post" action="http://127.0.0.1:${trap.port}/form"><input name="a" value="b"></form>` +
              '<script>document.getElementById("f").submit();</script>',
          ),
        );
      },
      '/form-name': html(
        'Form',
        '<form id="f" method="post" action="http://form.trap.test/"><input name="a" value="b"></form>' +
          '<script>document.getElementById("f").submit();</script>',
      ),
      '/form-popup': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(
          html(
            'Form',
            `<form id="f" target="_blank" action="http://127.0.0.1:${trap.port}/form"></form>` +
              '<script>document.getElementById("f").submit();</script>',
          ),
        );
      },
      '/location': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(
          html('Location', `<script>location.href = "http://127.0.0.1:${trap.port}/location";</script>`),
        );
      },
      '/many-images': html(
        'Images',
        Array.from({ length: 10 }, (_, i) => `<img src="/img?i=${i}">`).join(''),
      ),
      '/img': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'image/gif' });
        res.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
      },
      '/many-hosts': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(
          html(
            'Hosts',
            ['a', 'b', 'c', 'd']
              .map((name) => `<img src="http://${name}.site.test:${site.port}/img?host=${name}">`)
              .join(''),
          ),
        );
      },
      '/hang': () => {
        // Never answers: the budget has to end the request.
      },
    },
  });
  const allowHosts = parseAllowHosts(
    [site.hostPort, ...['a', 'b', 'c', 'd'].map((name) => `${name}.site.test:${site.port}`)].join(','),
  );
  runtime = await createWebsiteRuntime({
    allowHosts,
    userAgent: USER_AGENT,
    logger: createLogger('info', {
      write: (line: string) => {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      },
    }),
    resolve: resolveTestName,
    dial: loopbackDialer,
  });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()));
  // The whole file's invariant: nothing ever reached the trap, by any route.
  expect(trapCounts()).toEqual(ZERO);
  // And the proxy never dialled anything but loopback servers of this file.
  for (const dial of dials) {
    expect([site.hostPort, `${PUBLIC_V4}:80`], `dialled ${dial}`).toContain(dial);
  }
});

afterAll(async () => {
  await runtime?.close();
  await site?.close();
  await trap?.close();
  await trap6?.close();
  udpTrap?.close();
});

describe('the allowed page', () => {
  it('loads and renders through the proxy, with the configured User-Agent', async () => {
    const before = site.requests.length;
    const handle = await openPage();

    const nav = await handle.goto(`${site.origin}/`);

    expect(nav).toMatchObject({ finalUrl: `${site.origin}/`, status: 200 });
    expect(nav.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(await handle.page.title()).toBe('Allowed page');
    expect(await handle.page.evaluate(() => document.body.innerText)).toContain('rendered by script');
    expect(site.requests[before]?.headers['user-agent']).toBe(USER_AGENT);
    // It came through the proxy: the proxy dialled the site and forwarded with its own Connection header.
    expect(dials).toContain(site.hostPort);
    expect(site.requests[before]?.headers.connection).toBe('close');
  });

  it('gives each request its own context: cookies and storage of one are absent in the next', async () => {
    const first = await openPage();
    await first.goto(`${site.origin}/set-state`);
    // Within the same context the state is there (so the check below can see it when it leaks).
    await first.goto(`${site.origin}/read-state`);
    expect(JSON.parse(await first.page.$eval('#state', (node) => node.textContent ?? ''))).toEqual({
      cookie: 'session=first-request',
      visited: 'yes',
    });
    await first.close();
    expect(first.page.isClosed()).toBe(true);

    const before = site.requests.length;
    const second = await openPage();
    await second.goto(`${site.origin}/read-state`);

    expect(JSON.parse(await second.page.$eval('#state', (node) => node.textContent ?? ''))).toEqual({
      cookie: '',
      visited: null,
    });
    expect(site.requests[before]?.headers.cookie).toBeUndefined();
    expect(second.page.browserContext()).not.toBe(first.page.browserContext());
  });
});

describe('page vectors towards the trap', () => {
  it('refuses every subresource, script, worker, socket and WebRTC route, at the proxy where it gets there', async () => {
    const handle = await openPage();

    const nav = await handle.goto(`${site.origin}/battery`);
    expect(nav.status).toBe(200);
    await handle.page.waitForFunction('window.__done === true', { timeout: 15_000 });
    await settle(1_000);
    const results = (await handle.page.evaluate('window.__results')) as Record<string, string>;

    // Positive controls: the same kinds of request reach the allowed site.
    expect(results['control-fetch']).toBe('reached:ok');
    expect(results['control-ws']).toBe('reached:hello');
    expect(JSON.parse((results.worker ?? '').replace(/^reached:/, ''))).toMatchObject({
      '/ok': 'reached:ok',
    });
    // Refused: nothing readable came back from any trap route, and no popup or service worker exists.
    for (const name of ['fetch', 'fetch-name', 'fetch-file', 'xhr', 'xhr-name', 'ws', 'ws-name', 'import']) {
      expect(results[name], name).toMatch(/^blocked:/);
    }
    expect(results.serviceworker).toBe('blocked:Service workers are disabled.');
    expect(results.popup).toBe('reached:null null');
    expect(await handle.page.browserContext().pages()).toHaveLength(1);
    expect(
      await handle.page.evaluate(() => {
        const frame = document.getElementById('fileframe') as HTMLIFrameElement;
        try {
          return frame.contentDocument?.body?.innerText ?? '';
        } catch {
          return '';
        }
      }),
    ).not.toContain('root:');

    expect(trapCounts()).toEqual(ZERO);
    for (const vector of NAMED_VECTORS) {
      expect(denialsFor(`${vector}.trap.test`), vector).toContainEqual(
        expect.objectContaining({ port: 80, reason: 'loopback', address: '127.0.0.1' }),
      );
    }
    // Puppeteer intercepts the dedicated worker's requests but not the shared worker's: every spelling
    // the shared worker tried reached the proxy and was refused there (2130706433 and 0x7f.1 arrive as
    // 127.0.0.1, [::ffff:127.0.0.1] as ::ffff:7f00:1; the port rule is checked before the address).
    for (const host of ['127.0.0.1', '::ffff:7f00:1', '::1', '0.0.0.0', 'localhost']) {
      expect(denialsFor(host), host).toContainEqual(
        expect.objectContaining({ port: trap.port, reason: 'port' }),
      );
    }
    expect(denialsFor('169.254.169.254')).toContainEqual(
      expect.objectContaining({ port: 80, reason: 'link_local' }),
    );
    expect(denialsFor('fd00:ec2::254')).toContainEqual(
      expect.objectContaining({ port: 80, reason: 'unique_local' }),
    );
    expect(denialsFor('100.64.0.1')).toContainEqual(expect.objectContaining({ port: 80, reason: 'cgnat' }));
    // WebRTC gathered no candidate at all (no UDP outside the proxy), and the UDP trap saw nothing.
    expect(results.webrtc).toBe('reached:candidates:0');
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'egress denied', host: 'worker.trap.test', reason: 'loopback' }),
    );
    // dns-prefetch and preconnect send no request: Chromium resolves nothing itself (host-resolver rules)
    // and a preconnect through an HTTP proxy only opens a connection to the proxy.
    expect(resolutions).not.toContain('dnsprefetch.trap.test');
    expect(resolutions).not.toContain('preconnect.trap.test');
  });

  it.each([
    ['a redirect', '/redirect-to-trap', 'port'],
    ['a meta refresh', '/meta-refresh', 'port'],
    ['a form submission', '/form', 'port'],
    ['a script navigation', '/location', 'port'],
    ['a redirect to file:', '/redirect-to-file', 'scheme'],
  ])('refuses %s of the main document to the trap (%s)', async (_name, path, reason) => {
    const handle = await openPage();

    const error = await handle.goto(`${site.origin}${path}`).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EgressDeniedError);
    expect(error).toMatchObject({ reason, redirected: true });
    expect(trapCounts()).toEqual(ZERO);
  });

  it.each([
    ['a redirect', '/redirect-to-name', 'redirect.trap.test', 80],
    ['a redirect to https', '/redirect-to-tls-name', 'tls.trap.test', 443],
    ['a meta refresh', '/meta-refresh-name', 'meta.trap.test', 80],
    ['a form submission', '/form-name', 'form.trap.test', 80],
  ])(
    'refuses %s of the main document to a name answering 127.0.0.1, at the proxy',
    async (_name, path, host, port) => {
      const handle = await openPage();

      const error = await handle.goto(`${site.origin}${path}`).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(EgressDeniedError);
      expect(error).toMatchObject({ reason: 'loopback', redirected: true });
      expect(denialsFor(host)).toContainEqual(expect.objectContaining({ port, reason: 'loopback' }));
      expect(trapCounts()).toEqual(ZERO);
    },
  );

  it('opens no popup for a form submitted into a new window', async () => {
    const handle = await openPage();

    await handle.goto(`${site.origin}/form-popup`);
    await settle();

    expect(await handle.page.browserContext().pages()).toHaveLength(1);
    expect(trapCounts()).toEqual(ZERO);
  });
});

describe('pages opened directly at refused addresses', () => {
  it.each([
    ['http://127.0.0.1:TRAP/', 'port'],
    ['http://2130706433:TRAP/', 'port'],
    ['http://0x7f.1:TRAP/', 'port'],
    ['http://[::ffff:127.0.0.1]:TRAP/', 'port'],
    ['http://[::1]:TRAP/', 'port'],
    ['http://0.0.0.0:TRAP/', 'port'],
    ['http://localhost:TRAP/', 'port'],
    ['http://user:pass@127.0.0.1:TRAP/', 'credentials'],
    ['http://127.0.0.1/', 'loopback'],
    ['http://localhost/', 'loopback_name'],
    ['http://169.254.169.254/latest/meta-data/', 'link_local'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'unique_local'],
    ['http://100.64.0.1/', 'cgnat'],
    ['http://example.com:8080/', 'port'],
    ['file:///etc/passwd', 'scheme'],
  ])('refuses %s before the browser sends anything (%s)', async (template, reason) => {
    const handle = await openPage();
    const denialsBefore = runtime.egress.denials.length;
    const dialsBefore = dials.length;

    const error = await handle
      .goto(template.replace('TRAP', String(trap.port)))
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EgressDeniedError);
    expect(error).toMatchObject({ reason, redirected: false });
    expect(handle.page.url()).toBe('about:blank');
    expect(runtime.egress.denials.length).toBe(denialsBefore);
    expect(dials.length).toBe(dialsBefore);
    expect(trapCounts()).toEqual(ZERO);
  });

  it.each([
    ['http://metadata.trap.test/latest/meta-data/', 'metadata.trap.test', 80, 'link_local'],
    ['http://direct.trap.test/', 'direct.trap.test', 80, 'loopback'],
    ['https://direct-tls.trap.test/', 'direct-tls.trap.test', 443, 'loopback'],
  ])('refuses %s at the proxy, whose denial names the reason', async (url, host, port, reason) => {
    const handle = await openPage();
    const dialsBefore = dials.length;

    const error = await handle.goto(url).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EgressDeniedError);
    expect(error).toMatchObject({ reason, redirected: false });
    expect(denialsFor(host)).toContainEqual(expect.objectContaining({ port, reason }));
    expect(dials.length).toBe(dialsBefore);
    expect(trapCounts()).toEqual(ZERO);
  });

  it('defeats DNS rebinding from the browser: one resolution, the checked public address dialled, never 127.0.0.1', async () => {
    const handle = await openPage();
    const dialsBefore = dials.length;

    // The loopback-only dialer refuses the public address: the proxy's 502 is a failed navigation,
    // never taken for the page's own answer.
    const nav = await handle.goto('http://rebind.test/').catch((caught: unknown) => caught);

    expect(nav).toBeInstanceOf(NavigationFailedError);
    expect(nav).toMatchObject({ message: 'Navigation failed: net::ERR_CONNECTION_FAILED' });
    expect(resolutions.filter((name) => name === 'rebind.test')).toEqual(['rebind.test']);
    expect(dials.slice(dialsBefore)).toEqual([`${PUBLIC_V4}:80`]);
    expect(trapCounts()).toEqual(ZERO);
  });
});

describe('bounds', () => {
  it('ends the page when the budget runs out, closing its context', async () => {
    const handle = await openPage({ budgetMs: 1_500 });
    const started = Date.now();

    const error = await handle.goto(`${site.origin}/hang`).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PageBudgetError);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(handle.signal.aborted).toBe(true);
    await expect.poll(() => handle.page.isClosed(), { timeout: 2_000 }).toBe(true);
    await expect(handle.page.evaluate(() => 1)).rejects.toThrow();
  });

  it('ends the page when the caller aborts', async () => {
    const controller = new AbortController();
    const handle = await runtime.openPage({
      budgetMs: 20_000,
      maxRequests: 10,
      maxHosts: 5,
      signal: controller.signal,
    });
    open.push(handle);

    const pending = handle.goto(`${site.origin}/hang`).catch((caught: unknown) => caught);
    setTimeout(() => controller.abort(), 300);

    expect(await pending).toBeInstanceOf(PageBudgetError);
    expect(handle.signal.aborted).toBe(true);
  });

  it("closes the page's browser context exactly once, however often close() is called", async () => {
    const handle = await openPage();
    await handle.goto(`${site.origin}/`);
    // The context object Puppeteer hands back is the one the runtime closes; count what it is asked.
    const context = handle.page.browserContext();
    const closeContext = context.close.bind(context);
    let closes = 0;
    context.close = () => {
      closes += 1;
      return closeContext();
    };

    await Promise.all([handle.close(), handle.close()]);
    await handle.close();

    expect(closes).toBe(1);
    expect(handle.page.isClosed()).toBe(true);
    expect(handle.signal.aborted).toBe(true);
  });

  it('sends no more than maxRequests requests for a page', async () => {
    const handle = await openPage({ maxRequests: 3 });
    const before = site.requests.length;

    await handle.goto(`${site.origin}/many-images`);

    const sent = site.requests.slice(before);
    expect(sent.map((request) => request.url)).toEqual(['/many-images', '/img?i=0', '/img?i=1']);
  });

  it('contacts no more than maxHosts distinct hosts for a page', async () => {
    const handle = await openPage({ maxHosts: 3 });
    const before = site.requests.length;

    await handle.goto(`${site.origin}/many-hosts`);

    const hosts = site.requests.slice(before).map((request) => request.headers.host?.split(':')[0]);
    expect(new Set(hosts)).toEqual(new Set(['127.0.0.1', 'a.site.test', 'b.site.test']));
  });

  it('relaunches the browser on the next page after it crashed', async () => {
    const first = await openPage();
    const crashed = first.page.browser();
    crashed.process()?.kill('SIGKILL');
    await expect.poll(() => crashed.connected, { timeout: 5_000 }).toBe(false);

    const handle = await openPage();
    const nav = await handle.goto(`${site.origin}/`);

    expect(nav.status).toBe(200);
    expect(handle.page.browser()).not.toBe(crashed);
  });

  it('relaunches the browser after closeBrowser on the next page', async () => {
    await runtime.closeBrowser();

    const handle = await openPage();
    const nav = await handle.goto(`${site.origin}/`);

    expect(nav.status).toBe(200);
  });
});
