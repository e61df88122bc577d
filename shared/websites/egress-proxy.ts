/**
 * The SSRF boundary of the website tools: a forward proxy on 127.0.0.1 that every byte Chromium sends
 * goes through (browser.ts points `--proxy-server` at it). It decides each destination with the one
 * address policy (`shared/net/address-policy.ts`) and then connects itself; Chromium never dials a
 * target and never resolves a name.
 *
 * Why the proxy is the boundary and not request interception: measured with Chromium 153 (FIELD-NOTES
 * "Headless Chromium and SSRF"), Puppeteer's interception misses WebSockets and worker/service-worker
 * traffic and has redirect quirks, while `--proxy-server` with `--proxy-bypass-list=<-loopback>` and the
 * host-resolver rules send every HTTP request, CONNECT tunnel (TLS, WebSocket) and page-script socket
 * here. A check that sees all traffic can be the boundary; one that sees most of it is a second layer.
 *
 * Why resolve once and dial the checked address: checking a name and then letting anyone resolve it
 * again is a DNS rebinding hole (answer a public address to the check, 127.0.0.1 to the connect; the
 * same design as Stripe's smokescreen). Here a name is resolved exactly once per request, EVERY answer is
 * classified with `classifyDial`, and the socket is opened to the normalized address the classifier
 * returned: no second resolution exists to rebind. A name whose answers mix public and non-public
 * addresses is refused as a whole (reason of the first non-public answer): that is either a rebinding
 * attempt or a misconfigured zone, and picking "the good one" would let the zone choose per request.
 *
 * Rules per request (CONNECT host:port, absolute-form `GET http://host/...`, and plain-HTTP Upgrade):
 * - absolute-form requests must be `http:` (TLS goes through CONNECT; anything else is `scheme`);
 * - the target is judged by `classifyDestination` (CONNECT as `http:` for port 80, else `https:`): only
 *   ports 80 and 443 unless the exact `host:port` is in allowHosts (tests only), never `localhost` or
 *   `*.localhost`, no credentials, and an IP literal must be global unicast;
 * - names are resolved with the injectable resolver (default: `node:dns/promises` resolve4 + resolve6
 *   against the configured DNS servers; never `dns.lookup`, so /etc/hosts cannot map a name to loopback);
 * - denied → 403 with a short text body (400 for a malformed target; Chromium turns a refused CONNECT
 *   into a tunnel failure) and an `x-egress-denied` header carrying a random denial id, one
 *   `egress denied` warning with the reason, and an entry in `denials`. The id lets the browser layer tell the proxy's own 403 from a target's 403 (a target cannot
 *   guess it, and the header is stripped from forwarded responses anyway);
 * - resolution or connection failures → 502 (504 when they time out); they are failures, not denials.
 *   Each is recorded in `failures`, named as Chromium names its own network errors
 *   (`ERR_NAME_NOT_RESOLVED`…), and its answer carries the record's random id in an `x-egress-failed`
 *   header: over plain HTTP Chromium takes the proxy's answer for the page's, and over HTTPS it
 *   reports any refused CONNECT as a tunnel failure; either way the browser layer finds the record
 *   and reports the failure it was, not a site that "answered HTTP 502".
 *
 * Plain HTTP is forwarded on a fresh upstream connection per request (`Connection: close`), so an
 * upstream socket never outlives the decision made for it. Hop-by-hop headers (RFC 9110 §7.6.1, plus
 * Proxy-Connection/Proxy-Authorization and every header `Connection` names) are removed both ways.
 * Header sizes are node:http's limits (16 KiB, 431 beyond); `maxRequests` optionally caps the requests
 * one proxy serves.
 * Client resets and upstream errors are handled on every socket: nothing here may crash the process.
 */
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.js';
import { classifyDestination, classifyDial, type DestinationDenyReason } from '../net/address-policy.js';
import { nodeHttp as http } from '../net/node-http.js';
import type { Metrics } from '../observability/metrics.js';

/** Why the proxy refused a request; every value is logged and recorded in `denials`. */
export type EgressDenyReason =
  | DestinationDenyReason
  /** Not a request a forward proxy serves: origin-form, a malformed authority, a non-absolute URL. */
  | 'invalid_target'
  /** `maxRequests` already served. */
  | 'request_limit';

