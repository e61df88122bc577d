/**
 * The website operations through the real app, real Chromium behind the egress proxy, and pages
 * served on loopback: content with redirects, visible text, email discovery across a small
 * two-language site and a truncated one, and every honest outcome with its settlement.
 */
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostSlots } from '../../shared/limits/host-slots.js';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';
import { startWebServer, type WebServer } from '../support/web-servers.js';

let site: WebServer;
let trap: WebServer;
let harness: Harness;
/** A loopback port with nothing listening: navigation to it fails inside Chromium. */
let closedHostPort: string;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const many = Array.from(
  { length: 150 },
  (_, index) => `<a href="mailto:person${index}@lookup-test.org">person ${index}</a>`,
).join('\n');

const redirectTo = (location: () => string) => (_request: unknown, response: ServerResponse) => {
  response.writeHead(302, { Location: location() });
  response.end();
};
const status = (code: number) => (_request: unknown, response: ServerResponse) => {
  response.writeHead(code, { 'Content-Type': 'text/html' });
  response.end(page(String(code), `<p>status ${code}</p>`));
};

beforeAll(async () => {
  trap = await startWebServer({ routes: { '/': page('trap', '<p>trap</p>') } });
  site = await startWebServer({
    routes: {
      '/page': page(
        'A page',
        '<h1>Hello</h1><p>First paragraph.</p><script>document.body.insertAdjacentHTML("beforeend", "<p>Rendered by script.</p>")</script>',
      ),
      '/redirect': redirectTo(() => '/page'),
      '/to-trap': redirectTo(() => `${trap.origin}/`),
      '/empty': page('Empty', '<div style="display:none">hidden</div><script>1</script>'),
      '/gone': status(410),
      '/broken': status(500),
      '/challenge': page('Just a moment...', '<p>Checking your browser before accessing the site.</p>'),
      '/huge': page('Huge', `<p>${'x'.repeat(2_200_000)}</p>`),
      '/slow': () => {
        // Never answers: the budget must end the request.
      },
      // A small German/English site whose only addresses are on a later page discovery opens.
      '/': page(
        'Startseite',
        '<p>Willkommen.</p><nav><a href="/blog">Blog</a> <a href="/ueber-uns">Über uns</a> <a href="/impressum">Impressum</a> <a href="/kontakt">Kontakt</a> <a href="/en/about">About</a></nav>',
      ),
      '/kontakt': page('Kontakt', '<p>Schreiben Sie uns über das Formular.</p>'),
      '/impressum': page('Impressum', '<p>Angaben gemäß § 5 TMG.</p>'),
      '/ueber-uns': page(
        'Über uns',
        '<p>Wir sind ein kleines Team. Schreiben Sie an <a href="mailto:hello@lookup-test.org">hello@lookup-test.org</a> oder info [at] lookup-test [dot] org.</p>',
      ),
      '/robots.txt': (_request: unknown, response: ServerResponse) => {
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.end('User-agent: *\nDisallow: /private/\n');
      },
      '/polite': page('Polite', '<a href="/private/contact">Contact</a> <a href="/kontakt">Kontakt</a>'),
      '/private/contact': page('Contact', '<p>secret@lookup-test.org</p>'),
      '/en/about': page('About', '<p>We are a small team.</p>'),
      '/blog': page('Blog', '<p>Nothing here.</p>'),
      '/many': page('Directory', many),
      '/nothing': page('Nothing', '<p>No addresses anywhere.</p>'),
    },
  });
  closedHostPort = await unusedLoopbackPort();
  harness = await startHarness({
    env: {
      UNSAFE_WEBSITE_ALLOW_HOSTS: `${site.hostPort},${closedHostPort}`,
      WEBSITE_BUDGET_SECONDS: '8',
      WEBSITE_MAX_PAGES_PER_HOST: '1',
    },
  });
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await site?.close();
  await trap?.close();
});

async function unusedLoopbackPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

async function call(operation: string, url: string, credits = 100) {
  const { apiKey, account } = await harness.provision({ credits });
  const response = await harness.get(`/v1/websites/${operation}?${new URLSearchParams({ url })}`, apiKey);
  const ledger = await harness.repositories.ledger.entries(account.accountId);
  const { balance } = await harness.repositories.ledger.state(account.accountId);
  return { response, balance, ledger };
}

