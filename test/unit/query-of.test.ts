/**
 * `queryOf` takes a request target's query as it is only where WHATWG URL parsing (what the app
 * sees) would keep it so: for every target here, absolute or as a request line gives it, it
 * answers what parsing answers.
 */
import { describe, expect, it } from 'vitest';
import { queryOf } from '../../shared/http/api-binding.js';

const targets = [
  '/v1/emails/disposable?email=someone%40example.com',
  '/v1/emails/disposable',
  '/v1/emails/disposable?',
  '/v1/emails/disposable??',
  '/v1/emails/disposable?email=a@b.com&x=1;y=2',
  "/v1/emails/disposable?email=a'b",
  '/v1/emails/disposable?email="a"',
  '/v1/emails/disposable?email=<a>',
  '/v1/emails/disposable?email=a b',
  '/v1/emails/disposable?email=a#b',
  '/v1/emails/disposable#x?email=a',
  '/v1/emails/disposable?email=a\\b|c^d`e{f}g[h]~',
  '/v1/emails/disposable?email=ä',
  '/v1/emails/disposable?email=\u0001',
  '/v1/emails/disposable?email=%zz%',
  '/v1/emails/disposable?email=\t',
  'http://localhost:8080/v1/emails/disposable?email=a%40b.com',
  'http://localhost/v1/emails/disposable?',
  'http://localhost/v1/emails/disposable?email=a b',
  '/a/../v1/emails/disposable?q=/../x',
];

describe('queryOf', () => {
  it.each(targets)('%j', (target) => {
    expect(queryOf(target)).toBe(new URL(target, 'http://localhost').search);
  });
});