export interface EgressDenial {
  /** Random id, also sent in the `x-egress-denied` header of the 403. */
  readonly id: string;
  /** The host as requested (a name, or a normalized address without brackets). */
  readonly host: string;
  readonly port: number;
  readonly reason: EgressDenyReason;
  /** The resolved answer that was refused, when the refusal came from DNS answers. */
  readonly address?: string;
}

export interface EgressProxyOptions {
  /** Exact `host:port` pairs (parseAllowHosts) that bypass the address and port rules; empty in production. */
  readonly allowHosts: ReadonlySet<string>;
  readonly logger: Logger;
  /** Counts each denial (EgressDenied, by reason); none by default. */
  readonly metrics?: Metrics;
  /**
   * Resolves a name to its addresses, once per request (test seam). Default: resolve4 + resolve6 of
   * node:dns/promises. An empty answer or a rejection is answered 502.
   */
  readonly resolve?: (host: string) => Promise<string[]>;
  /**
   * Opens the upstream socket to an already-checked address (test seam). Default: `net.connect` to that
   * address, with a lookup function that refuses, so no name resolution can happen at connect time.
   */
  readonly dial?: (address: string, port: number) => net.Socket | Promise<net.Socket>;
  /** Requests this proxy serves before answering 403 `request_limit`; unlimited by default. */
  readonly maxRequests?: number;
}

/** How the proxy failed to reach a target, in the words of Chromium's own network errors. */
export type EgressFailureName =
  | 'ERR_NAME_NOT_RESOLVED'
  | 'ERR_NAME_RESOLUTION_FAILED'
  | 'ERR_CONNECTION_FAILED'
  | 'ERR_CONNECTION_TIMED_OUT'
  | 'ERR_EMPTY_RESPONSE';

export interface EgressFailure {
  /** Random id, also sent in the `x-egress-failed` header of the 502 or 504. */
  readonly id: string;
  /** The host as requested (a name, or a normalized address without brackets). */
  readonly host: string;
  readonly port: number;
  readonly failure: EgressFailureName;
}

export interface EgressProxy {
  readonly port: number;
  /** `http://127.0.0.1:PORT`, the value for Chromium's `--proxy-server`. */
  readonly url: string;
  /** The most recent denials (at most 256), oldest first. */
  readonly denials: readonly EgressDenial[];
  /** The most recent failures to reach a target (at most 256), oldest first. */
  readonly failures: readonly EgressFailure[];
  /** Stops listening and destroys every client and upstream socket. */
  close(): Promise<void>;
}

/** Header on the proxy's own 403 answers; its value is the id of an entry in `denials`. */
export const EGRESS_DENIAL_HEADER = 'x-egress-denied';
/** Header on the proxy's own 502 and 504 answers; its value is the id of an entry in `failures`. */
export const EGRESS_FAILURE_HEADER = 'x-egress-failed';

const RESOLVE_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** A tunnel or a forwarded exchange with no traffic this long is torn down. */
const IDLE_TIMEOUT_MS = 60_000;
/** Denials and failures each: the browser layer looks up only those of the navigation in progress. */
const MAX_RECORDS_KEPT = 256;

/** The proxy's own headers: never forwarded from a target, so a target cannot pass for the proxy. */
const PROXY_HEADERS = new Set([EGRESS_DENIAL_HEADER, EGRESS_FAILURE_HEADER]);

// RFC 9110 §7.6.1 hop-by-hop fields, plus the proxy-only ones clients and servers still send.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

