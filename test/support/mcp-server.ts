/**
 * The real service listening on loopback for MCP tests, and SDK clients connected to it over
 * Streamable HTTP: the same client code agents run, against the same app `npm start` serves.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { Harness } from './harness.js';

export interface ListeningApp {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** The /mcp URL. */
  url: string;
  close(): Promise<void>;
}

export async function listen(harness: Harness): Promise<ListeningApp> {
  const server = serve({ fetch: harness.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/mcp`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The protocol revisions /mcp serves, each spoken by its own real client. */
export const ERAS = ['2025-11-25', '2026-07-28'] as const;
export type Era = (typeof ERAS)[number];

/** What the tests ask of a client, in either era (the SDKs' own result types differ only in extras). */
export interface EraClient {
  era: Era;
  listTools(params?: { cursor?: string }): Promise<ListToolsResult>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * A client of the given era: SDK v1's (2025-11-25, `initialize`) or SDK v2's pinned to 2026-07-28
 * (`server/discover`, the `_meta` envelope and the `Mcp-*` headers on every request).
 */
export async function connectEraClient(url: string, token: string | undefined, era: Era): Promise<EraClient> {
  const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
  if (era === '2025-11-25') {
    const client = await connectClient(url, token);
    return {
      era,
      listTools: (params) => client.listTools(params),
      callTool: async (params) => (await client.callTool(params)) as CallToolResult,
      close: () => client.close(),
    };
  }
  const client = new ModernClient(
    { name: 'lookup-service-tests', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: era } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit: headers ? { headers } : {} }));
  return {
    era,
    listTools: async (params) => (await client.listTools(params)) as ListToolsResult,
    callTool: async (params) => (await client.callTool(params)) as CallToolResult,
    close: () => client.close(),
  };
}

/** An initialized SDK client sending `Authorization: Bearer <token>` on every request. */
export async function connectClient(url: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'lookup-service-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST, for what the SDK client would never send. */
export function postJsonRpc(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A body with what every call mints afresh (cursors, request ids) replaced by a marker. */
export function withoutMinted(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) =>
    (key === 'nextCursor' || key === 'requestId') && typeof value === 'string' ? '<minted>' : value,
  );
}
