/**
 * The real service listening on loopback for MCP tests, and SDK clients connected to it over
 * Streamable HTTP: the same client code agents run, against the same app `npm start` serves.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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
