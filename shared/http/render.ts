/**
 * Writes a PublicResponse as an HTTP response.
 */
import type { PublicResponse } from '../pipeline/public-response.js';

export function toHttpResponse(response: PublicResponse): Response {
  return new Response(JSON.stringify(response.body), {
    status: response.status,
    headers: { ...response.headers, Date: new Date().toUTCString() },
  });
}
