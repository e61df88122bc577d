/**
 * The built-in OAuth authorization server with the real MCP SDK client and real Chromium, against
 * the real app on loopback (one server and one browser for the file): from a bare 401 to a billed
 * tools/call through discovery, registration (DCR, and a Client ID Metadata Document served over
 * HTTPS on loopback), the customer's sign-in and approval on the console's connect page, and the
 * code exchanged with PKCE; then every refusal the issue lists, each through the real endpoints.
 */
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'puppeteer-core';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { mountAuthorizationServer } from '../../shared/oauth/mount-authorization-server.js';
import { signingSecrets } from '../../shared/oauth/signing-keys.js';
import { seriousViolations } from '../support/accessibility.js';
import { startAuthProxy } from '../support/auth-proxy.js';
import { APPLICABLE_SERVER_SCENARIOS, runConformanceScenario } from '../support/conformance.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';
import type { Harness } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { connectClient, postJsonRpc } from '../support/mcp-server.js';
import {
  authorizationUrl,
  type CallbackServer,
  type Consent,
  connectAgent,
  consentInBrowser,
  openConnectPage,
  pkce,
  registerClient,
  signedAccessToken,
  startCallbackServer,
  tokenRequest,
} from '../support/oauth-agent.js';
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
/** Moved by hand only to let an authorization code expire. */
const clock = new ManualClock(Date.now());
const CODE_SECONDS = 60;
/** The HTTPS server on loopback that publishes a Client ID Metadata Document. */
let documents: Server;
let documentUrl: string;
let documentFetches = 0;

const api = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as T;

beforeAll(async () => {
  callback = await startCallbackServer();
  const certificate = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  documents = createServer({ key: certificate.private, cert: certificate.cert }, (_request, response) => {
    documentFetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        client_id: documentUrl,
        client_name: 'Metadata agent',
        redirect_uris: [callback.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  documents.listen(0, '127.0.0.1');
  await once(documents, 'listening');
  const documentHost = `127.0.0.1:${(documents.address() as AddressInfo).port}`;
  documentUrl = `https://${documentHost}/agent/client.json`;
  served = await serveHarness({
    clock,
    env: {
      KEY_CACHE_SECONDS: '0',
      OAUTH_CODE_SECONDS: String(CODE_SECONDS),
      // The test-only allowance: this one loopback server may publish client metadata.
      UNSAFE_OAUTH_CLIENT_ALLOW_HOSTS: documentHost,
      UNSAFE_OAUTH_CLIENT_CA: certificate.cert,
    },
  });
  ({ harness, origin } = served);
  mountConsole(harness, harness.store);
  mountAuthorizationServer(harness);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ name: 'Acme Agents', credits: 100 }));
  fixtures = await startFixtureBrowser();
  page = await fixtures.browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await callback?.close();
  await served?.close();
  documents?.closeAllConnections();
  await new Promise((resolve) => documents?.close(resolve));
});

/** A code approved in the browser for a client registered by DCR, with what exchanging it takes. */
async function approvedCode(consent: Partial<Consent> = {}) {
  const clientId = await registerClient(origin, callback.url);
  const { verifier, challenge } = pkce();
  const answered = callback.next();
  const url = authorizationUrl(origin, {
    clientId,
    redirectUri: callback.url,
    challenge,
    resource: `${origin}/mcp`,
  });
  await consentInBrowser(page, url, { apiKey, ...consent });
  const response = await answered;
  // The client's state comes back unchanged, with the issuer (RFC 9207).
  expect(response.get('state')).toBe(url.searchParams.get('state'));
  expect(response.get('iss')).toBe(origin);
  const code = response.get('code') ?? '';
  const exchange = (overrides: Record<string, string | undefined> = {}) =>
    tokenRequest(origin, {
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      redirect_uri: callback.url,
      code_verifier: verifier,
      resource: `${origin}/mcp`,
      ...overrides,
    });
  return { clientId, code, exchange };
}

/** Tokens for a fresh connection: approved, exchanged; the connection's id from the access token. */
async function connectedTokens(consent: Partial<Consent> = {}) {
  const approved = await approvedCode(consent);
  const { status, body } = await approved.exchange();
  expect(status).toBe(200);
  return {
    ...approved,
    accessToken: String(body.access_token),
    refreshToken: String(body.refresh_token),
    connectionId: connectionOf(String(body.access_token)),
  };
}

/** The connection an access token of ours names (its `connection_id` claim). */
function connectionOf(accessToken: string): string {
  const payload = accessToken.split('.')[1] ?? '';
  return String(JSON.parse(Buffer.from(payload, 'base64url').toString()).connection_id);
}

