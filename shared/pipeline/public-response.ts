/**
 * Public responses as plain values (status, headers, body), before any transport: REST writes them
 * as HTTP responses, MCP wraps them in tool results. Error bodies are built here and nowhere else.
 */
import { randomBytes } from 'node:crypto';
import type { ErrorBody } from '../../schemas/errors.js';
import { errorTable } from '../../schemas/errors.js';
import type { ApiError } from '../errors.js';

export interface PublicResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** We always mint the request id; a client-sent X-Request-Id is ignored. */
export function newRequestId(): string {
  return `req_${randomBytes(15).toString('base64url')}`;
}

export function baseHeaders(requestId: string): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'private, no-store',
    'X-Request-Id': requestId,
  };
}

/**
 * `accountHeaders` are the X-RateLimit-* and X-Credits-Remaining values the request learned; they are
 * sent only on the errors whose row in the spec's Errors table lists them.
 */
export function errorResponse(
  error: ApiError,
  requestId: string,
  accountHeaders: Record<string, string> = {},
  billed = false,
): PublicResponse {
  const rule = errorTable[error.code].accountHeaders;
  const withAccountHeaders = rule === 'always' || (rule === 'billed' && billed);
  const body: ErrorBody = {
    error: { code: error.code, message: error.message, retryable: error.retryable, details: error.details },
    meta: { requestId },
  };
  return {
    status: error.status,
    headers: { ...baseHeaders(requestId), ...(withAccountHeaders ? accountHeaders : {}), ...error.headers },
    body,
  };
}
