/**
 * One error hierarchy for every transport. Each class carries the public code, HTTP status,
 * whether the client may retry, and whether a debit made for the request is refunded. Transports
 * never build error bodies themselves: they render these through `pipeline/public-response.ts`.
 */
import {
  type DetailCode,
  type ErrorCode,
  type ErrorDetail,
  errorTable,
  MAX_ERROR_DETAILS,
} from '../schemas/errors.js';
import { StoredRecordError } from './store/records/stored-record.js';

export interface ApiErrorOptions {
  message: string;
  retryable?: boolean;
  /** Refund the debit when this error ends an admitted, billed request. */
  refund?: boolean;
  details?: ErrorDetail[];
  /** Headers this error adds on top of the request's own (Retry-After, Allow). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly refund: boolean;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: ApiErrorOptions) {
    super(options.message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = errorTable[code].status;
    this.retryable = options.retryable ?? false;
    this.refund = options.refund ?? true;
    this.details = (options.details ?? []).slice(0, MAX_ERROR_DETAILS);
    this.headers = options.headers ?? {};
  }

  /** The same error with another retry verdict, e.g. when credit settlement is uncertain. */
  withRetryable(retryable: boolean, message = this.message): ApiError {
    return new ApiError(this.code, {
      message,
      retryable,
      refund: this.refund,
      details: this.details,
      headers: this.headers,
      cause: this.cause,
    });
  }
}

export class InvalidRequestError extends ApiError {
  constructor(details: ErrorDetail[], message = 'The request has invalid parameters; see error.details.') {
    super('invalid_request', { message, details });
  }

  static single(field: string, code: DetailCode, message: string): InvalidRequestError {
    return new InvalidRequestError([{ field, code, message }]);
  }
}

export class CursorExpiredError extends ApiError {
  constructor() {
    super('cursor_expired', { message: 'The cursor is older than 15 minutes; restart without a cursor.' });
  }
}

/** The challenge of every 401 (RFC 9110 § 11.6.1, RFC 6750 § 3): the scheme and this service's realm. */
const BEARER_CHALLENGE = 'Bearer realm="lookup-service"';

/** Where a transport reads the key: `Authorization: Bearer` (v1, MCP) or `X-API-Key` (/api/v2). */
export type KeyScheme = 'bearer' | 'header';

/** The challenge of a 401 on /api/v2, whose key travels in a header of its own, not as a bearer token. */
const API_KEY_CHALLENGE = 'ApiKey realm="lookup-service", header="X-API-Key"';

export class InvalidApiKeyError extends ApiError {
  /**
   * RFC 6750 § 3.1: the bearer challenge names `invalid_token` only when a key was sent. `misplaced`
   * says what arrived instead of a key where the transport reads it (misplacedKeyMessages).
   */
  constructor(keySent = true, scheme: KeyScheme = 'bearer', details: ErrorDetail[] = [], misplaced?: string) {
    const missing =
      scheme === 'bearer'
        ? 'No API key was sent; use Authorization: Bearer <API_KEY>.'
        : 'No API key was sent; use X-API-Key: <API_KEY>.';
    const bearerChallenge = keySent ? `${BEARER_CHALLENGE}, error="invalid_token"` : BEARER_CHALLENGE;
    super('invalid_api_key', {
      message: keySent ? 'The API key is wrong or no longer active.' : (misplaced ?? missing),
      details,
      headers: { 'WWW-Authenticate': scheme === 'bearer' ? bearerChallenge : API_KEY_CHALLENGE },
    });
  }
}

/** What arrived instead of a key where the transport reads it, and how to send it there. */
export const misplacedKeyMessages = {
  /** `scheme`: the first word of the Authorization header, when it reads as a scheme name. */
  withoutBearer: (scheme?: string) =>
    scheme
      ? `The Authorization header uses the ${scheme} scheme; send Authorization: Bearer <API_KEY>.`
      : 'The Authorization header holds a value without the Bearer scheme; send Authorization: Bearer <API_KEY>.',
  v2HeaderOnV1:
    'No Authorization header was sent, but an X-API-Key header was: X-API-Key is for /api/v2; on /v1 send Authorization: Bearer <API_KEY>.',
  authorizationOnV2: (apiKeySent: boolean) =>
    apiKeySent
      ? 'Both X-API-Key and Authorization were sent; /api/v2 reads only X-API-Key: send the key there and no Authorization header.'
      : 'An Authorization header was sent; /api/v2 takes the key as X-API-Key: <API_KEY> instead.',
} as const;

/** "1 credit", "2 credits". */
export function creditCount(credits: number): string {
  return `${credits} ${credits === 1 ? 'credit' : 'credits'}`;
}

export class InsufficientCreditsError extends ApiError {
  constructor(cost: number, balance: number) {
    super('insufficient_credits', {
      message: `This call costs ${creditCount(cost)} and the balance is ${balance}; top up, then send a new call.`,
    });
  }
}

