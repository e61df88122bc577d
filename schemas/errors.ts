/**
 * The public error contract: codes, their HTTP status, which headers each row of the spec's Errors
 * table carries, and the error body. Imported by every transport and by the OpenAPI document.
 */
import * as z from 'zod';

export const errorCodes = [
  'invalid_request',
  'cursor_expired',
  'invalid_api_key',
  'insufficient_credits',
  'insufficient_scope',
  'resource_not_found',
  'method_not_allowed',
  'not_acceptable',
  'unsupported_media_type',
  'idempotency_conflict',
  'batch_finished',
  'payload_too_large',
  'email_unverifiable',
  'rate_limit_exceeded',
  'internal_error',
  'upstream_error',
  'service_unavailable',
  'capacity_exceeded',
  'upstream_timeout',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/**
 * `accountHeaders`: whether the row lists `X-Credits-Remaining` and `X-RateLimit-*`. Such an error
 * carries whatever of them the request had learned before it failed (a 402 knows both; a 503 raised
 * while authenticating knows neither). `billed`: only on billed operations (the 500 row says "not on
 * disposable", the one free operation).
 */
export type AccountHeaderRule = 'never' | 'always' | 'billed';

export const errorTable: Record<ErrorCode, { status: number; accountHeaders: AccountHeaderRule }> = {
  invalid_request: { status: 400, accountHeaders: 'never' },
  cursor_expired: { status: 400, accountHeaders: 'never' },
  invalid_api_key: { status: 401, accountHeaders: 'never' },
  insufficient_credits: { status: 402, accountHeaders: 'always' },
  insufficient_scope: { status: 403, accountHeaders: 'never' },
  resource_not_found: { status: 404, accountHeaders: 'always' },
  method_not_allowed: { status: 405, accountHeaders: 'never' },
  not_acceptable: { status: 406, accountHeaders: 'never' },
  unsupported_media_type: { status: 415, accountHeaders: 'never' },
  idempotency_conflict: { status: 409, accountHeaders: 'never' },
  batch_finished: { status: 409, accountHeaders: 'never' },
  payload_too_large: { status: 413, accountHeaders: 'never' },
  email_unverifiable: { status: 422, accountHeaders: 'always' },
  rate_limit_exceeded: { status: 429, accountHeaders: 'always' },
  internal_error: { status: 500, accountHeaders: 'billed' },
  upstream_error: { status: 502, accountHeaders: 'always' },
  service_unavailable: { status: 503, accountHeaders: 'always' },
  capacity_exceeded: { status: 503, accountHeaders: 'always' },
  upstream_timeout: { status: 504, accountHeaders: 'always' },
};

export const detailCodes = [
  'identifier_count',
  'unknown_parameter',
  'repeated_parameter',
  'invalid_format',
  'invalid_value',
  'too_long',
] as const;
export type DetailCode = (typeof detailCodes)[number];

export const MAX_ERROR_DETAILS = 16;

const printable = /^[\x20-\x7e]+$/;

const errorDetailSchema = () =>
  z.object({
    field: z.string().min(1).max(128).regex(printable),
    code: z.enum(detailCodes),
    message: z.string().min(1).max(512),
  });
export type ErrorDetail = z.infer<ReturnType<typeof errorDetailSchema>>;

const makeErrorBodySchema = () =>
  z
    .object({
      error: z.object({
        code: z.enum(errorCodes),
        message: z.string().min(1).max(512),
        retryable: z.boolean(),
        details: z.array(errorDetailSchema()).max(MAX_ERROR_DETAILS),
      }),
      meta: z.object({ requestId: z.string().min(1).max(64).regex(printable) }),
    })
    .meta({ id: 'ErrorBody' });
let errorBody: ReturnType<typeof makeErrorBodySchema> | undefined;

/**
 * The error body's schema, made at its first use and kept, so its id is registered once. OpenAPI,
 * the MCP output schemas and an upstream's errors read it; answering an error does not, so a cold
 * start does not make it.
 */
export function errorBodySchema() {
  errorBody ??= makeErrorBodySchema();
  return errorBody;
}
export type ErrorBody = z.infer<ReturnType<typeof errorBodySchema>>;
