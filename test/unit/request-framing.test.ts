/**
 * The request-head checks made before a request reaches the app (npm start): which Host headers
 * and transfer codings are refused, and why. The same requests over the wire: client-errors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkRequestHead } from '../../shared/http/request-framing.js';

const head = (...lines: [string, string][]) => lines.flat();

describe('checkRequestHead', () => {
  it.each([
    ['a host name', head(['Host', 'lookup.example'])],
    ['a host name and port', head(['host', 'LOOKUP.example:8787'])],
    ['an IPv6 literal', head(['Host', '[::1]:8787'])],
    ['a trailing dot (the same DNS name)', head(['Host', 'lookup.example.'])],
    ['chunked as the last coding', head(['Host', 'a.example'], ['Transfer-Encoding', 'gzip, chunked'])],
    [
      'chunked on its own line last',
      head(['Host', 'a.example'], ['Transfer-Encoding', 'gzip'], ['Transfer-Encoding', 'Chunked']),
    ],
  ])('lets through %s', (_, rawHeaders) => {
    expect(checkRequestHead(rawHeaders)).toBeUndefined();
  });

  it.each([
    ['no Host', head(['Accept', '*/*']), /no Host header/],
    ['two Host lines, even equal ones', head(['Host', 'a.example'], ['HOST', 'a.example']), /2 Host headers/],
    ['an empty Host', head(['Host', '']), /"" is not a valid host/],
    ['a host URL parsing refuses', head(['Host', '1.2.3.256']), /"1.2.3.256" is not a valid host/],
    ['percent-encoding (another name once decoded)', head(['Host', 'a%41.example']), /not a valid host/],
    ['user info', head(['Host', 'u@a.example']), /not a valid host/],
    ['a path', head(['Host', 'a.example/x']), /not a valid host/],
    ['a port out of range', head(['Host', 'a.example:65536']), /not a valid host/],
    [
      'a last coding other than chunked',
      head(['Host', 'a.example'], ['Transfer-Encoding', 'xchunked']),
      /"xchunked" cannot frame/,
    ],
    [
      'chunked before another coding',
      head(['Host', 'a.example'], ['Transfer-Encoding', 'chunked, gzip']),
      /"gzip" cannot frame/,
    ],
  ])('refuses %s with 400 invalid_request', (_, rawHeaders, message) => {
    const refusal = checkRequestHead(rawHeaders);
    expect(refusal?.status).toBe(400);
    expect(refusal?.code).toBe('invalid_request');
    expect(refusal?.message).toMatch(message);
  });
});