// The host of a CONNECT authority: a bracketed IPv6 literal or a run of characters that cannot smuggle a
// path, userinfo, query, space or a second port into the URL built from it.
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[^\s/\\?#@[\]:]+):(\d{1,5})$/;

/** `forward`: absolute-form HTTP, which must be `http:` (TLS goes through CONNECT). */
type Target = { url: URL; via: 'connect' | 'forward' } | { invalid: string; host: string; port: number };

/** A refusal or failure that ends one request; `deny` refusals are recorded as denials. */
class Stop extends Error {
  constructor(
    readonly status: 400 | 403 | 502 | 504,
    message: string,
    readonly record?: { denial: EgressDenial } | { failure: EgressFailure },
  ) {
    super(message);
  }
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const { allowHosts, logger, maxRequests } = options;
  const resolve = options.resolve ?? createDnsResolve();
  const dial = options.dial ?? dialAddress;
  const denials: EgressDenial[] = [];
  const failures: EgressFailure[] = [];
  const sockets = new Set<Duplex>();
  let served = 0;

  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A reset client or upstream must never become an uncaught 'error'.
    socket.on('error', () => socket.destroy());
  };

  const deny = (host: string, port: number, reason: EgressDenyReason, address?: string): Stop => {
    const denial: EgressDenial = {
      id: randomBytes(12).toString('base64url'),
      host,
      port,
      reason,
      ...(address === undefined ? {} : { address }),
    };
    keep(denials, denial);
    logger.warn({ host, port, reason, ...(address === undefined ? {} : { address }) }, 'egress denied');
    options.metrics?.count('EgressDenied', 1, { Reason: reason });
    return new Stop(reason === 'invalid_target' ? 400 : 403, `Egress denied: ${reason}`, { denial });
  };

  /** The proxy could not reach the target: 504 when it gave up waiting, 502 otherwise. */
  const fail = (host: string, port: number, name: EgressFailureName, message: string, timedOut = false) => {
    const failure: EgressFailure = { id: randomBytes(12).toString('base64url'), host, port, failure: name };
    keep(failures, failure);
    return new Stop(timedOut ? 504 : 502, message, { failure });
  };

  /** Decides one target and returns a connected upstream socket to the address that was checked. */
  const admit = async (target: Target): Promise<net.Socket> => {
    served += 1;
    if ('invalid' in target) throw deny(target.host, target.port, 'invalid_target');
    const requestedHost = bare(target.url.hostname);
    const requestedPort = portOf(target.url);
    if (maxRequests !== undefined && served > maxRequests) {
      throw deny(requestedHost, requestedPort, 'request_limit');
    }
    if (target.via === 'forward' && target.url.protocol !== 'http:') {
      throw deny(requestedHost, requestedPort, 'scheme');
    }
    const decision = classifyDestination(target.url, { allowHosts });
    if (!decision.allowed) throw deny(decision.host, requestedPort, decision.reason);
    const { host, port } = decision;

    let addresses: string[];
    if (decision.literal) {
      addresses = [host];
    } else {
      let answers: string[];
      try {
        answers = await withTimeout(resolve(host), RESOLVE_TIMEOUT_MS, 'resolution timed out');
      } catch (error) {
        logger.info({ host, port, err: error }, 'egress resolution failed');
        throw error instanceof TimeoutError
          ? fail(host, port, 'ERR_NAME_RESOLUTION_FAILED', 'Name resolution timed out', true)
          : fail(host, port, 'ERR_NAME_NOT_RESOLVED', 'Name resolution failed');
      }
      if (answers.length === 0) {
        logger.info({ host, port }, 'egress resolution returned no address');
        throw fail(host, port, 'ERR_NAME_NOT_RESOLVED', 'Name resolution failed');
      }
      addresses = [];
      for (const answer of answers) {
        const verdict = classifyDial(answer, port, host, allowHosts);
        if (!verdict.allowed) throw deny(host, port, verdict.reason, verdict.address);
        if (!addresses.includes(verdict.address)) addresses.push(verdict.address);
      }
    }

    let lastError: unknown;
    for (const address of addresses) {
      try {
        const socket = await connectChecked(dial, address, port);
        track(socket);
        return socket;
      } catch (error) {
        lastError = error;
        logger.info({ host, port, address, err: error }, 'egress connect failed');
      }
    }
    throw lastError instanceof TimeoutError
      ? fail(host, port, 'ERR_CONNECTION_TIMED_OUT', 'Upstream connection timed out', true)
      : fail(host, port, 'ERR_CONNECTION_FAILED', 'Upstream connection failed');
  };

  const server = http.createServer({
    // Node's defaults for header size (16 KiB) and header/request timeouts apply; keep them explicit.
    maxHeaderSize: 16_384,
    headersTimeout: 10_000,
    requestTimeout: 30_000,
  });
  server.on('connection', track);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });

  /**
   * Admits a target and hands the socket dialled to its checked address to `relay`. A refusal is
   * answered by `refuse`; a client that left while the target was being admitted gets nothing.
   */
  const relayAdmitted = async (
    target: Target,
    handlers: { refuse(stop: Stop): void; gone(): boolean; relay(upstream: net.Socket, url: URL): void },
  ): Promise<void> => {
    let upstream: net.Socket;
    try {
      upstream = await admit(target);
    } catch (error) {
      handlers.refuse(
        error instanceof Stop
          ? error
          : fail(
              targetHost(target),
              targetPort(target),
              'ERR_CONNECTION_FAILED',
              'Upstream connection failed',
            ),
      );
      return;
    }
    if (handlers.gone() || 'invalid' in target) {
      upstream.destroy();
      return;
    }
    handlers.relay(upstream, target.url);
  };

  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    void relayAdmitted(connectTarget(req.url ?? ''), {
      refuse: (stop) => endRaw(client, stop),
      gone: () => client.destroyed,
      relay: (upstream) => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        splice(client, upstream);
      },
    });
  });

  server.on('upgrade', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    void relayAdmitted(absoluteTarget(req.url ?? ''), {
      refuse: (stop) => endRaw(client, stop),
      gone: () => client.destroyed,
      relay: (upstream, url) => {
        // Relay the handshake as the origin-form request it becomes; the reply and frames pass through raw.
        const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
        for (const [name, value] of forwardedRequestHeaders(req, url, true)) lines.push(`${name}: ${value}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        splice(client, upstream);
      },
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    req.on('error', () => res.destroy());
    res.on('error', () => req.destroy());
    void relayAdmitted(absoluteTarget(req.url ?? ''), {
      refuse: (stop) => endResponse(res, stop),
      gone: () => res.destroyed,
      relay: (upstream, url) => {
        const outgoing = http.request({
          createConnection: () => upstream,
          method: req.method ?? 'GET',
          path: `${url.pathname}${url.search}`,
          headers: forwardedRequestHeaders(req, url, false).flat(),
          setHost: false,
        });
        outgoing.setTimeout(IDLE_TIMEOUT_MS, () => outgoing.destroy(new TimeoutError('upstream idle')));
        outgoing.on('error', (error) => {
          logger.info({ host: url.hostname, err: error }, 'egress upstream exchange failed');
          // endResponse destroys a response whose head the target's answer has already sent.
          endResponse(
            res,
            fail(bare(url.hostname), portOf(url), 'ERR_EMPTY_RESPONSE', 'Upstream exchange failed'),
          );
        });
        outgoing.on('response', (incoming) => {
          incoming.on('error', () => res.destroy());
          res.writeHead(
            incoming.statusCode ?? 502,
            incoming.statusMessage,
            forwardedResponseHeaders(incoming),
          );
          incoming.pipe(res);
        });
        res.on('close', () => {
          if (!res.writableFinished) outgoing.destroy();
        });
        req.pipe(outgoing);
      },
    });
  });

  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
  server.on('error', (error) => logger.error({ err: error }, 'egress proxy server error'));
  const { port } = server.address() as net.AddressInfo;

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    denials,
    failures,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      }),
  };
}

/** The default resolver: A and AAAA answers from DNS servers (not the hosts file), a missing family is empty. */
function createDnsResolve(): (host: string) => Promise<string[]> {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  const empty = new Set(['ENODATA', 'ENOTFOUND']);
  return async (host) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const answers: string[] = [];
    for (const outcome of [v4, v6]) {
      if (outcome.status === 'fulfilled') answers.push(...outcome.value);
      else if (!empty.has((outcome.reason as NodeJS.ErrnoException).code ?? '')) throw outcome.reason;
    }
    return answers;
  };
}

/** Dials an address (never a name): a lookup that refuses makes a second resolution impossible. */
function dialAddress(address: string, port: number): net.Socket {
  return net.connect({
    host: address,
    port,
    lookup: (hostname, _options, callback) => {
      callback(new Error(`refusing to resolve ${hostname} at connect time`), '', 4);
    },
  });
}

class TimeoutError extends Error {}

/** Waits until the dialled socket is connected; destroys it on failure or timeout. */
async function connectChecked(
  dial: (address: string, port: number) => net.Socket | Promise<net.Socket>,
  address: string,
  port: number,
): Promise<net.Socket> {
  const socket = await withTimeout(
    Promise.resolve().then(() => dial(address, port)),
    CONNECT_TIMEOUT_MS,
    'connect timed out',
  );
  if (!socket.connecting && !socket.destroyed) return socket;
  return new Promise<net.Socket>((done, fail) => {
    const timer = setTimeout(() => finish(new TimeoutError('connect timed out')), CONNECT_TIMEOUT_MS);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.off('connect', onConnect);
      socket.off('error', finish);
      socket.off('close', onClose);
      if (error) {
        socket.destroy();
        fail(error);
      } else {
        done(socket);
      }
    };
    const onConnect = () => finish();
    const onClose = () => finish(new Error('socket closed before connecting'));
    socket.once('connect', onConnect);
    socket.once('error', finish);
    socket.once('close', onClose);
    if (socket.destroyed) onClose();
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new TimeoutError(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** `CONNECT host:port`, judged as the URL a browser would have used for that port. */
function connectTarget(authority: string): Target {
  const match = AUTHORITY.exec(authority);
  const port = Number(match?.[2] ?? 0);
  if (!match || port < 1 || port > 65_535) return { invalid: authority, host: authority.slice(0, 255), port };
  try {
    return { url: new URL(`${port === 80 ? 'http' : 'https'}://${authority}/`), via: 'connect' };
  } catch {
    return { invalid: authority, host: bare(match[1] ?? ''), port };
  }
}

/** Absolute-form `scheme://host[:port]/path` (admit refuses every scheme but http:); origin-form is invalid. */
function absoluteTarget(requestTarget: string): Target {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(requestTarget)) {
    return { invalid: requestTarget, host: requestTarget.slice(0, 255), port: 0 };
  }
  try {
    return { url: new URL(requestTarget), via: 'forward' };
  } catch {
    return { invalid: requestTarget, host: requestTarget.slice(0, 255), port: 0 };
  }
}

function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : 0;
}

/** Headers named by `Connection` are hop-by-hop too. */
function connectionTokens(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

function forwardedRequestHeaders(req: IncomingMessage, url: URL, upgrade: boolean): [string, string][] {
  const dropped = connectionTokens(req.headers.connection);
  const headers: [string, string][] = [['Host', url.host]];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (lower === 'host' || HOP_BY_HOP.has(lower) || dropped.has(lower)) continue;
    headers.push([name, raw[i + 1] as string]);
  }
  if (upgrade) {
    headers.push(['Connection', 'Upgrade'], ['Upgrade', req.headers.upgrade ?? 'websocket']);
  } else {
    headers.push(['Connection', 'close']);
  }
  return headers;
}

function forwardedResponseHeaders(incoming: IncomingMessage): OutgoingHttpHeaders {
  const dropped = connectionTokens(incoming.headers.connection);
  // Header names come from the target: collected in a Map, so `constructor` is a header like any other.
  const headers = new Map<string, string[]>();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || dropped.has(lower) || PROXY_HEADERS.has(lower)) continue;
    headers.set(lower, [...(headers.get(lower) ?? []), raw[i + 1] as string]);
  }
  return Object.fromEntries(headers);
}

