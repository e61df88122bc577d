/**
 * Writes a PublicResponse as an HTTP response: a fetch Response for the app, or the parts the API
 * lane writes to node:http itself.
 */
import type { PublicResponse } from '../pipeline/public-response.js';

export function toHttpResponse(response: PublicResponse): Response {
  const { status, headers, body } = render(response);
  const rendered = new Response(body, { status, headers });
  const requestId = response.headers['X-Request-Id'];
  if (requestId !== undefined) requestIds.set(rendered, requestId);
  return rendered;
}

/** What every server writes of a PublicResponse: its status, its headers and Date, its body as JSON. */
export function render(response: PublicResponse): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  return {
    status: response.status,
    headers: { ...response.headers, Date: httpDate() },
    body: JSON.stringify(response.body),
  };
}

/**
 * The X-Request-Id each rendered response carries. The request middleware sets the header on every
 * response; on these it need not, and reading a response's headers turns the Node adaptor's plain
 * header object into a Headers instance, a visible share of a small answer's time.
 */
const requestIds = new WeakMap<Response, string>();

/** True when `response` was rendered here with this X-Request-Id. */
export function carriesRequestId(response: Response, requestId: string): boolean {
  return requestIds.get(response) === requestId;
}

let dateSecond = Number.NaN;
let dateText = '';

/** The Date header's text (whole seconds), formatted once per second rather than per response. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}
