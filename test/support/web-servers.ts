/**
 * HTTP servers on loopback for the website tests: a site with routes (the allowed target, reached
 * through UNSAFE_WEBSITE_ALLOW_HOSTS-style `127.0.0.1:PORT` pairs) and a trap that counts every TCP
 * connection, request and WebSocket upgrade that reaches it. Each server answers WebSocket upgrades with
 * a 101 and one text frame, so a page can prove that a WebSocket to an allowed host works.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export type Route = string | ((req: IncomingMessage, res: ServerResponse) => void);

export interface WebServerOptions {
  /** Path (without query) → HTML body, or a handler. Anything else is answered 404. */
  readonly routes?: Readonly<Record<string, Route>>;
  /** Loopback only: 127.0.0.1 (default) or ::1. */
  readonly host?: '127.0.0.1' | '::1';
  /** A fixed port (to listen on ::1 at the port a 127.0.0.1 server already has); 0 by default. */
  readonly port?: number;
  /** The text frame sent after a WebSocket handshake. */
  readonly websocketGreeting?: string;
}

export interface WebServer {
  readonly port: number;
  /** `http://127.0.0.1:PORT` (or `http://[::1]:PORT`). */
  readonly origin: string;
  /** The allow-hosts pair for this server, e.g. `127.0.0.1:PORT`. */
  readonly hostPort: string;
  /** Every accepted TCP connection, whatever came of it. */
  readonly counts: { connections: number; requests: number; upgrades: number };
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export async function startWebServer(options: WebServerOptions = {}): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  const routes = options.routes ?? {};
  const counts = { connections: 0, requests: 0, upgrades: 0 };
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket | Duplex>();

  const server = createServer((req, res) => {
    counts.requests += 1;
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = routes[path];
    if (typeof route === 'function') return route(req, res);
    if (typeof route === 'string') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(route);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  });
  server.on('connection', (socket) => {
    counts.connections += 1;
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    counts.upgrades += 1;
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const key = req.headers['sec-websocket-key'];
    if (typeof key !== 'string') {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const accept = createHash('sha1')
      .update(key + WEBSOCKET_GUID)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    const text = Buffer.from(options.websocketGreeting ?? 'hello', 'utf8');
    // One unmasked text frame (payload < 126 bytes), as a server sends it.
    socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostText = host === '::1' ? '[::1]' : host;
  return {
    port,
    origin: `http://${hostText}:${port}`,
    hostPort: `${hostText}:${port}`,
    counts,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Reads a stream until the end of an HTTP response head; bounded by `timeoutMs`. */
export function readResponseHead(
  socket: Duplex,
  timeoutMs = 5_000,
): Promise<{ status: number; headers: Record<string, string>; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error('no response head within the time limit')), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      finish(undefined, {
        status: Number(statusLine.split(' ')[1]),
        headers,
        rest: buffered.subarray(end + 4),
      });
    };
    const onEnd = () => finish(new Error(`connection closed before a response head: ${buffered.toString()}`));
    const finish = (
      error?: Error,
      value?: { status: number; headers: Record<string, string>; rest: Buffer },
    ) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.off('error', finish);
      if (error) reject(error);
      else if (value) resolve(value);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
    socket.once('error', finish);
  });
}
