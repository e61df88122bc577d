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

/** The 64 characters of base64url in ASCII order, so that ids compare as the numbers they encode. */
const SORTABLE_ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
/** Milliseconds since the epoch in 7 characters of 6 bits: enough until the year 2109. */
const TIME_CHARACTERS = 7;
/** 13 random characters of 6 bits each: 78 bits, so ids minted in one millisecond never meet. */
const RANDOM_CHARACTERS = 13;
/**
 * Random bytes drawn from the CSPRNG in blocks, one call per 256 ids rather than one per request
 * (that call was a visible share of a free call's time; the bytes are as random either way).
 */
const RANDOM_POOL_BYTES = RANDOM_CHARACTERS * 256;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

/**
 * We always mint the request id; a client-sent X-Request-Id is ignored. `req_` and 20 base64url
 * characters: the time, then randomness. Ids minted later sort later, so the ledger's index by
 * account and request id grows at its end, and a group commit of many requests rewrites one of its
 * pages instead of one page per request (docs/benchmarks.md).
 */
export function newRequestId(): string {
  let time = '';
  for (let rest = Date.now(), index = 0; index < TIME_CHARACTERS; index += 1, rest = Math.floor(rest / 64))
    time = SORTABLE_ALPHABET[rest % 64] + time;
  if (randomOffset + RANDOM_CHARACTERS > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomOffset = 0;
  }
  let random = '';
  for (let index = 0; index < RANDOM_CHARACTERS; index += 1)
    random += SORTABLE_ALPHABET[(randomPool[randomOffset + index] as number) & 63];
  randomOffset += RANDOM_CHARACTERS;
  return `req_${time}${random}`;
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
