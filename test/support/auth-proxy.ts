/**
 * A header-adding proxy on loopback, for MCP tools that send no Authorization header of their own
 * (the official conformance runner): it forwards each request to the target with the key added.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthProxy {
  /** The proxy's URL for the target path, e.g. `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

/** Hop-by-hop headers, and the ones fetch sets or undoes itself (it decodes compressed bodies). */
const DROPPED = new Set([
  'host',
  'connection',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'keep-alive',
]);

export async function startAuthProxy(target: string, authorization: string): Promise<AuthProxy> {
  const server = createServer(async (req, res) => {
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (!DROPPED.has(name) && typeof value === 'string') headers.set(name, value);
      }
      headers.set('authorization', authorization);
      const body = await readBody(req);
      const upstream = await fetch(new URL(req.url ?? '/', target), {
        method: req.method,
        headers,
        body: body.length > 0 ? new Uint8Array(body) : undefined,
      });
      const responseHeaders = [...upstream.headers].filter(([name]) => !DROPPED.has(name));
      res.writeHead(upstream.status, Object.fromEntries(responseHeaders));
      res.end(Buffer.from(await upstream.arrayBuffer()));
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(target).pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
