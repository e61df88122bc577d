/**
 * One HTTP request to a URL someone outside the service chose (a Client ID Metadata Document, a
 * batch's webhook), under the address policy of the website tools' egress guard (address-policy.ts).
 * The name is resolved once, every answer is classified and must be allowed, and the socket dials the
 * address that was checked: a URL whose name points at 127.0.0.1 or the cloud metadata service is
 * refused before any byte leaves, and a second resolution (DNS rebinding) cannot send it elsewhere.
 * HTTPS only; plain HTTP only where the caller allows it for allow-listed hosts (a test's loopback
 * receiver). No redirects are followed: the response is handed back as it came, its body unread.
 *
 * `allowHosts` (an UNSAFE_*_ALLOW_HOSTS setting) lets a test reach a server on loopback; empty in
 * production. Refusals are EgressDeniedError with the policy's reason; a name that does not resolve
 * fails with the resolver's own error (its `code`, e.g. ENOTFOUND).
 */
import { lookup } from 'node:dns/promises';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyDestination, classifyDial, isAllowListed } from './address-policy.js';
import { nodeHttp } from './node-http.js';

/** A name's addresses, from one resolution. */
export type ResolveName = (hostname: string) => Promise<string[]>;

/** The system's resolver (getaddrinfo: the hosts file, then DNS): every answer it gives. */
export const systemResolve: ResolveName = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((answer) => answer.address);

/** How a refusal says that a URL's host name does not exist, after "The … URL". */
export const UNRESOLVED_NAME = 'names a host that does not resolve';

/** Whether a request failed because its host name does not exist (the resolver's ENOTFOUND or ENODATA). */
export function isUnresolvedName(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOTFOUND' || code === 'ENODATA';
}

export class EgressDeniedError extends Error {
  constructor(
    readonly url: string,
    /** The policy's reason (`loopback`, `scheme`, …), or which answers of the name were refused. */
    readonly reason: string,
  ) {
    super(`${url} may not be requested: ${reason}.`);
    this.name = 'EgressDeniedError';
  }
}

export interface EgressOptions {
  /** Exact `host:port` pairs from `parseAllowHosts`; empty in production. */
  allowHosts: ReadonlySet<string>;
  /** Lets `http:` URLs through when their host:port is in `allowHosts`; otherwise HTTPS only. */
  httpForAllowedHosts?: boolean;
  /** Default: the system's resolver. */
  resolve?: ResolveName;
}

/** Where a URL may be dialled: the address that was checked, and the port. */
export interface CheckedDestination {
  address: string;
  port: number;
}

/**
 * Decides where `url` may be dialled: scheme, credentials, port and literal address by the policy,
 * then, for a name, every answer of one resolution. Throws EgressDeniedError on a refusal.
 */
export async function checkDestination(url: URL, options: EgressOptions): Promise<CheckedDestination> {
  const plainHttp = url.protocol === 'http:' && options.httpForAllowedHosts;
  if (url.protocol !== 'https:' && !(plainHttp && isAllowListed(url, options.allowHosts)))
    throw new EgressDeniedError(url.href, 'not https');
  const destination = classifyDestination(url, { allowHosts: options.allowHosts });
  if (!destination.allowed) throw new EgressDeniedError(url.href, destination.reason);
  if (destination.literal) return { address: destination.host, port: destination.port };
  const answers = await (options.resolve ?? systemResolve)(destination.host);
  if (answers.length === 0) throw new EgressDeniedError(url.href, 'the name has no address');
  const decisions = answers.map((answer) =>
    classifyDial(answer, destination.port, destination.host, options.allowHosts),
  );
  const denials = decisions.flatMap((decision) =>
    decision.allowed ? [] : [`${decision.address} (${decision.reason})`],
  );
  // One refused answer refuses the name: which answer a client dials is the resolver's choice.
  if (denials.length > 0) throw new EgressDeniedError(url.href, `it resolves to ${denials.join(', ')}`);
  return { address: (decisions[0] as { address: string }).address, port: destination.port };
}

export interface GuardedRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request (connecting, sending, or waiting for the response's headers). */
  signal?: AbortSignal;
  /** Extra certificate authorities (PEM) to trust, for a test's loopback HTTPS server. */
  ca?: string;
}

/**
 * Sends one request to the checked address of `url`; answers the response once its headers arrive,
 * body unread (the caller reads or discards it, within its own bounds).
 */
export async function guardedRequest(
  url: URL,
  init: GuardedRequestInit,
  options: EgressOptions,
): Promise<IncomingMessage> {
  const { address } = await checkDestination(url, options);
  init.signal?.throwIfAborted();
  const requestOptions: RequestOptions & { ca?: string } = {
    method: init.method,
    headers: init.headers,
    signal: init.signal,
    // A fresh connection per request: a pooled one might have been dialled for another check.
    agent: false,
    lookup: checkedLookup(address),
    ...(init.ca ? { ca: init.ca } : {}),
  };
  const send = url.protocol === 'https:' ? httpsRequest : nodeHttp.request;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = send(url, requestOptions, resolve);
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** Answers every lookup with the address that was checked: the socket can dial nothing else. */
function checkedLookup(address: string): LookupFunction {
  const family = address.includes(':') ? 6 : 4;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
