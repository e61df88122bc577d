/**
 * REST protocol checks, in the spec's order of precedence: method (405), Accept (406), declared
 * media type or body (415). They run before authentication and cost nothing.
 */
import Negotiator from 'negotiator';
import {
  type ApiError,
  MethodNotAllowedError,
  NotAcceptableError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { quoteInput } from '../pipeline/public-response.js';

export function checkProtocol(request: Request): ApiError | undefined {
  if (request.method !== 'GET') return new MethodNotAllowedError(request.method);
  if (!acceptsJson(request.headers.get('accept'))) return new NotAcceptableError();
  return checkNoBody(request.headers);
}

/**
 * True when the Accept header is absent, empty, or gives application/json a quality above 0 under
 * RFC 9110's precedence (the most specific matching range decides: `application/json;q=0, *\/*`
 * excludes JSON).
 */
export function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true;
  return new Negotiator({ headers: { accept } }).mediaType(['application/json']) !== undefined;
}

/** A GET may declare `Content-Type: application/json` with no body; anything else is refused. */
function checkNoBody(headers: Headers): ApiError | undefined {
  const contentType = headers.get('content-type');
  if (contentType !== null) {
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return new UnsupportedMediaTypeError(
        `Media type ${mediaType ? quoteInput(mediaType, 64) : '(empty)'} is not supported; send no body.`,
      );
    }
  }
  const length = headers.get('content-length');
  if (headers.has('transfer-encoding') || (length !== null && length.trim() !== '0')) {
    return new UnsupportedMediaTypeError('GET requests take no body; send parameters in the query string.');
  }
  return undefined;
}
