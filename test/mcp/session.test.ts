/**
 * The MCP endpoint's protocol surface with the SDK's real client over loopback: initialize, list,
 * ping; what the endpoint answers itself (405, parse errors, protocol version, headers); and that
 * none of it costs credits or rate-limit requests.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog as entries } from '../../schemas/catalog.js';
import { defaultToolNames, type OperationDefinition } from '../../schemas/operation-definition.js';
import { type Harness, startHarness } from '../support/harness.js';
import { connectClient, type ListeningApp, listen, postJsonRpc } from '../support/mcp-server.js';

/** Read as the general shape: not every entry declares a tool. */
const catalog: readonly OperationDefinition[] = entries;

let harness: Harness;
let app: ListeningApp;
let apiKey: string;
let accountId: string;
let client: Client;

beforeAll(async () => {
  harness = await startHarness();
  app = await listen(harness);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ credits: 50, rateLimit: { limit: 3, windowSeconds: 60 } }));
  client = await connectClient(app.url, apiKey);
});
afterAll(async () => {
  await client.close();
  await app.close();
  await harness.close();
});

const toolNames = defaultToolNames(catalog);
/** Every tool, those a filter must ask for included. */
const everyToolName = catalog.flatMap((operation) => (operation.mcpTool ? [operation.mcpTool] : []));

describe('initialize, tools/list and ping', () => {
  it('initializes with the server name, version and instructions', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'lookup-service', version: expect.any(String) });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/billed/);
  });

  it("lists the catalog's default tools, each with annotations, an input and an output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(toolNames);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
      expect(tool.description).toMatch(/Costs \d+ credits? per call/);
      expect(tool.description).toMatch(/do not establish ownership .*does not prove absence/);
      expect(JSON.stringify(tool)).not.toContain('"format"');
    }
  });

  it('marks every tool read-only, the account tools closed-world, in the same order on every listing', async () => {
    const everyTool = await connectClient(`${app.url}?tools=${everyToolName.join(',')}`, apiKey);
    try {
      const first = (await everyTool.listTools()).tools;
      expect((await everyTool.listTools()).tools).toEqual(first);
      for (const tool of first) {
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
        expect(tool.annotations?.openWorldHint, tool.name).toBe(!tool.name.startsWith('get_account'));
      }
      expect(first.map((tool) => tool.name)).toContain('get_account_ledger');
    } finally {
      await everyTool.close();
    }
  });

  it('publishes identifier choices as flat optional properties, offsets as integers, hasJobs as "true"', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const details = byName.get('get_profile_details')?.inputSchema;
    expect(Object.keys(details?.properties ?? {})).toEqual(['username', 'url', 'publicId']);
    expect(details?.required).toBeUndefined();
    expect(JSON.stringify(details)).not.toMatch(/oneOf|anyOf/);
    const search = byName.get('search_companies_by_keyword')?.inputSchema;
    expect(search?.required).toEqual(['keywords']);
    expect(search?.properties?.offset).toEqual({ type: 'integer', minimum: 0, maximum: 10_000 });
    expect(search?.properties?.hasJobs).toEqual({ type: 'string', const: 'true' });
    expect(search?.properties?.location).toMatchObject({ type: 'string' });
  });

  it('answers ping', async () => {
    await expect(client.ping()).resolves.toEqual({});
  });

  it('consumes no credits and no rate-limit requests', async () => {
    for (let i = 0; i < 5; i += 1) await client.listTools();
    await client.ping();
    expect((await harness.repositories.ledger.state(accountId)).balance).toBe(50);
    expect(await harness.repositories.ledger.entries(accountId)).toEqual([]);
    // The account admits 3 requests a minute: a REST lookup still gets through.
    const response = await harness.get('/v1/search/service-categories', apiKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('X-RateLimit-Remaining')).toBe('2');
  });
});

