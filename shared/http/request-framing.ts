/**
 * Checks of an HTTP/1.1 request's head that only its raw header lines can answer, made before the
 * request becomes a Fetch Request: the Host header as sent (Node keeps only the first of several,
 * and Hono's Node adaptor builds the request URL from it) and how the body is framed. On AWS the
 * platform makes them: API Gateway routes by Host and the URL comes from the event's domain name.
 */
import { InvalidRequestError } from '../errors.js';
import { quoteInput } from '../pipeline/public-response.js';

/** RFC 3986 `host [ ":" port ]`: an IP literal in brackets or a reg-name without percent-encoding. */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::[0-9]{1,5})?$/;

/** Nearly every request names the same host: the last one found valid is not parsed again. */
let lastValidHost: string | undefined;

/**
 * The refusal of a request whose Host or framing is unusable, or undefined. `rawHeaders` is Node's
 * flat list of names and values as received.
 */
export function checkRequestHead(rawHeaders: readonly string[]): InvalidRequestError | undefined {
  const hosts = valuesOf(rawHeaders, 'host');
  const [host] = hosts;
  if (host === undefined) {
    return new InvalidRequestError(
      [],
      'The request has no Host header; send Host with the host name (and port) of the service.',
    );
  }
  if (hosts.length > 1) {
    return new InvalidRequestError(
      [],
      `The request has ${hosts.length} Host headers; send exactly one, naming the host (and port) of the service.`,
    );
  }
  if (host !== lastValidHost) {
    if (!isValidAuthority(host.trim())) {
      return new InvalidRequestError(
        [],
        `The Host header ${quoteInput(host, 64)} is not a valid host name; send the host name (and port) of the service.`,
      );
    }
    lastValidHost = host;
  }
  const codings = valuesOf(rawHeaders, 'transfer-encoding').flatMap((value) => value.split(','));
  const last = codings.at(-1)?.trim().toLowerCase();
  // RFC 9112 § 6.3: a request whose last transfer coding is not chunked has no knowable length;
  // the server must answer 400 and close.
  if (last !== undefined && last !== 'chunked') {
    return new InvalidRequestError(
      [],
      `Transfer-Encoding ${quoteInput(last, 32)} cannot frame a request body; send no body (GET requests take none).`,
    );
  }
  return undefined;
}

/** True for a Host value WHATWG URL parsing accepts as it stands (no user info, path or IDNA failure). */
export function isValidAuthority(host: string): boolean {
  return AUTHORITY.test(host) && URL.canParse(`http://${host}/`);
}

function valuesOf(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === name) values.push(rawHeaders[index + 1] as string);
  }
  return values;
}
