/**
 * Bad input never produces a 500: random query strings, methods and headers thrown at the route
 * always get a well-formed envelope (a success body or the exact error body) with a status the spec
 * lists for the operation.
 */

import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import * as z from 'zod';
import { successEnvelopeSchema } from '../../schemas/envelope.js';
import { errorBodySchema } from '../../schemas/errors.js';
import { disposableCheck } from '../../schemas/operations/emails.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({ rateLimit: { limit: 1_000_000, windowSeconds: 60 } });

const printable = fc.string({
  unit: fc.constantFrom(...Array.from(' !"#$%&\'()*+,-./0123456789:;<=>?@AZaz[\\]^_`{|}~é€😀')),
});
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
});
const paramName = fc.oneof(fc.constantFrom('email', 'Email', 'email[]', '', 'count'), printable);
const paramValue = fc.oneof(
  fc.constantFrom(
    'a@b.com',
    'x@mailinator.com',
    '@',
    'a@',
    '@b',
    'a@b@c',
    'a@.',
    'a@xn--',
    'a@[::1]',
    'a@1.2.3.4',
  ),
  printable,
  fc.emailAddress(),
);
const query = fc
  .array(fc.tuple(paramName, paramValue), { maxLength: 5 })
  .map((pairs) =>
    pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&'),
  );
const rawQuery = fc.string({ unit: fc.constantFrom(...'%&=?+#;a@b.c'.split('')), maxLength: 20 });
const method = fc.constantFrom(
  'GET',
  'GET',
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'HEAD',
  'PROPFIND',
);
const headers = fc.record(
  {
    accept: fc.oneof(
      fc.constantFrom('application/json', '*/*', 'text/html', 'application/json;q=0', ''),
      headerValue,
    ),
    'content-type': fc.oneof(fc.constantFrom('application/json', 'text/plain', ''), headerValue),
    authorization: fc.oneof(fc.constant(`Bearer ${'KEY'}`), fc.constant('Bearer'), headerValue),
    'x-request-id': headerValue,
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', '*;q=0'),
  },
  { requiredKeys: [] },
);

function decode(encoding: string | null, body: ArrayBuffer): string {
  const bytes = Buffer.from(body);
  if (encoding === 'br') return brotliDecompressSync(bytes).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(bytes).toString('utf8');
  return bytes.toString('utf8');
}

const successSchema = successEnvelopeSchema(disposableCheck.data, 'none', 0).strict();

it('answers every random request with a well-formed envelope and a listed status', async () => {
  await fc.assert(
    fc.asyncProperty(method, fc.oneof(query, rawQuery), headers, async (verb, search, headerSet) => {
      const withKey = Object.fromEntries(
        Object.entries(headerSet).map(([name, value]) => [
          name,
          value.replace('Bearer KEY', `Bearer ${file.apiKey}`),
        ]),
      );
      const response = await file.harness.app.request(`/v1/emails/disposable?${search}`, {
        method: verb,
        headers: withKey,
      });
      expect(disposableCheck.statuses).toContain(response.status);
      expect(response.status).not.toBe(500);
      if (verb === 'HEAD') return;
      const body: unknown = JSON.parse(
        decode(response.headers.get('content-encoding'), await response.arrayBuffer()),
      );
      const schema = response.status === 200 ? successSchema : errorBodySchema();
      expect(schema.safeParse(body).success).toBe(true);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    }),
    { numRuns: 400 },
  );
});

it('never echoes an unprintable parameter name into error details', async () => {
  const response = await file.harness.get(
    `/v1/emails/disposable?${encodeURIComponent('naïve\u0000')}=1&email=a%40b.com`,
    file.apiKey,
  );
  const body = errorBodySchema().parse(await response.json());
  // A name that is not text (here: a NUL) is named as sent, still percent-encoded.
  expect(body.error.details[0]).toMatchObject({ field: 'na%C3%AFve%00', code: 'invalid_format' });
  expect(
    z
      .string()
      .regex(/^[\x20-\x7e]+$/)
      .safeParse(body.error.details[0]?.field).success,
  ).toBe(true);
});
