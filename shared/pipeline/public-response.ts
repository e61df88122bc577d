/**
 * Public responses as plain values (status, headers, body), before any transport: REST writes them
 * as HTTP responses, MCP wraps them in tool results. Error bodies are built here and nowhere else.
 */
import { randomBytes } from 'node:crypto';
import type { ErrorBody, ErrorDetail } from '../../schemas/errors.js';
import { errorTable, MAX_ERROR_DETAILS } from '../../schemas/errors.js';
import type { ApiError } from '../errors.js';

export interface PublicResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Random bytes per request id (20 base64url characters). */
const REQUEST_ID_BYTES = 15;
/**
 * Ids drawn from the CSPRNG in blocks: one call per 256 ids instead of one per request, which was a
 * visible share of a free call's time (docs/benchmarks.md). The bytes are as random either way.
 */
const REQUEST_IDS_PER_DRAW = 256;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

/** We always mint the request id; a client-sent X-Request-Id is ignored. */
export function newRequestId(): string {
  if (randomOffset + REQUEST_ID_BYTES > randomPool.length) {
    randomPool = randomBytes(REQUEST_ID_BYTES * REQUEST_IDS_PER_DRAW);
    randomOffset = 0;
  }
  const id = randomPool.toString('base64url', randomOffset, randomOffset + REQUEST_ID_BYTES);
  randomOffset += REQUEST_ID_BYTES;
  return `req_${id}`;
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
    error: {
      code: error.code,
      message: boundedMessage(error.message),
      retryable: error.retryable,
      details: error.details.slice(0, MAX_ERROR_DETAILS).map(boundedDetail),
    },
    meta: { requestId },
  };
  return {
    status: error.status,
    headers: { ...baseHeaders(requestId), ...(withAccountHeaders ? accountHeaders : {}), ...error.headers },
    body,
  };
}

/** The spec's bounds on error text: messages 1 to 512 characters, fields 1 to 128 printable ones. */
export const MAX_MESSAGE_LENGTH = 512;
export const MAX_FIELD_LENGTH = 128;

/**
 * A parameter name as a detail's field: printable ASCII only (anything else becomes `?`), at most
 * 128 characters. Names come from requests, so this is the only form in which they are echoed.
 */
export function printableField(name: string): string {
  const printable = name.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_FIELD_LENGTH);
  return printable === '' ? '?' : printable;
}

/**
 * A short, printable quotation of client input for an error message (a header value, a URL): never
 * echo input unbounded, since messages are capped and logs and terminals read them.
 */
export function quoteInput(value: string, maxLength = 80): string {
  return `"${truncate(value.replace(/[^\x20-\x7e]/g, '?'), maxLength)}"`;
}

function boundedMessage(message: string): string {
  const clean = truncate(message.replace(/\p{Cc}/gu, ' '), MAX_MESSAGE_LENGTH);
  return clean.trim() === '' ? 'The request failed.' : clean;
}

function boundedDetail(detail: ErrorDetail): ErrorDetail {
  return { field: printableField(detail.field), code: detail.code, message: boundedMessage(detail.message) };
}

/**
 * Cuts text to at most `max` UTF-16 units (the stricter of the two ways to count), never splitting a
 * code point, and marks the cut with an ellipsis.
 */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = '';
  for (const character of text) {
    if (kept.length + character.length > max - 1) break;
    kept += character;
  }
  return `${kept}…`;
}
