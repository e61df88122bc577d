/**
 * The website extensions of /api/v2 (content, text, emails) with the real browser against a site on
 * loopback: a success in the v2 envelope whose data deep-equals v1's for the same page.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { v2Routes } from '../../schemas/catalog.js';
import { v2EnvelopeSchema } from '../../schemas/envelope.js';
import { type Harness, startHarness } from '../support/harness.js';
import { startWebServer, type WebServer } from '../support/web-servers.js';

let site: WebServer;
let harness: Harness;

beforeAll(async () => {
  site = await startWebServer({
    routes: {
      '/': '<!doctype html><html><head><title>Contact</title></head><body><p>Write to <a href="mailto:hello@lookup-test.org">hello@lookup-test.org</a>.</p></body></html>',
    },
  });
  harness = await startHarness({
    env: { UNSAFE_WEBSITE_ALLOW_HOSTS: site.hostPort, WEBSITE_BUDGET_SECONDS: '8' },
  });
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await site?.close();
});

const websiteRoutes = v2Routes.filter((route) => route.operation.family === 'websites');

it('serves every website operation on v2', () => {
  expect(websiteRoutes.map((route) => route.operation.id).sort()).toEqual([
    'websites.content',
    'websites.emails',
    'websites.text',
  ]);
});

it.each(websiteRoutes.map((route) => [route.path, route] as const))(
  '%s answers in the v2 envelope with the v1 data',
  async (path, route) => {
    const operation = route.operation;
    const query = new URLSearchParams({ url: `${site.origin}/` });
    const { apiKey } = await harness.provision({ credits: 100 });
    const response = await harness.app.request(`${path}?${query}`, { headers: { 'X-API-Key': apiKey } });
    expect(response.status).toBe(200);
    const body = v2EnvelopeSchema(operation.data, operation.paging, operation.price)
      .strict()
      .parse(await response.json());
    const v1 = await harness.get(`${operation.variants[0]?.path}?${query}`, apiKey);
    expect(body.data).toEqual(((await v1.json()) as { data: unknown }).data);
  },
  60_000,
);
