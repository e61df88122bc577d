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

/** A request header's value (repeated fields joined by `, `, as Headers does), or undefined. */
export type HeaderReader = (name: string) => string | undefined;

/** What the protocol checks and the API families read of a request, whichever server received it. */
export interface RequestHead {
  method: string;
  header: HeaderReader;
}

export function checkProtocol({ method, header }: RequestHead): ApiError | undefined {
  if (method !== 'GET') return new MethodNotAllowedError(method);
  if (!acceptsJson(header('accept') ?? null)) return new NotAcceptableError();
  return checkNoBody(header);
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
function checkNoBody(header: HeaderReader): ApiError | undefined {
  const contentType = header('content-type');
  if (contentType !== undefined) {
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return new UnsupportedMediaTypeError(
        `Media type ${mediaType ? quoteInput(mediaType, 64) : '(empty)'} is not supported; send no body.`,
      );
    }
  }
  const length = header('content-length');
  if (header('transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0')) {
    return new UnsupportedMediaTypeError('GET requests take no body; send parameters in the query string.');
  }
  return undefined;
}
