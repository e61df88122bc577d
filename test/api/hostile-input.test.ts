/**
 * An invariant over every path of the catalog: hostile input (names of Object.prototype as parameter
 * names and values, very long values, invalid UTF-8 in percent-encodings, unusual methods, odd
 * headers) never produces a 500, and every error it produces is the spec's error body, within its
 * bounds, with `meta.requestId` equal to the X-Request-Id header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { errorBodySchema } from '../../schemas/errors.js';
import { type Harness, startHarness } from '../support/harness.js';

let harness: Harness;
let apiKey: string;

beforeAll(async () => {
  harness = await startHarness();
  ({ apiKey } = await harness.provision({
    credits: 1_000_000,
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
  }));
});
afterAll(async () => harness?.close());

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];
const LONG = 'x'.repeat(10_000);

interface HostileRequest {
  label: string;
  query: string;
  init?: RequestInit;
}

/** The battery for one operation: built from its own parameter names, so every path gets all of it. */
function battery(parameters: readonly string[]): HostileRequest[] {
  const each = (label: string, value: (name: string) => string): HostileRequest[] =>
    parameters.map((name) => ({ label: `${label} in ${name}`, query: `${name}=${value(name)}` }));
  return [
    {
      label: 'prototype names as parameter names',
      query: PROTOTYPE_NAMES.map((name) => `${name}=1`).join('&'),
    },
    ...PROTOTYPE_NAMES.flatMap((value) => each(`the value ${value}`, () => value)),
    ...each('a 10,000-character value', () => LONG),
    ...each('invalid UTF-8', () => '%C3%28%FF%FE'),
    ...each('a lone surrogate', () => '%ED%A0%80'),
    ...each('control characters', () => '%00%01%1B%7F'),
    { label: 'an invalid UTF-8 parameter name', query: '%FF%FE=1' },
    { label: 'a 10,000-character parameter name', query: `${LONG}=1` },
    { label: 'a parameter sent 40 times', query: Array.from({ length: 40 }, (_, i) => `p${i}=1`).join('&') },
    ...['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'FOO'].map((method) => ({
      label: `method ${method}`,
      query: '',
      init: { method },
    })),
    { label: 'Accept: garbage', query: '', init: { headers: { Accept: ';;;,,q=abc' } } },
    {
      label: 'Accept with a bad quality',
      query: '',
      init: { headers: { Accept: 'application/json;q=abc' } },
    },
    { label: 'a long Content-Type', query: '', init: { headers: { 'Content-Type': `a/${LONG}` } } },
    { label: 'Content-Type: garbage', query: '', init: { headers: { 'Content-Type': ';;' } } },
    { label: 'Content-Length on a GET', query: '', init: { headers: { 'Content-Length': '5' } } },
    { label: 'a client X-Request-Id', query: '', init: { headers: { 'X-Request-Id': LONG } } },
    { label: 'a Latin-1 Authorization', query: '', init: { headers: { Authorization: 'Bearer ÿÿÿÿ' } } },
    { label: 'a long bearer', query: '', init: { headers: { Authorization: `Bearer ${LONG}` } } },
    { label: 'an empty Authorization', query: '', init: { headers: { Authorization: '' } } },
  ];
}

describe.each(catalog.flatMap((operation) => operation.variants.map((variant) => ({ operation, variant }))))(
  '$variant.path',
  ({ operation, variant }) => {
    // Website, verify and find operations would reach the internet with valid input; the battery's
    // values are never valid (the prototype-name values are refused by their URL, email and name rules).
    const parameters = Object.keys(operation.query.shape);
    it.each(battery(parameters))('answers $label without a 500, in the error format', async (hostile) => {
      const response = await harness.get(`${variant.path}?${hostile.query}`, apiKey, hostile.init);
      expect(response.status).not.toBe(500);
      const requestId = response.headers.get('x-request-id');
      if (response.status === 200) {
        expect(Object.keys((await response.json()) as object)).toEqual(['data', 'meta']);
        return;
      }
      const body = errorBodySchema()
        .strict()
        .parse(await response.json());
      expect(body.meta.requestId).toBe(requestId);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
    });
  },
);
