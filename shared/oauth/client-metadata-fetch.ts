/**
 * The `fetch` oidc-provider uses for Client ID Metadata Documents (a client id that is an HTTPS URL):
 * the same address policy as the website tools' egress guard (net/address-policy.ts). The name is
 * resolved once, every answer is classified, and the socket dials the address that was checked, so a
 * document URL whose name points at 127.0.0.1 or the cloud metadata service is refused before any
 * byte leaves. HTTPS only, no redirects (oidc-provider asks for `redirect: 'manual'` and refuses
 * anything but 200); oidc-provider bounds the time (2.5 s) and the body (5 KiB) and caches documents.
 *
 * `allowHosts` (UNSAFE_OAUTH_CLIENT_ALLOW_HOSTS) lets a test serve a document on loopback, and `ca`
 * (UNSAFE_OAUTH_CLIENT_CA) trusts that test server's self-signed certificate; both empty in production.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { classifyDestination, classifyDial } from '../net/address-policy.js';

export interface ClientMetadataFetchOptions {
  allowHosts: ReadonlySet<string>;
  /** Extra certificate authorities (PEM) to trust, for a test's loopback server. */
  ca?: string;
}

export class ClientMetadataDeniedError extends Error {
  constructor(url: string, reason: string) {
    super(`The client metadata document ${url} may not be fetched: ${reason}.`);
    this.name = 'ClientMetadataDeniedError';
  }
}

export function guardedClientMetadataFetch(options: ClientMetadataFetchOptions): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:') throw new ClientMetadataDeniedError(url.href, 'not https');
    const destination = classifyDestination(url, { allowHosts: options.allowHosts });
    if (!destination.allowed) throw new ClientMetadataDeniedError(url.href, destination.reason);
    const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        url,
        {
          method: 'GET',
          headers,
          signal: init.signal ?? undefined,
          lookup: checkedLookup(destination.port, options.allowHosts),
          ...(options.ca ? { ca: options.ca } : {}),
        },
        (incoming) => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
              responseHeaders.append(name, one);
            }
          }
          resolve(
            new Response(Readable.toWeb(incoming) as ReadableStream, {
              status: incoming.statusCode ?? 502,
              headers: responseHeaders,
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  };
}

/** Resolves once and answers only with an address the policy allows, which is the one dialled. */
function checkedLookup(port: number, allowHosts: ReadonlySet<string>): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true }, (error, answers: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const denials: string[] = [];
      for (const answer of answers) {
        const decision = classifyDial(answer.address, port, hostname, allowHosts);
        if (decision.allowed) {
          const family = decision.address.includes(':') ? 6 : 4;
          if (options.all) return callback(null, [{ address: decision.address, family }]);
          return callback(null, decision.address, family);
        }
        denials.push(`${answer.address} (${decision.reason})`);
      }
      callback(
        new ClientMetadataDeniedError(`https://${hostname}`, `it resolves to ${denials.join(', ')}`),
        '',
        0,
      );
    });
  };
}
