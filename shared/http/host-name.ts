/**
 * One spelling per host name, for comparing a request's Host with configured names: lower case
 * (with IDNA mapping, as URL parsing does), no port, and no trailing dot. `proxy.example.` is the
 * same DNS name as `proxy.example` (the root label made explicit), so a refusal must not miss it.
 */

/** The normal form of a `host[:port]`, or undefined when it is not one. */
export function normalHostName(authority: string): string | undefined {
  const text = authority.trim();
  if (text === '' || !URL.canParse(`http://${text}/`)) return undefined;
  const { hostname, username, password, pathname, search, hash } = new URL(`http://${text}/`);
  if (username || password || pathname !== '/' || search || hash) return undefined;
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}
