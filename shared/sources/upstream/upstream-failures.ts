/**
 * What an upstream failure becomes for our caller: a typed error of shared/errors.ts, refunded by the
 * pipeline's settlement (none of these keeps a charge), with the upstream's side of the story in its
 * cause, which the pipeline logs and the caller never sees. The mapping (docs/upstream.md):
 *
 *   200 with invalid JSON or data off the schema   → 502 upstream_error
 *   no answer within the deadline                  → 504 upstream_timeout
 *   404 resource_not_found                         → 404 resource_not_found
 *   400 cursor_expired                             → 400 cursor_expired (the upstream cursor under ours expired)
 *   429, 503                                       → 503 service_unavailable, the upstream's Retry-After, bounded
 *   401, 402, 403 (our key, credit or scope there) → 503 service_unavailable, Retry-After 60 s
 *   504                                            → 504 upstream_timeout (it ran out of time itself)
 *   any other status, a reset connection           → 502 upstream_error
 *   a connection that cannot be opened             → 503 service_unavailable
 *
 * A refusal of our own key is not the caller's fault, so it never answers 401, 402 or 403.
 */
import { errorBodySchema } from '../../../schemas/errors.js';
import {
  type ApiError,
  CursorExpiredError,
  LookupTimeoutError,
  ResourceNotFoundError,
  SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS,
  ServiceUnavailableError,
  UpstreamError,
} from '../../errors.js';

/** The longest wait we pass on: an upstream asking for hours must not park our callers that long. */
export const MAX_RETRY_AFTER_SECONDS = 600;
/** The wait we ask for when the upstream refuses our own key: an operator has to act first. */
export const REFUSED_KEY_RETRY_AFTER_SECONDS = 60;

const NO_CREDITS = 'no credits were used.';

/** An upstream answer as read off the wire. */
export interface UpstreamAnswer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** RFC 9110 § 10.2.3: delay-seconds, or an IMF-fixdate. */
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** The upstream's Retry-After as whole seconds from 1 to MAX_RETRY_AFTER_SECONDS; our default when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, now: number = Date.now()): number {
  const text = header?.trim() ?? '';
  const seconds = /^\d{1,10}$/.test(text)
    ? Number(text)
    : IMF_FIXDATE.test(text)
      ? Math.ceil((Date.parse(text) - now) / 1000)
      : Number.NaN;
  if (Number.isNaN(seconds)) return SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
}

/** The error code of an upstream error body, when the body is one. */
function errorCodeOf(body: string): string | undefined {
  try {
    return errorBodySchema().safeParse(JSON.parse(body)).data?.error.code;
  } catch {
    return undefined;
  }
}

/**
 * The error a non-200 answer means. `cause` builds the logged cause from a description (the client
 * names the request in it and strips anything secret).
 */
export function answerFailure(answer: UpstreamAnswer, cause: (text: string) => Error): ApiError {
  const code = errorCodeOf(answer.body);
  const why = cause(`answered ${answer.status}${code ? ` ${code}` : ''}`);
  switch (answer.status) {
    case 404:
      // Any other 404 is a path the upstream does not serve: a wrong UPSTREAM_URL, not a miss.
      return code === 'resource_not_found'
        ? new ResourceNotFoundError(undefined, why)
        : new UpstreamError(`The data source does not serve this lookup; ${NO_CREDITS}`, why);
    case 400:
      return code === 'cursor_expired'
        ? new CursorExpiredError()
        : new UpstreamError(`The data source refused the request this service made; ${NO_CREDITS}`, why);
    case 401:
    case 402:
    case 403:
      return new ServiceUnavailableError(
        `Lookups are unavailable until the operator restores this service's access to its data source; ${NO_CREDITS}`,
        why,
        REFUSED_KEY_RETRY_AFTER_SECONDS,
      );
    case 429:
    case 503:
      return new ServiceUnavailableError(
        `The data source is busy; retry later, ${NO_CREDITS}`,
        why,
        retryAfterSeconds(answer.retryAfter),
      );
    case 504:
      return new LookupTimeoutError(`The data source ran out of time; ${NO_CREDITS}`, why);
    default:
      return new UpstreamError(`The data source failed (HTTP ${answer.status}); ${NO_CREDITS}`, why);
  }
}

/** Errors of connecting at all, as opposed to a connection that broke off or answered garbage. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The error a failed exchange means (no answer, or one cut short); `error` is what Node reported. */
export function connectionFailure(error: unknown, cause: (text: string) => Error): ApiError {
  const code = (error as { code?: unknown }).code;
  const reported = typeof code === 'string' ? code : error instanceof Error ? error.message : 'failed';
  const why = cause(`failed: ${reported}`);
  return typeof code === 'string' && UNREACHABLE.has(code)
    ? new ServiceUnavailableError(`The data source cannot be reached; retry later, ${NO_CREDITS}`, why)
    : new UpstreamError(`The data source's answer could not be read; ${NO_CREDITS}`, why);
}

/** A 200 whose body is not JSON, or whose JSON is not the route's envelope. */
export function invalidAnswer(kind: 'json' | 'schema', why: Error): ApiError {
  return new UpstreamError(
    kind === 'json'
      ? `The data source answered with invalid JSON; ${NO_CREDITS}`
      : `The data source answered with data that does not match the schema; ${NO_CREDITS}`,
    why,
  );
}

/** Past the deadline, waiting for a free slot or for the answer (the cause says which). */
export function deadlineFailure(why: Error): ApiError {
  return new LookupTimeoutError(`The data source did not answer in time; ${NO_CREDITS}`, why);
}
