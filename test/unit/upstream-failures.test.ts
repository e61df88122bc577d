/**
 * What an upstream's failure becomes for our caller (shared/sources/upstream/upstream-failures.ts):
 * each status of the table, its code, whether to retry and how long to wait, and Retry-After
 * values read strictly and bounded.
 */
import { describe, expect, it } from 'vitest';
import {
  answerFailure,
  connectionFailure,
  MAX_RETRY_AFTER_SECONDS,
  retryAfterSeconds,
} from '../../shared/sources/upstream/upstream-failures.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const cause = (text: string) => new Error(`GET /api/v2/x ${text}`);
const errorBody = (code: string) =>
  JSON.stringify({ error: { code, message: 'no', retryable: false, details: [] }, meta: { requestId: 'r' } });

describe('retryAfterSeconds', () => {
  it.each([
    ['delay-seconds', '17', 17],
    ['zero, which would invite an instant retry', '0', 1],
    ['past the bound', '99999', MAX_RETRY_AFTER_SECONDS],
    ['an IMF-fixdate 30 s ahead', new Date(NOW + 30_000).toUTCString(), 30],
    ['an IMF-fixdate in the past', new Date(NOW - 30_000).toUTCString(), 1],
    ['a fraction', '1.5', 5],
    ['a negative number', '-3', 5],
    ['words', 'soon', 5],
    ['nothing', undefined, 5],
  ])('%s (%s) → %i', (_, header, seconds) => {
    expect(retryAfterSeconds(header, NOW)).toBe(seconds);
  });
});

describe('answerFailure', () => {
  it.each([
    [404, errorBody('resource_not_found'), undefined, 404, 'resource_not_found', false, undefined],
    [404, 'Not Found', undefined, 502, 'upstream_error', true, undefined],
    [400, errorBody('cursor_expired'), undefined, 400, 'cursor_expired', false, undefined],
    [400, errorBody('invalid_request'), undefined, 502, 'upstream_error', true, undefined],
    [401, errorBody('invalid_api_key'), undefined, 503, 'service_unavailable', true, '60'],
    [402, errorBody('insufficient_credits'), undefined, 503, 'service_unavailable', true, '60'],
    [403, errorBody('insufficient_scope'), undefined, 503, 'service_unavailable', true, '60'],
    [429, errorBody('rate_limit_exceeded'), '12', 503, 'service_unavailable', true, '12'],
    [503, '', undefined, 503, 'service_unavailable', true, '5'],
    [504, errorBody('upstream_timeout'), undefined, 504, 'upstream_timeout', true, undefined],
    [500, errorBody('internal_error'), undefined, 502, 'upstream_error', true, undefined],
    [302, '', undefined, 502, 'upstream_error', true, undefined],
  ])('upstream %i → %i %s', (upstreamStatus, body, retryAfter, status, code, retryable, ourRetryAfter) => {
    const error = answerFailure({ status: upstreamStatus, body, retryAfter }, cause);
    expect(error).toMatchObject({ status, code, retryable, refund: true });
    expect(error.headers['Retry-After']).toBe(ourRetryAfter);
    if (status >= 500) expect(String((error.cause as Error).message)).toContain(`answered ${upstreamStatus}`);
  });
});

describe('connectionFailure', () => {
  it.each([
    ['ECONNRESET', 502, 'upstream_error'],
    ['EPIPE', 502, 'upstream_error'],
    ['TOO_LARGE', 502, 'upstream_error'],
    ['ECONNREFUSED', 503, 'service_unavailable'],
    ['ENOTFOUND', 503, 'service_unavailable'],
  ])('%s → %i %s, refunded and retryable', (code, status, errorCode) => {
    const error = connectionFailure(Object.assign(new Error(`x ${code}`), { code }), cause);
    expect(error).toMatchObject({ status, code: errorCode, retryable: true, refund: true });
    expect((error.cause as Error).message).toContain(code);
  });
});
