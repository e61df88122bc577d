/**
 * The `fetch` oidc-provider uses for Client ID Metadata Documents (a client id that is an HTTPS URL):
 * one guarded request (net/guarded-request.ts), under the same address policy as the website tools'
 * egress guard, so a document URL whose name points at 127.0.0.1 or the cloud metadata service is
 * refused before any byte leaves. HTTPS only, no redirects (oidc-provider asks for
 * `redirect: 'manual'` and refuses anything but 200); oidc-provider bounds the time (2.5 s) and the
 * body (5 KiB) and caches documents.
 *
 * `allowHosts` (UNSAFE_OAUTH_CLIENT_ALLOW_HOSTS) lets a test serve a document on loopback, and `ca`
 * (UNSAFE_OAUTH_CLIENT_CA) trusts that test server's self-signed certificate; both empty in production.
 */
import { Readable } from 'node:stream';
import { guardedRequest } from '../net/guarded-request.js';

export interface ClientMetadataFetchOptions {
  allowHosts: ReadonlySet<string>;
  /** Extra certificate authorities (PEM) to trust, for a test's loopback server. */
  ca?: string;
}

export function guardedClientMetadataFetch(options: ClientMetadataFetchOptions): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const incoming = await guardedRequest(
      url,
      {
        method: 'GET',
        headers: Object.fromEntries(new Headers(init.headers ?? {}).entries()),
        signal: init.signal ?? undefined,
        ca: options.ca,
      },
      { allowHosts: options.allowHosts },
    );
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        headers.append(name, one);
      }
    }
    return new Response(Readable.toWeb(incoming) as ReadableStream, {
      status: incoming.statusCode ?? 502,
      headers,
    });
  };
}