/** A tools/call on /mcp with a bearer token, raw: its HTTP answer. */
const toolCall = (token: string, name: string, args: Record<string, unknown>) =>
  postJsonRpc(
    `${origin}/mcp`,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    { Authorization: `Bearer ${token}`, 'MCP-Protocol-Version': '2025-11-25' },
  );

/** A refused token answers 401 with the challenge that leads a client back to the metadata. */
async function expectChallenge(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
  );
  await response.arrayBuffer();
}

describe('one-click OAuth for an MCP client', () => {
  it('goes from a bare 401 to a billed tools/call, charged to the account and naming the connection', async () => {
    const before = await api<{ data: { credits: { balance: number } } }>('/v1/account');
    const bare = await postJsonRpc(`${origin}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
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

  it('issues access tokens that say who, for what and until when (RFC 9068)', async () => {
    const { accessToken, connectionId } = await connectedTokens({ families: ['profiles', 'companies'] });
    const [header, payload] = accessToken
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      iss: origin,
      aud: `${origin}/mcp`,
      sub: accountId,
      connection_id: connectionId,
      scope: 'profiles companies',
    });
    expect(payload.exp - payload.iat).toBe(600);
  });

  it('lists the connection in the console, accessible', async () => {
    await page.goto(`${origin}/console/connections`);
    expect(
      await page.$$eval('#connections tbody th', (cells) => cells.map((cell) => cell.textContent)),
    ).toContain('Research agent');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('connections.png', SCREENSHOTS).pathname as `${string}.png` });
  });

  it('takes a Client ID Metadata Document, fetched over HTTPS through the egress guard', async () => {
    const { client } = await connectAgent({
      mcpUrl: `${origin}/mcp`,
      page,
      callback,
      consent: { apiKey, families: ['profiles'] },
      clientMetadataUrl: documentUrl,
    });
    expect(documentFetches).toBeGreaterThan(0);
    const result = (await client.callTool({
      name: 'get_profile_details',
      arguments: { username: PROFILE },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const connections = await harness.store.connections.list(accountId);
    expect(connections.find((connection) => connection.clientId === documentUrl)).toMatchObject({
      clientName: 'Metadata agent',
      scopes: ['profiles'],
    });
    await client.close();
  });

  it('shows the connect page accessible, naming the agent and where the browser returns', async () => {
    const clientId = await registerClient(origin, callback.url, 'Screenshot agent');
    const { challenge } = pkce();
    await page.goto(
      authorizationUrl(origin, { clientId, redirectUri: callback.url, challenge, resource: `${origin}/mcp` })
        .href,
    );
    expect(new URL(page.url()).pathname).toMatch(/^\/console\/connect\//);
    expect(await page.$eval('#client-name', (name) => name.textContent)).toBe('Screenshot agent');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({
      path: new URL('connect.png', SCREENSHOTS).pathname as `${string}.png`,
      fullPage: true,
    });
  });
});

describe('the official conformance suite with an OAuth access token', () => {
  it.each(APPLICABLE_SERVER_SCENARIOS)(
    'passes %s',
    async (scenario) => {
      const { accessToken } = await connectedTokens();
      const proxy = await startAuthProxy(`${origin}/mcp`, `Bearer ${accessToken}`);
      try {
        expect(await runConformanceScenario(proxy.url, scenario)).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      } finally {
        await proxy.close();
      }
    },
    60_000,
  );
});

describe('refusals', () => {
  it('refuses a client metadata document at an address the egress guard does not allow', async () => {
    const { challenge } = pkce();
    // Loopback, but not the allowed host:port: the guard refuses before connecting.
    const blocked = `https://127.0.0.2:${new URL(documentUrl).port}/agent/client.json`;
    const response = await fetch(
      authorizationUrl(origin, {
        clientId: blocked,
        redirectUri: callback.url,
        challenge,
        resource: `${origin}/mcp`,
      }),
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a wrong or missing code_verifier', async () => {
    const approved = await approvedCode();
    const wrong = await approved.exchange({ code_verifier: pkce().verifier });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const missing = await (await approvedCode()).exchange({ code_verifier: undefined });
    expect(missing.status).toBe(400);
    expect(['invalid_request', 'invalid_grant']).toContain(missing.body.error);
  });

  it('refuses a reused code, and revokes what the first use gave', async () => {
    const approved = await approvedCode();
    const first = await approved.exchange();
    expect(first.status).toBe(200);
    const again = await approved.exchange();
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expectChallenge(
      await toolCall(String(first.body.access_token), 'get_profile_details', { username: PROFILE }),
    );
    const connection = await harness.store.connections.get(connectionOf(String(first.body.access_token)));
    expect(connection?.revokedReason).toBe('token_reused');
  });

  it('refuses an expired code', async () => {
    const approved = await approvedCode();
    clock.advance((CODE_SECONDS + 1) * 1000);
    expect(await approved.exchange()).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a redirect URI that does not match, at the authorization and at the token endpoint', async () => {
    const clientId = await registerClient(origin, callback.url);
    const { challenge } = pkce();
    const response = await fetch(
      authorizationUrl(origin, {
        clientId,
        redirectUri: `${callback.url}/elsewhere`,
        challenge,
        resource: `${origin}/mcp`,
      }),
      { redirect: 'manual' },
    );
    // Never sent to the unregistered URI: answered here.
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    const approved = await approvedCode();
    expect(await approved.exchange({ redirect_uri: `${callback.url}/elsewhere` })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
  });

  it('refuses a resource other than /mcp, or none', async () => {
    const clientId = await registerClient(origin, callback.url);
    const { challenge } = pkce();
    for (const resource of ['https://elsewhere.example/mcp', `${origin}/v1`, undefined]) {
      const response = await fetch(
        authorizationUrl(origin, { clientId, redirectUri: callback.url, challenge, resource }),
        { redirect: 'manual' },
      );
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(callback.url);
      expect(location.searchParams.get('error')).toBe('invalid_target');
      expect(location.searchParams.get('iss')).toBe(origin);
    }
    const approved = await approvedCode();
    expect(await approved.exchange({ resource: 'https://elsewhere.example/mcp' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_target' },
    });
  });

  it('refuses a token of ours for another audience', async () => {
    const { connectionId } = await connectedTokens();
    const [secret] = await signingSecrets(undefined, harness.store.settings);
    const forged = await signedAccessToken(secret as string, {
      issuer: origin,
      audience: 'https://elsewhere.example/mcp',
      accountId,
      connectionId,
      now: clock.now(),
    });
    await expectChallenge(await toolCall(forged, 'get_profile_details', { username: PROFILE }));
  });

  it('rotates refresh tokens, and a replayed one revokes the connection', async () => {
    const tokens = await connectedTokens();
    const refresh = () =>
      tokenRequest(origin, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken,
        client_id: tokens.clientId,
        resource: `${origin}/mcp`,
      });
    const rotated = await refresh();
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(tokens.refreshToken);
    const fresh = String(rotated.body.access_token);
    expect((await toolCall(fresh, 'get_profile_details', { username: PROFILE })).status).toBe(200);
    expect(await refresh()).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expectChallenge(await toolCall(fresh, 'get_profile_details', { username: PROFILE }));
    expect(await harness.store.connections.get(tokens.connectionId)).toMatchObject({
      revokedReason: 'token_reused',
    });
  });

  it('stops a connection revoked in the console: 401 with the challenge', async () => {
    const tokens = await connectedTokens();
    expect((await toolCall(tokens.accessToken, 'get_profile_details', { username: PROFILE })).status).toBe(
      200,
    );
    await page.goto(`${origin}/console/connections`);
    await Promise.all([
      page.waitForNavigation(),
      page.click(`form[action="/console/connections/${tokens.connectionId}/revoke"] button`),
    ]);
    expect(page.url()).toBe(`${origin}/console/connections?revoked`);
    await expectChallenge(await toolCall(tokens.accessToken, 'get_profile_details', { username: PROFILE }));
    expect(await harness.store.connections.get(tokens.connectionId)).toMatchObject({
      revokedReason: 'customer',
    });
  });

  it('holds a connection to its families and its daily cap (the tool errors of 403 and 402)', async () => {
    const tokens = await connectedTokens({ families: ['profiles'], dailyCreditCap: PROFILE_PRICE });
    const client = await connectClient(`${origin}/mcp`, tokens.accessToken);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult & {
        structuredContent?: { error?: { code: string; message: string } };
      };
    expect((await call('get_profile_details', { username: PROFILE })).isError).toBeFalsy();
    const overCap = await call('get_profile_details', { username: PROFILE });
    expect(overCap.isError).toBe(true);
    expect(overCap.structuredContent?.error).toMatchObject({ code: 'insufficient_credits' });
    expect(overCap.structuredContent?.error?.message).toMatch(/^This connection's daily credit cap/);
    const outOfScope = await call('search_companies_by_keyword', { keyword: 'acme' });
    expect(outOfScope.isError).toBe(true);
    expect(outOfScope.structuredContent?.error).toMatchObject({ code: 'insufficient_scope' });
    await client.close();
  });

  it('ends the connection when the client revokes its refresh token (RFC 7009)', async () => {
    const tokens = await connectedTokens();
    const revoked = await fetch(`${origin}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refreshToken, client_id: tokens.clientId }),
    });
    expect(revoked.status).toBe(200);
    await expectChallenge(await toolCall(tokens.accessToken, 'get_profile_details', { username: PROFILE }));
    expect(await harness.store.connections.get(tokens.connectionId)).toMatchObject({
      revokedReason: 'client',
    });
  });

  it('answers 503 while the connections cannot be read, as for keys when the access service fails', async () => {
    const tokens = await connectedTokens();
    const connections = harness.store.connections;
    const get = connections.get;
    connections.get = () => Promise.reject(new Error('the table is unreachable'));
    try {
      const response = await toolCall(tokens.accessToken, 'get_profile_details', { username: PROFILE });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    } finally {
      connections.get = get;
    }
  });

  it("refuses a suspended account's connection as it refuses its keys (insufficient_scope)", async () => {
    const other = await harness.provision({ name: 'Suspended later', credits: 10 });
    // The browser forgets its console session (the sign-out form has tests of its own): clicking
    // that form right after a consent raced the page's last navigation once in a full run
    // (puppeteer: "Execution context was destroyed").
    const signOut = () => page.browserContext().deleteMatchingCookies({ name: 'console_session' });
    // This browser is signed in to the file's account: the other account signs in instead.
    await signOut();
    try {
      const clientId = await registerClient(origin, callback.url);
      const { verifier, challenge } = pkce();
      const answered = callback.next();
      await consentInBrowser(
        page,
        authorizationUrl(origin, {
          clientId,
          redirectUri: callback.url,
          challenge,
          resource: `${origin}/mcp`,
        }),
        { apiKey: other.apiKey },
      );
      const exchanged = await tokenRequest(origin, {
        grant_type: 'authorization_code',
        code: (await answered).get('code') ?? '',
        client_id: clientId,
        redirect_uri: callback.url,
        code_verifier: verifier,
        resource: `${origin}/mcp`,
      });
      await harness.repositories.accounts.setStatus(other.account.accountId, 'suspended', {
        actor: 'test',
        reason: 'suspended for the test',
      });
      const client = await connectClient(`${origin}/mcp`, String(exchanged.body.access_token));
      const result = (await client.callTool({
        name: 'get_profile_details',
        arguments: { username: PROFILE },
      })) as CallToolResult & { structuredContent?: { error?: { code: string } } };
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.error).toMatchObject({ code: 'insufficient_scope' });
      await client.close();
    } finally {
      await signOut();
    }
  });

  it('offers only the families the agent asked for, and refuses a form that grants more', async () => {
    const clientId = await registerClient(origin, callback.url);
    const { challenge } = pkce();
    await openConnectPage(
      page,
      authorizationUrl(origin, {
        clientId,
        redirectUri: callback.url,
        challenge,
        resource: `${origin}/mcp`,
        scope: 'profiles',
      }),
      apiKey,
    );
    const offered = () =>
      page.$$eval('input[name="families"]', (boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(await offered()).toEqual(['profiles']);
    // A form edited to grant another family is refused and shown again; nothing is connected.
    await page.$eval('#connect-form fieldset', (fieldset) => {
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.name = 'families';
      box.value = 'companies';
      box.checked = true;
      fieldset.append(box);
    });
    const before = (await harness.store.connections.list(accountId)).length;
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.click('button[name="decision"][value="approve"]'),
    ]);
    expect(answer?.status()).toBe(400);
    expect(await page.$eval('[role="alert"]', (alert) => alert.textContent)).toBe(
      'Pick only among what the agent asked for.',
    );
    expect(await offered()).toEqual(['profiles']);
    expect(await harness.store.connections.list(accountId)).toHaveLength(before);
  });

  it('answers a denial with access_denied to the client', async () => {
    const clientId = await registerClient(origin, callback.url);
    const { challenge } = pkce();
    const answered = callback.next();
    await consentInBrowser(
      page,
      authorizationUrl(origin, { clientId, redirectUri: callback.url, challenge, resource: `${origin}/mcp` }),
      { apiKey, decision: 'deny' },
    );
    expect((await answered).get('error')).toBe('access_denied');
  });
});
