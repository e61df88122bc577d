/**
 * The website operations as MCP tools (the `websites` toolset, beyond the spec's catalog), through
 * the real app, real Chromium (one for the file) behind the egress proxy and pages served on
 * loopback: each tool answers the REST body of the same call and bills it as REST does, charged,
 * refunded, or charged for a page that is gone; `?toolsets=websites` lists exactly these three tools.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultChars } from '../../shared/mcp/tool-results.js';
import { type Harness, startHarness } from '../support/harness.js';
import { connectClient, ERAS, type ListeningApp, listen } from '../support/mcp-server.js';
import { callToolAndRest } from '../support/tool-and-rest.js';
import { startWebServer, type WebServer } from '../support/web-servers.js';

const WEBSITE_TOOLS = ['get_website_html', 'get_website_text', 'find_website_emails'];
const RESULT_BOUND = 20_000;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

let site: WebServer;
let harness: Harness;
let app: ListeningApp;
let websitesUrl: string;

beforeAll(async () => {
  site = await startWebServer({
    routes: {
      '/': page(
        'Home',
        '<h1>Welcome</h1><p>First paragraph.</p><a href="/contact">Contact</a><script>document.body.insertAdjacentHTML("beforeend", "<p>Rendered by script.</p>")</script>',
      ),
      '/contact': page(
        'Contact',
        '<p>Write to <a href="mailto:hello@lookup-test.org">hello@lookup-test.org</a>.</p>',
      ),
      '/empty': page('Empty', '<div style="display:none">hidden</div>'),
      '/long': page('Long', `<p>${'All work and no play. '.repeat(2_000)}</p>`),
      '/gone': (_request: unknown, response: ServerResponse) => {
        response.writeHead(410, { 'Content-Type': 'text/html' });
        response.end(page('Gone', '<p>gone</p>'));
      },
    },
  });
  harness = await startHarness({
    env: {
      UNSAFE_WEBSITE_ALLOW_HOSTS: site.hostPort,
      WEBSITE_BUDGET_SECONDS: '8',
      // Above every other page here, below the long one (44,000 characters of text, twice over).
      MCP_RESULT_MAX_CHARS: String(RESULT_BOUND),
    },
  });
  app = await listen(harness);
  websitesUrl = `${app.url}?toolsets=websites`;
}, 120_000);
afterAll(async () => {
  await app?.close();
  await harness?.close();
  await site?.close();
});

it('lists exactly the three website tools under ?toolsets=websites', async () => {
  const { apiKey } = await harness.provision();
  const client = await connectClient(websitesUrl, apiKey);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(WEBSITE_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ properties: { url: { type: 'string' } }, required: ['url'] });
      expect(tool.description).toContain('a page that is not found keeps the charge');
    }
  } finally {
    await client.close();
  }
});

describe.each(ERAS)('calls in the %s era, each against REST', (era) => {
  it.each([
    ['get_website_html', '/v1/websites/content', 2, { html: expect.stringContaining('Rendered by script.') }],
    ['get_website_text', '/v1/websites/text', 2, { text: expect.stringContaining('Rendered by script.') }],
    [
      'find_website_emails',
      '/v1/websites/emails',
      5,
      { emails: [{ email: 'hello@lookup-test.org', sourceUrl: expect.stringMatching(/\/contact$/) }] },
    ],
  ])(
    '%s: the REST body of %s, charged %i credits as REST is',
    async (tool, path, price, data) => {
      const calls = await callToolAndRest(
        harness,
        websitesUrl,
        { tool, arguments: { url: `${site.origin}/` }, path },
        era,
      );
      expect(calls.rest.status).toBe(200);
      expect(calls.tool.status).toBe(200);
      expect(calls.tool.body).toEqual(calls.rest.body);
      expect(calls.tool.body).toMatchObject({ data, meta: { creditCost: price } });
      expect(calls.tool.creditsRemaining).toBe(String(100 - price));
      expect(calls.tool.creditsRemaining).toBe(calls.rest.creditsRemaining);
      expect(calls.tool.ledger).toEqual([expect.objectContaining({ cost: price, status: 'charged' })]);
      expect(calls.tool.ledger).toEqual(calls.rest.ledger);
    },
    60_000,
  );

  it('get_website_text: a page with no visible text is refunded, as REST does', async () => {
    const calls = await callToolAndRest(
      harness,
      websitesUrl,
      {
        tool: 'get_website_text',
        arguments: { url: `${site.origin}/empty` },
        path: '/v1/websites/text',
      },
      era,
    );
    expect(calls.tool.result.isError).toBe(true);
    expect(calls.tool.status).toBe(calls.rest.status);
    expect(calls.tool.body).toEqual(calls.rest.body);
    expect(calls.tool.creditsRemaining).toBe('100');
    expect(calls.tool.creditsRemaining).toBe(calls.rest.creditsRemaining);
    expect(calls.tool.ledger).toEqual([expect.objectContaining({ status: 'refunded' })]);
    expect(calls.tool.ledger).toEqual(calls.rest.ledger);
  }, 60_000);

  it('get_website_html: a page that is gone (410) answers 404 and keeps the charge, as REST does', async () => {
    const calls = await callToolAndRest(
      harness,
      websitesUrl,
      {
        tool: 'get_website_html',
        arguments: { url: `${site.origin}/gone` },
        path: '/v1/websites/content',
      },
      era,
    );
    expect(calls.tool.status).toBe(404);
    expect(calls.tool.body).toEqual(calls.rest.body);
    expect(calls.tool.creditsRemaining).toBe('98');
    expect(calls.tool.creditsRemaining).toBe(calls.rest.creditsRemaining);
    expect(calls.tool.ledger).toEqual(calls.rest.ledger);
  }, 60_000);
});

it("cuts a page's text to the result bound and says how much was left out, charged as REST", async () => {
  const calls = await callToolAndRest(harness, websitesUrl, {
    tool: 'get_website_text',
    arguments: { url: `${site.origin}/long` },
    path: '/v1/websites/text',
  });
  const { result } = calls.tool;
  const full = (calls.rest.body as { data: { text: string } }).data.text;
  const shown = (result.structuredContent as { data: { text: string } }).data.text;
  expect(full.length).toBeGreaterThan(RESULT_BOUND);
  expect(full.startsWith(shown)).toBe(true);
  expect(resultChars(result)).toBeLessThanOrEqual(RESULT_BOUND);
  const cut = Object.entries(result._meta ?? {}).find(([key]) => key.endsWith('/lookup'))?.[1] as {
    cut: unknown;
  };
  expect(cut.cut).toEqual({
    field: 'data.text',
    unit: 'characters',
    kept: shown.length,
    omitted: full.length - shown.length,
    continues: false,
  });
  expect((result.content.at(-1) as { text: string }).text).toMatch(
    /^Cut to \d+ of \d+ characters of data\.text to fit the 20,000-character result bound; the \d+ characters left out are not shown/,
  );
  expect(calls.tool.ledger).toEqual(calls.rest.ledger);
}, 60_000);
