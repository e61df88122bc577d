/**
 * REST protocol checks, in the spec's order of precedence: method (405), Accept (406), declared
 * media type or body (415). They run before authentication and cost nothing.
 */
import {
  type ApiError,
  MethodNotAllowedError,
  NotAcceptableError,
  UnsupportedMediaTypeError,
} from '../errors.js';

export function checkProtocol(request: Request): ApiError | undefined {
  if (request.method !== 'GET') return new MethodNotAllowedError(request.method);
  if (!acceptsJson(request.headers.get('accept'))) return new NotAcceptableError();
  return checkNoBody(request.headers);
}

/** True when the Accept header is absent or lists a range covering application/json with q > 0. */
export function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [mediaRange = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    if (quality !== undefined && !(Number(quality.slice(2)) > 0)) return false;
    return mediaRange === 'application/json' || mediaRange === 'application/*' || mediaRange === '*/*';
  });
}

/** A GET may declare `Content-Type: application/json` with no body; anything else is refused. */
function checkNoBody(headers: Headers): ApiError | undefined {
  const contentType = headers.get('content-type');
  if (contentType !== null) {
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return new UnsupportedMediaTypeError(
        `Media type ${mediaType || '(empty)'} is not supported; send no body.`,
      );
    }
  }
  const length = headers.get('content-length');
  if (headers.has('transfer-encoding') || (length !== null && length.trim() !== '0')) {
    return new UnsupportedMediaTypeError('GET requests take no body; send parameters in the query string.');
  }
  return undefined;
}