describe('what the endpoint answers itself', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const auth = () => ({ Authorization: `Bearer ${apiKey}` });

  it.each(['GET', 'DELETE', 'PUT'])('answers %s with 405 and Allow: POST', async (method) => {
    const response = await fetch(app.url, { method, headers: auth() });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it('answers malformed JSON with a JSON-RPC parse error', async () => {
    const response = await postJsonRpc(app.url, '{"jsonrpc": "2.0", "id": 1,', auth());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('refuses a body above 256 KiB with 413 before reading it whole', async () => {
    // In-process: over a socket, the server closes the connection of a refused upload.
    const response = await harness.app.request('/mcp', {
      method: 'POST',
      headers: {
        ...auth(),
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ ...initialize, padding: 'x'.repeat(300_000) }),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it('refuses batches', async () => {
    const response = await postJsonRpc(app.url, [initialize], auth());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('initializes without a session id and with the no-store headers', async () => {
    const response = await postJsonRpc(app.url, initialize, auth());
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const body = await response.json();
    expect(body.result.serverInfo.name).toBe('lookup-service');
  });

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('negotiates protocol revision %s', async (version) => {
    const response = await postJsonRpc(
      app.url,
      { ...initialize, params: { ...initialize.params, protocolVersion: version } },
      auth(),
    );
    expect((await response.json()).result.protocolVersion).toBe(version);
    const list = await postJsonRpc(
      app.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...auth(), 'MCP-Protocol-Version': version },
    );
    expect((await list.json()).result.tools).toHaveLength(toolNames.length);
  });

  it('answers a request after initialize with an unsupported MCP-Protocol-Version with 400', async () => {
    const response = await postJsonRpc(
      app.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...auth(), 'MCP-Protocol-Version': '1999-01-01' },
    );
    expect(response.status).toBe(400);
  });

  it('answers 401 without credentials, before reading the body, leading to the OAuth metadata', async () => {
    const response = await postJsonRpc(app.url, initialize);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });
});

describe('tool filtering', () => {
  const connect = (query: string) => connectClient(`${app.url}?${query}`, apiKey);
  const groupOf = new Map(
    catalog.flatMap((operation) => (operation.mcpTool ? [[operation.mcpTool, operation.group]] : [])),
  );

  it('narrows tools/list to the tools named in ?tools=', async () => {
    const narrowed = await connect('tools=search_companies_by_keyword,get_profile_details');
    try {
      const { tools } = await narrowed.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['get_profile_details', 'search_companies_by_keyword']);
    } finally {
      await narrowed.close();
    }
  });

  it('narrows tools/list to the groups named in ?toolsets=, together with ?tools=', async () => {
    const narrowed = await connect('toolsets=companies,jobs&tools=get_post');
    try {
      const names = (await narrowed.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        everyToolName.filter(
          (name) => ['companies', 'jobs'].includes(groupOf.get(name) as string) || name === 'get_post',
        ),
      );
      expect(names).toContain('search_jobs');
      expect(names).toContain('get_company_locations');
    } finally {
      await narrowed.close();
    }
  });

  it('serves a family as a toolset of all its groups, while a group keeps its name', async () => {
    const byFamily = await connect('toolsets=emails');
    const byGroup = await connect('toolsets=profiles');
    try {
      const emailGroups = ['emails-disposable', 'emails-smtp'];
      expect((await byFamily.listTools()).tools.map((tool) => tool.name)).toEqual(
        everyToolName.filter((name) => emailGroups.includes(groupOf.get(name) as string)),
      );
      // `profiles` is the group: the profile-activity tools of the profiles family stay out.
      const profileTools = (await byGroup.listTools()).tools.map((tool) => tool.name);
      expect(profileTools).toEqual(everyToolName.filter((name) => groupOf.get(name) === 'profiles'));
      expect(profileTools).not.toContain('get_profile_posts');
    } finally {
      await byFamily.close();
      await byGroup.close();
    }
  });

  it('refuses a call to a tool outside the filter as an unknown tool (-32602), free of charge', async () => {
    const narrowed = await connect('toolsets=jobs');
    const before = (await harness.repositories.ledger.state(accountId)).balance;
    try {
      await expect(
        narrowed.callTool({ name: 'search_service_categories', arguments: {} }),
      ).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool "search_service_categories"'),
      });
      expect((await harness.repositories.ledger.state(accountId)).balance).toBe(before);
    } finally {
      await narrowed.close();
    }
  });

  it.each([
    ['tools=get_profile_details,get_everything', 'tools', ['get_everything']],
    ['toolsets=profiles,everything', 'toolsets', ['everything']],
    ['tools=', 'tools', []],
  ])('answers ?%s with 400 and the valid names', async (query, parameter, unknown) => {
    const response = await postJsonRpc(
      `${app.url}?${query}`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { Authorization: `Bearer ${apiKey}` },
    );
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32602, data: { parameter, unknown } },
    });
    // Toolsets: every group, each family no group is named after (emails: both email groups), the compact mode.
    const valid =
      parameter === 'tools' ? everyToolName : [...new Set(groupOf.values()), 'emails', 'discover'];
    expect(body.error.data.valid).toEqual(valid);
  });

  it('repeats at most 8 unknown names back, each a short printable prefix', async () => {
    const names = Array.from({ length: 20 }, (_, index) => `${'x'.repeat(300)}é${index}`);
    const response = await postJsonRpc(
      `${app.url}?tools=${encodeURIComponent(names.join(','))}`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { Authorization: `Bearer ${apiKey}` },
    );
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.data.unknown).toHaveLength(8);
    for (const name of body.error.data.unknown) expect(name).toMatch(/^x{64}$/);
    expect(body.error.message.length).toBeLessThan(800);
  });
});

it('is mentioned in the OpenAPI document', async () => {
  const document = await (await harness.app.request('/openapi.json')).json();
  expect(document.info.description).toContain('POST /mcp');
});