const targetHost = (target: Target) => ('invalid' in target ? target.host : bare(target.url.hostname));
const targetPort = (target: Target) => ('invalid' in target ? target.port : portOf(target.url));

/** Adds a denial or failure to its list, keeping the most recent MAX_RECORDS_KEPT. */
function keep<T>(records: T[], record: T): void {
  records.push(record);
  if (records.length > MAX_RECORDS_KEPT) records.splice(0, records.length - MAX_RECORDS_KEPT);
}

/** What tells the proxy's own answer apart from a target's: the id of its denial or failure. */
function stopHeaders({ record }: Stop): Record<string, string> {
  if (record === undefined) return {};
  return 'denial' in record
    ? { [EGRESS_DENIAL_HEADER]: record.denial.id }
    : { [EGRESS_FAILURE_HEADER]: record.failure.id };
}

const STATUS_TEXT: Record<Stop['status'], string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

/** Answers a CONNECT or Upgrade on the raw socket and closes it. */
function endRaw(client: Duplex, stop: Stop): void {
  if (client.destroyed) return;
  const body = `${stop.message}\n`;
  const head = [
    `HTTP/1.1 ${stop.status} ${STATUS_TEXT[stop.status]}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(stopHeaders(stop)).map(([name, value]) => `${name}: ${value}`),
  ];
  client.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

function endResponse(res: ServerResponse, stop: Stop): void {
  if (res.destroyed || res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${stop.message}\n`;
  res.writeHead(stop.status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
    ...stopHeaders(stop),
  });
  res.end(body);
}

/** Pipes a tunnel both ways; either side closing, failing or idling tears down both. */
function splice(client: Duplex, upstream: net.Socket): void {
  const teardown = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const socket of [client, upstream]) {
    socket.on('error', teardown);
    socket.on('close', teardown);
  }
  upstream.setTimeout(IDLE_TIMEOUT_MS, teardown);
  upstream.setNoDelay(true);
  client.pipe(upstream);
  upstream.pipe(client);
}
