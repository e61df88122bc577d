/**
 * Discovery outside the protocol: the server card the running app serves, checked against the
 * vendored Server Card v1 schema and against what a real MCP client gets from /mcp (tools/list,
 * the ?toolsets= filter, the 401 challenge, the protocol revisions it negotiates); and the
 * repository's server.json, checked against the registry's 2025-12-11 schema, package.json and
 * the card.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerCard, serverName } from '../../shared/mcp/server-card.js';
import { SERVICE_VERSION } from '../../shared/version.js';
import { type Harness, startHarness } from '../support/harness.js';
import { connectClient, type ListeningApp, listen, postJsonRpc } from '../support/mcp-server.js';

const PUBLIC_BASE_URL = 'https://lookup.example';
/** The default SERVICE_DOMAIN, which the harness leaves as it is: the prefix of the card's `_meta` keys. */
const META_PREFIX = 'lookup-service.invalid';
const CARD_PATHS = ['/.well-known/mcp/server-card.json', '/mcp/server-card'];

const root = join(import.meta.dirname, '..', '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const packageJson = readJson('package.json');
const serverJson = readJson('server.json');

/** The vendored schemas, as schemas/external/README.md records them. */
const vendored = {
  card: {
    file: 'schemas/external/mcp-server-card.schema.json',
    sha256: '2c772b51edb367f154771d84ddbae87ddba00a624422c8e46f218a9ac03bf042',
  },
  registry: {
    file: 'schemas/external/mcp-registry-server.schema.json',
    sha256: '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0',
  },
};

let harness: Harness;
let app: ListeningApp;
let apiKey: string;
let card: ServerCard;

beforeAll(async () => {
  harness = await startHarness({ env: { PUBLIC_BASE_URL } });
  app = await listen(harness);
  ({ apiKey } = await harness.provision({ credits: 10 }));
  card = await (await fetch(`${app.origin}${CARD_PATHS[0]}`)).json();
});

afterAll(async () => {
  await app?.close();
  await harness?.close();
});

const meta = <T>(name: string) => (card._meta as Record<string, unknown>)[`${META_PREFIX}/${name}`] as T;

describe('the server card', () => {
  it.each(CARD_PATHS)(
    'is served at %s without authentication, valid against the Server Card v1 schema',
    async (path) => {
      const response = await fetch(`${app.origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const body = await response.json();
      const ajv = new Ajv2020({ allErrors: true, strict: false });
      addFormats.default(ajv);
      ajv.addSchema(readJson(vendored.card.file), 'server-card.schema.json');
      const validate = ajv.getSchema('server-card.schema.json#/$defs/ServerCard');
      expect(validate?.(body), JSON.stringify(validate?.errors)).toBe(true);
      expect(body).toEqual(card);
    },
  );

  it('lists exactly the tools of the default tools/list, as tools/list shows them', async () => {
    const client = await connectClient(app.url, apiKey);
    const { tools } = await client.listTools();
    await client.close();
    expect(meta<Tool[]>('tools')).toEqual(tools);
    expect(tools.length).toBeGreaterThan(0);
  });

  it('offers each toolset the ?toolsets= filter accepts, with the tools that filter serves', async () => {
    const toolsets = meta<{ name: string; tools: string[] }[]>('toolsets');
    // Between them the toolsets hold every tool, the on-request ones and the compact mode's too (a
    // family's toolset repeats its groups' tools, and the compact mode the account's).
    const offered = [...new Set(toolsets.flatMap((toolset) => toolset.tools))];
    expect(offered).toEqual(expect.arrayContaining(meta<Tool[]>('tools').map((tool) => tool.name)));
    expect(offered).toEqual(expect.arrayContaining(['find_operation', 'run_operation', 'verify_email']));
    expect(toolsets.map((toolset) => toolset.name)).toEqual(expect.arrayContaining(['emails', 'discover']));
    for (const toolset of toolsets) {
      const client = await connectClient(`${app.url}?toolsets=${toolset.name}`, apiKey);
      const { tools } = await client.listTools();
      await client.close();
      expect(
        tools.map((tool) => tool.name),
        toolset.name,
      ).toEqual(toolset.tools);
    }
  });

  it('names the endpoint, the Bearer API key and the OAuth metadata the endpoint itself names', async () => {
    expect(card).toMatchObject({ name: serverName(META_PREFIX), version: SERVICE_VERSION });
    const [remote] = card.remotes;
    expect(remote).toMatchObject({ type: 'streamable-http', url: `${PUBLIC_BASE_URL}/mcp` });
    expect(remote?.headers).toEqual([
      expect.objectContaining({ name: 'Authorization', isSecret: true, value: 'Bearer {api_key}' }),
    ]);

    const challenge = await postJsonRpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(challenge.status).toBe(401);
    const resourceMetadata = /resource_metadata="([^"]+)"/.exec(
      challenge.headers.get('www-authenticate') ?? '',
    )?.[1];
    const oauth2 = meta<{ oauth2: Record<string, unknown> }>('authentication').oauth2;
    expect(oauth2.resourceMetadata).toBe(resourceMetadata);
    const metadata = await (await fetch(`${app.origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(oauth2).toMatchObject({
      authorizationServers: metadata.authorization_servers,
      scopesSupported: metadata.scopes_supported,
    });
    expect(metadata.resource).toBe(remote?.url);
  });

  it('names only 2025 revisions that initialize negotiates, and the 2026-07-28 era', async () => {
    const versions = card.remotes[0]?.supportedProtocolVersions ?? [];
    expect(versions).toContain('2026-07-28');
    const handshakeVersions = versions.filter((version) => version < '2026');
    expect(handshakeVersions).toContain('2025-11-25');
    for (const version of handshakeVersions) {
      const response = await postJsonRpc(
        app.url,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: 'card-test', version: '1' },
          },
        },
        { Authorization: `Bearer ${apiKey}` },
      );
      expect((await response.json()).result?.protocolVersion, version).toBe(version);
    }
  });

  it('answers HEAD and a CORS preflight, revalidates with its ETag, and refuses other methods', async () => {
    const url = `${app.origin}${CARD_PATHS[1]}`;
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const etag = head.headers.get('etag') as string;
    expect(etag).toMatch(/^".+"$/);

    const unchanged = await fetch(url, { headers: { 'If-None-Match': `W/${etag}` } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);

    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: { Origin: 'https://agent.example', 'Access-Control-Request-Headers': 'if-none-match' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('If-None-Match');

    const typed = await fetch(url, { headers: { Accept: 'application/mcp-server-card+json' } });
    expect(typed.headers.get('content-type')).toBe('application/mcp-server-card+json; charset=utf-8');

    for (const method of ['POST', 'PUT', 'DELETE']) {
      const refused = await fetch(url, { method });
      expect(refused.status, method).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET');
      expect((await refused.json()).error.code).toBe('method_not_allowed');
    }
    const unacceptable = await fetch(url, { headers: { Accept: 'text/html' } });
    expect(unacceptable.status).toBe(406);
  });
});

describe('server.json', () => {
  it('is valid against the MCP registry schema of 2025-12-11', () => {
    const schema = readJson(vendored.registry.file);
    expect(serverJson.$schema).toBe(schema.$id);
    expect(schema.$id).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(serverJson), JSON.stringify(validate.errors)).toBe(true);
  });

  it('agrees with package.json and with the card of a deployment of default settings', () => {
    expect(serverJson.name).toBe(`${META_PREFIX.split('.').reverse().join('.')}/${packageJson.name}`);
    expect(serverJson.name).toBe(card.name);
    expect(serverJson.version).toBe(packageJson.version);
    expect(serverJson.version).toBe(card.version);
    expect(serverJson.title).toBe(card.title);
    expect(serverJson.description).toBe(card.description);
    const [remote] = serverJson.remotes;
    expect(remote.type).toBe('streamable-http');
    expect(remote.url.replace('{host}', new URL(PUBLIC_BASE_URL).host)).toBe(card.remotes[0]?.url);
    expect(Object.keys(remote.variables)).toEqual(['host']);
    expect(remote.headers).toEqual(card.remotes[0]?.headers);
  });

  it.each(Object.values(vendored))(
    'keeps $file byte for byte as its source publishes it',
    ({ file, sha256 }) => {
      expect(
        createHash('sha256')
          .update(readFileSync(join(root, file)))
          .digest('hex'),
      ).toBe(sha256);
    },
  );
});
