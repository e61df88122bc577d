/**
 * Assertions shared by the API tests: the exact error body and the headers every error carries.
 */
import { expect } from 'vitest';
import { errorBodySchema } from '../../schemas/errors.js';

/** The exact error body and the headers every error carries; returns the parsed body. */
export async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('private, no-store');
  expect(response.headers.get('date')).toMatch(/GMT$/);
  const body = errorBodySchema()
    .strict()
    .parse(await response.json());
  expect(body.error.code).toBe(code);
  expect(Object.keys(body)).toEqual(['error', 'meta']);
  expect(Object.keys(body.error)).toEqual(['code', 'message', 'retryable', 'details']);
  expect(response.headers.get('x-request-id')).toBe(body.meta.requestId);
  return body;
}

/** X-RateLimit-* and the IETF fields that carry the same values (RateLimit-Policy, RateLimit). */
export const rateLimitHeaderNames = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
];

export function headerNames(response: Response): string[] {
  return [...response.headers.keys()].sort();
}