describe('GET /v1/websites/content', () => {
  it('follows redirects and answers the final URL, title and rendered HTML, charged 2', async () => {
    const { response, balance } = await call('content', `${site.origin}/redirect`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { url: string; title: string; html: string };
      meta: unknown;
    };
    expect(body.data.url).toBe(`${site.origin}/page`);
    expect(body.data.title).toBe('A page');
    expect(body.data.html).toContain('Rendered by script.');
    expect(body.meta).toEqual({ creditCost: 2 });
    expect(balance).toBe(98);
  });

  it.each([
    ['a private literal address', 'http://10.0.0.1/'],
    ['a port other than 80 and 443', 'http://lookup-test.org:8080/'],
    ['credentials in the URL', 'http://user:pass@lookup-test.org/'],
    ['a non-web scheme', 'file:///etc/passwd'],
    ['the loopback name', 'http://localhost/'],
  ])('refuses %s with 400 on url and no charge', async (_, url) => {
    const { response, balance } = await call('content', url);
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.details).toEqual([expect.objectContaining({ field: 'url', code: 'invalid_value' })]);
    expect(balance).toBe(100);
  });

  // Over HTTPS Chromium reports the proxy's refused CONNECT as a tunnel failure naming the URL; over
  // HTTP it takes the proxy's 502 for the page's own answer. Either way the proxy's record says why.
  it.each(['https', 'http'])(
    'answers a site it cannot reach over %s with 502 naming the failure, never echoing the URL',
    async (scheme) => {
      const longPath = `/${'a'.repeat(1_900)}`;
      const { response, balance } = await call('content', `${scheme}://${closedHostPort}${longPath}`);
      const body = await expectError(response, 502, 'upstream_error');
      expect(body.error.message).toBe('The page could not be loaded (net::ERR_CONNECTION_FAILED).');
      expect(balance).toBe(100);
    },
  );

  it('refuses a redirect of the page to a refused target, refunded, and the target never sees a byte', async () => {
    const before = trap.counts.connections;
    const { response, ledger, balance } = await call('content', `${site.origin}/to-trap`);
    await expectError(response, 400, 'invalid_request');
    expect(trap.counts.connections).toBe(before);
    expect(balance).toBe(100);
    expect(ledger).toEqual([expect.objectContaining({ status: 'refunded' })]);
  });

  it('answers a page that is gone (410) with 404, charge kept', async () => {
    const { response, balance } = await call('content', `${site.origin}/gone`);
    await expectError(response, 404, 'resource_not_found');
    expect(balance).toBe(98);
  });

  it.each([
    ['a server error', '/broken'],
    ['a bot challenge', '/challenge'],
    ['more than 2 MiB of HTML', '/huge'],
  ])('answers %s with 502, refunded', async (_, path) => {
    const { response, balance } = await call('content', `${site.origin}${path}`);
    await expectError(response, 502, 'upstream_error');
    expect(balance).toBe(100);
  });

  it('answers a page that never finishes with 504 within the budget, refunded', async () => {
    const { response, balance } = await call('content', `${site.origin}/slow`);
    await expectError(response, 504, 'upstream_timeout');
    expect(balance).toBe(100);
  });
});

describe('GET /v1/websites/text', () => {
  it('answers the visible text after rendering', async () => {
    const { response } = await call('text', `${site.origin}/page`);
    const body = (await response.json()) as { data: { text: string; title: string } };
    expect(body.data).toMatchObject({
      title: 'A page',
      text: 'Hello\n\nFirst paragraph.\n\nRendered by script.',
    });
  });

  it('answers a page with no visible text with 502, refunded', async () => {
    const { response, balance } = await call('text', `${site.origin}/empty`);
    await expectError(response, 502, 'upstream_error');
    expect(balance).toBe(100);
  });
});

describe('GET /v1/websites/emails', () => {
  it('finds the addresses on a later page of a two-language site, charged 5', async () => {
    const { response, balance } = await call('emails', `${site.origin}/`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({
      url: `${site.origin}/`,
      emails: [
        { email: 'hello@lookup-test.org', sourceUrl: `${site.origin}/ueber-uns` },
        { email: 'info@lookup-test.org', sourceUrl: `${site.origin}/ueber-uns` },
      ],
      truncated: false,
      stopReason: 'found',
    });
    // The submitted page, then Kontakt, Impressum and Über uns by rank: the addresses are on the fourth.
    expect(body.data.pagesChecked).toBe(4);
    expect(balance).toBe(95);
  });

  it('follows no page robots.txt disallows, and identifies itself with its User-Agent', async () => {
    const { response } = await call('emails', `${site.origin}/polite`);
    const body = (await response.json()) as { data: { emails: unknown[]; stopReason: string } };
    expect(body.data).toMatchObject({ emails: [], stopReason: 'exhausted' });
    expect(site.requests.some((request) => request.url.startsWith('/private/'))).toBe(false);
    const visit = site.requests.find((request) => request.url === '/polite');
    expect(visit?.headers['user-agent']).toMatch(/^LookupServiceBot\/1\.0/);
  });

  it('answers at most 100 addresses of a page that has 150, truncated', async () => {
    const { response } = await call('emails', `${site.origin}/many`);
    const body = (await response.json()) as {
      data: { emails: unknown[]; truncated: boolean; stopReason: string };
    };
    expect(body.data.emails).toHaveLength(100);
    expect(body.data).toMatchObject({ truncated: true, stopReason: 'found', pagesChecked: 1 });
  });

  it('answers a site without addresses as exhausted, charge kept', async () => {
    const { response, balance } = await call('emails', `${site.origin}/nothing`);
    const body = (await response.json()) as {
      data: { emails: unknown[]; stopReason: string; pagesChecked: number };
    };
    expect(body.data).toMatchObject({ emails: [], stopReason: 'exhausted', pagesChecked: 1 });
    expect(balance).toBe(95);
  });
});

describe('per-host concurrency', () => {
  it('answers 503, refunded, while every page slot of the target host is held', async () => {
    const slots = new HostSlots(harness.store, harness.clock, 'web', 1, 60_000);
    const held = await slots.acquire('127.0.0.1');
    expect(held).toBeDefined();
    const { response, balance } = await call('content', `${site.origin}/page`);
    const body = await expectError(response, 503, 'service_unavailable');
    expect(body.error.retryable).toBe(true);
    expect(response.headers.get('retry-after')).not.toBeNull();
    expect(balance).toBe(100);
    await held?.release();
    expect((await call('content', `${site.origin}/page`)).response.status).toBe(200);
  });
});
