/**
 * Who may use /mcp: API keys and OAuth access tokens (a key pair generated here, its JWKS served on
 * loopback), the 401 challenge and the protected resource metadata, browser origins and refused
 * hosts. OAuth identities act for the account an operator linked them to.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { defaultToolNames } from '../../schemas/operation-definition.js';
import { type Harness, startHarness } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { connectClient, type ListeningApp, listen, postJsonRpc } from '../support/mcp-server.js';

const ISSUER = 'https://issuer.example';
const PUBLIC_BASE_URL = 'https://lookup.example';
const RESOURCE = `${PUBLIC_BASE_URL}/mcp`;
const METADATA_URL = `${PUBLIC_BASE_URL}/.well-known/oauth-protected-resource/mcp`;
const REJECTED_HOST = 'marketplace.example';
const KID = 'test-key';

const clock = new ManualClock();
let harness: Harness;
let app: ListeningApp;
let jwks: Server;
let jwksDown = false;
let signingKey: CryptoKey;
let apiKey: string;
let linkedAccountId: string;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'ES256', use: 'sig' };
  jwks = createServer((_req, res) => {
    if (jwksDown) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  harness = await startHarness({
    clock,
    env: {
      OAUTH_ISSUER: ISSUER,
      OAUTH_JWKS_URL: jwksUrl,
      PUBLIC_BASE_URL,
      MCP_REJECTED_HOSTS: `other.example., ${REJECTED_HOST.toUpperCase()}`,
    },
  });
  app = await listen(harness);
  ({ apiKey } = await harness.provision({ credits: 10 }));
  const linked = await harness.provision({ credits: 20 });
  linkedAccountId = linked.account.accountId;
  await harness.repositories.oauthLinks.link('agent-user-1', linkedAccountId);
});
afterAll(async () => {
  await app.close();
  await harness.close();
  await new Promise((resolve) => jwks.close(resolve));
});

/** An access token signed with the test key; `claims` override or (as undefined) drop the defaults. */
function token(claims: Partial<Record<keyof JWTPayload, unknown>> = {}, key: CryptoKey = signingKey) {
  const now = Math.floor(harness.clock.now() / 1000);
  const payload = { iss: ISSUER, sub: 'agent-user-1', aud: RESOURCE, iat: now, exp: now + 600, ...claims };
  for (const [name, value] of Object.entries(payload))
    if (value === undefined) delete payload[name as keyof typeof payload];
  return new SignJWT(payload as JWTPayload).setProtectedHeader({ alg: 'ES256', kid: KID }).sign(key);
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('OAuth', () => {
  it('answers 503 while the JWKS cannot be fetched', async () => {
    jwksDown = true;
    try {
      const response = await postJsonRpc(app.url, initialize, { Authorization: `Bearer ${await token()}` });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    } finally {
      jwksDown = false;
    }
  });

  it('serves the protected resource metadata without authentication, at both locations', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(`${app.origin}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
      });
    }
  });

  it('answers a request without credentials with 401 and the discovery challenge', async () => {
    const response = await postJsonRpc(app.url, initialize);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${METADATA_URL}"`);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    const body = await response.json();
    expect(body).toMatchObject({ error: { code: 'invalid_api_key' } });
    expect(body.meta.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('lets a linked OAuth identity read its account over get_account, with no key', async () => {
    const client = await connectClient(`${app.url}?toolsets=account`, await token());
    try {
      const result = (await client.callTool({ name: 'get_account', arguments: {} })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { data: unknown }).data).toMatchObject({
        accountId: linkedAccountId,
        key: null,
      });
    } finally {
      await client.close();
    }
  });

  it('lets a linked OAuth identity list and call tools, billed to its account', async () => {
    const client = await connectClient(app.url, await token());
    try {
      expect((await client.listTools()).tools).toHaveLength(defaultToolNames(catalog).length);
      const result = (await client.callTool({
        name: 'search_service_categories',
        arguments: {},
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result._meta?.['lookup-service.invalid/lookup']).toMatchObject({
        status: 200,
        headers: { 'X-Credits-Remaining': '19' },
      });
      const [entry] = await harness.repositories.ledger.entries(linkedAccountId);
      expect(entry).toMatchObject({
        transport: 'mcp',
        status: 'charged',
        cost: 1,
        keyId: 'oauth:agent-user-1',
      });
    } finally {
      await client.close();
    }
  });

  const refused: [string, () => Promise<string>][] = [
    ['an expired token', () => token({ exp: Math.floor(harness.clock.now() / 1000) - 120 })],
    ['a token not yet valid', () => token({ nbf: Math.floor(harness.clock.now() / 1000) + 600 })],
    ['a token for another audience', () => token({ aud: 'https://elsewhere.example/mcp' })],
    ['a token without an audience', () => token({ aud: undefined })],
    ['a token without an expiry', () => token({ exp: undefined })],
    ['a token from another issuer', () => token({ iss: 'https://other-issuer.example' })],
    ['a token signed by another key', async () => token({}, (await generateKeyPair('ES256')).privateKey)],
    ['a malformed token', async () => 'not-a-jwt'],
  ];
  it.each(refused)('refuses %s with 401 and the challenge', async (_, make) => {
    const response = await postJsonRpc(app.url, initialize, { Authorization: `Bearer ${await make()}` });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${METADATA_URL}", error="invalid_token"`,
    );
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('refuses a valid token whose subject is not linked to an account with 403', async () => {
    const response = await postJsonRpc(app.url, initialize, {
      Authorization: `Bearer ${await token({ sub: 'stranger' })}`,
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'insufficient_scope' } });
  });

  it('caches what a subject is linked to for KEY_CACHE_SECONDS, like API keys', async () => {
    const { account } = await harness.provision({ credits: 5 });
    const post = async () =>
      (
        await postJsonRpc(app.url, initialize, {
          Authorization: `Bearer ${await token({ sub: 'late-user' })}`,
        })
      ).status;
    expect(await post()).toBe(403);
    await harness.repositories.oauthLinks.link('late-user', account.accountId);
    expect(await post()).toBe(403);
    clock.advance(Number(harness.config.KEY_CACHE_SECONDS) * 1000);
    expect(await post()).toBe(200);
  });

  it('still takes API keys', async () => {
    const response = await postJsonRpc(app.url, initialize, { Authorization: `Bearer ${apiKey}` });
    expect(response.status).toBe(200);
  });
});

describe('refusals', () => {
  it('refuses any request with an Origin header with 403 and a JSON-RPC error without id', async () => {
    const response = await postJsonRpc(app.url, initialize, {
      Authorization: `Bearer ${apiKey}`,
      Origin: 'https://app.example',
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it('refuses the marketplace proxy host name, in any case and with a port', async () => {
    const { status, body } = await postWithHost(`${REJECTED_HOST.replace('m', 'M')}:443`);
    expect(status).toBe(403);
    expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect((await postWithHost('lookup.example')).status).toBe(200);
  });

  it.each([
    `${REJECTED_HOST}.`,
    `${REJECTED_HOST}.:443`,
    `${REJECTED_HOST.toUpperCase()}.:443`,
    'OTHER.example.',
    'Other.Example:443',
  ])('refuses a configured host name however either spells the trailing dot: %s', async (host) => {
    const { status, body } = await postWithHost(host);
    expect(status).toBe(403);
    expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });
});

/** An initialize through node:http, which (unlike fetch) lets the test choose the Host header. */
function postWithHost(host: string): Promise<{ status: number; body: string }> {
  const url = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          Host: host,
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(initialize));
  });
}
