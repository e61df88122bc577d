/**
 * /mcp in both protocol eras at once: the 2025 era (SDK v1's client, `initialize`) and the
 * 2026-07-28 era (SDK v2's client pinned to it, and raw requests for what a client would never
 * send). One endpoint, one tool list in one order, one billed operation per tools/call.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { defaultToolNames } from '../../schemas/operation-definition.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  connectClient,
  connectEraClient,
  type ListeningApp,
  listen,
  postJsonRpc,
} from '../support/mcp-server.js';

const MODERN = '2026-07-28';
let harness: Harness;
let app: ListeningApp;
let apiKey: string;
let accountId: string;

beforeAll(async () => {
  harness = await startHarness({});
  app = await listen(harness);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ credits: 100 }));
});
afterAll(async () => {
  await app.close();
  await harness.close();
});

/** The `_meta` envelope every 2026-era request carries. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-tests', version: '1.0.0' },
};

/** A raw 2026-era request, with the standard headers naming `headerMethod` (the body's by default). */
function modernRequest(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return postJsonRpc(
    app.url,
    { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: envelope } },
    {
      Authorization: `Bearer ${apiKey}`,
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': method,
      ...headers,
    },
  );
}

async function balance(): Promise<number> {
  return (await harness.repositories.ledger.state(accountId)).balance;
}

describe('the 2026-07-28 era', () => {
  it('lands an auto-negotiating SDK v2 client on the modern era', async () => {
    const client = new Client({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(app.url), {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    await client.close();
  });

  it('answers server/discover with the revision, the tools capability and the instructions, free', async () => {
    const before = await balance();
    const response = await modernRequest('server/discover', {});
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { result } = await response.json();
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities).toEqual({ tools: { listChanged: false } });
    expect(result.instructions).toMatch(/server\/discover, tools\/list and ping are free/);
    expect(result.resultType).toBe('complete');
    expect(result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('lookup-service');
    expect(await balance()).toBe(before);
  });

  it('lists the same tools in the same order as the 2025 era, with a cache lifetime', async () => {
    const legacy = await connectClient(app.url, apiKey);
    const legacyNames = (await legacy.listTools()).tools.map((tool) => tool.name);
    await legacy.close();
    const response = await modernRequest('tools/list', {});
    const { result } = await response.json();
    expect(result.tools.map((tool: { name: string }) => tool.name)).toEqual(legacyNames);
    expect(legacyNames).toEqual(defaultToolNames(catalog));
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
  });

  it('refuses a request whose Mcp-Method header disagrees with its body, and bills nothing', async () => {
    const before = await balance();
    const response = await modernRequest(
      'tools/call',
      { name: 'get_profile_details', arguments: { username: 'nobody-here' } },
      { 'Mcp-Method': 'tools/list' },
    );
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32020);
    expect(body.error.message).toMatch(/headers and body disagree/);
    expect(await balance()).toBe(before);
  });

  it('refuses a tools/call whose Mcp-Name header names another tool', async () => {
    const response = await modernRequest(
      'tools/call',
      { name: 'get_profile_details', arguments: { username: 'nobody-here' } },
      { 'Mcp-Name': 'get_company_details' },
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32020);
  });

  it('refuses a 2026-era request without the Mcp-Method header', async () => {
    const response = await postJsonRpc(
      app.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope } },
      { Authorization: `Bearer ${apiKey}`, 'MCP-Protocol-Version': MODERN },
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/Mcp-Method/i);
  });

  it('refuses a revision it does not serve, naming the ones it does', async () => {
    const response = await postJsonRpc(
      app.url,
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/list',
        params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { Authorization: `Bearer ${apiKey}`, 'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list' },
    );
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.data.supported).toContain(MODERN);
  });

  it('bills one tools/call once, exactly as the 2025 era does', async () => {
    for (const era of ['2025-11-25', MODERN] as const) {
      const client = await connectEraClient(app.url, apiKey, era);
      const before = await balance();
      const result = await client.callTool({
        name: 'search_industries_by_keyword',
        arguments: { query: 'software' },
      });
      expect(result.isError).toBeFalsy();
      expect(before - (await balance())).toBe(
        (result.structuredContent as { meta: { creditCost: number } }).meta.creditCost,
      );
      await client.close();
    }
  });

  it('still asks for credentials before anything else, in the 2026 era too', async () => {
    const response = await postJsonRpc(
      app.url,
      { jsonrpc: '2.0', id: 5, method: 'server/discover', params: { _meta: envelope } },
      { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'server/discover' },
    );
    expect(response.status).toBe(401);
  });
});