/** A call one of the calling key's spend caps does not cover (billing/spend-caps.ts). */
export class SpendCapReachedError extends ApiError {
  constructor(
    cost: number,
    refusal: { period: 'daily' | 'monthly'; cap: number; left: number; resetsAt: string },
    holder: 'key' | 'connection' = 'key',
  ) {
    super('insufficient_credits', {
      message:
        `This ${holder}'s ${refusal.period} credit cap of ${creditCount(refusal.cap)} has ${refusal.left} left and ` +
        `this call costs ${creditCount(cost)}; the cap resets at ${refusal.resetsAt}.`,
    });
  }
}

export class InsufficientScopeError extends ApiError {
  constructor(message: string) {
    super('insufficient_scope', { message });
  }
}

export class ResourceNotFoundError extends ApiError {
  constructor(message = 'Nothing matched the input.', cause?: unknown) {
    super('resource_not_found', { message, cause });
  }
}

export class MethodNotAllowedError extends ApiError {
  /** `allow`: the methods the path answers (the lookups: GET only). */
  constructor(method: string, allow: readonly string[] = ['GET']) {
    super('method_not_allowed', {
      message: `Method ${method} is not allowed; use ${allow.join(' or ')}.`,
      headers: { Allow: allow.join(', ') },
    });
  }
}

export class NotAcceptableError extends ApiError {
  constructor(message = 'The Accept header excludes application/json; ask for JSON.') {
    super('not_acceptable', { message });
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  constructor(message: string) {
    super('unsupported_media_type', { message });
  }
}

/** A create retried with its `Idempotency-Key` but another body (issue 28): nothing is created. */
export class IdempotencyConflictError extends ApiError {
  constructor(batchId: string) {
    super('idempotency_conflict', {
      message: `This Idempotency-Key created batch ${batchId} from another request body; use a new key for a new batch.`,
    });
  }
}

/** An action a finished batch cannot take (cancelling a completed one). */
export class BatchFinishedError extends ApiError {
  constructor(batchId: string, state: string) {
    super('batch_finished', { message: `Batch ${batchId} is already ${state}; nothing was changed.` });
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(message: string) {
    super('payload_too_large', { message });
  }
}

export class RateLimitExceededError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super('rate_limit_exceeded', {
      message: `The account is over its request ceiling; retry after ${retryAfterSeconds} s.`,
      retryable: true,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/** The spec's 429 for a client address refused after repeated authentication failures. */
export class AuthFailuresThrottledError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super('rate_limit_exceeded', {
      message: `Too many requests from this address were refused for a wrong or inactive API key; retry after ${retryAfterSeconds} s with a valid key.`,
      retryable: true,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

export class InternalError extends ApiError {
  constructor(cause?: unknown, options: { retryable?: boolean; message?: string } = {}) {
    super('internal_error', {
      message: options.message ?? 'The server failed while handling the request.',
      retryable: options.retryable ?? false,
      cause,
    });
  }
}

export class UpstreamError extends ApiError {
  constructor(message: string, cause?: unknown) {
    super('upstream_error', { message, retryable: true, cause });
  }
}

/** Seconds a client is asked to wait when lookups are temporarily unavailable. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export class ServiceUnavailableError extends ApiError {
  /** `retryAfterSeconds`: a wait someone else asked for (a data source's Retry-After, already bounded). */
  constructor(
    message: string,
    cause?: unknown,
    retryAfterSeconds: number = SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS,
  ) {
    super('service_unavailable', {
      message,
      retryable: true,
      headers: { 'Retry-After': String(retryAfterSeconds) },
      cause,
    });
  }
}

/**
 * What a failed store call answers: 503, retryable, while the store may come back (unreachable,
 * locked, throttled); but 500 for a stored record that does not decode: waiting will not mend it,
 * and it must not pass for an outage. Either way the transport logs the cause, which names the item.
 */
export function storeFailure(message: string, error: unknown): ApiError {
  return error instanceof StoredRecordError
    ? new InternalError(error)
    : new ServiceUnavailableError(message, error);
}

/** Seconds a client is asked to wait when a mail server is at our concurrency limit. */
export const CAPACITY_RETRY_AFTER_SECONDS = 10;

export class CapacityExceededError extends ApiError {
  constructor(message: string) {
    super('capacity_exceeded', {
      message: `${message} Retry later; no credits were used.`,
      retryable: true,
      headers: { 'Retry-After': String(CAPACITY_RETRY_AFTER_SECONDS) },
    });
  }
}

export class EmailUnverifiableError extends ApiError {
  constructor(domain: string) {
    super('email_unverifiable', {
      message: `Mailboxes at ${domain} cannot be verified over SMTP; no credits were used.`,
      retryable: false,
    });
  }
}

/**
 * The lookup ran out of time: its own deadline passed, or a mail server, web page or data source it
 * waits on answered too late. The spec names the code `upstream_timeout` for all of these.
 */
export class LookupTimeoutError extends ApiError {
  constructor(message = 'The lookup ran out of time.', cause?: unknown) {
    super('upstream_timeout', { message, retryable: true, cause });
  }
}

/** Anything thrown that is not an ApiError is a server failure. */
export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new InternalError(error);
}
