/**
 * `normalizedAlready` lets a domain skip URL parsing only where parsing would map it to itself and
 * the checks after it would accept it: for every input here, and for thousands of random ones made
 * of the characters and fragments that matter (IDNA's `xn--`, hexadecimal `0x`, digits, dots,
 * hyphens, capitals), whatever it answers is what the parser answers.
 */
import { describe, expect, it } from 'vitest';
import { normalizeDomainName, normalizedAlready } from '../../schemas/domain-name.js';

/** What URL parsing makes of the host, one trailing dot removed; undefined if it refuses it. */
function parsed(raw: string): string | undefined {
  try {
    const host = new URL(`http://${raw}/`).hostname;
    return host.endsWith('.') ? host.slice(0, -1) : host;
  } catch {
    return undefined;
  }
}

const inputs = [
  'example.com',
  'example.com.',
  'mail.example.co.uk',
  'a-b.example',
  'EXAMPLE.com',
  'example..com',
  '.example.com',
  'example.com..',
  'example',
  '-example.com',
  'example-.com',
  'xn--bcher-kva.example',
  'example.xn--p1ai',
  'xn--a.com',
  'example.0x1f',
  'example.0x',
  'example.0xg',
  'example.123',
  '1.2.3.4',
  '0x7f.1',
  'example.1a',
  'ex_ample.com',
  'ex ample.com',
  'bücher.example',
  '例え.jp',
  'example。com',
  `${'a'.repeat(63)}.com`,
  `${'a'.repeat(64)}.com`,
  `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.com`,
  `${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(62)}.com`,
];

/** Random hosts from the pieces that change how a host parses, from a fixed seed. */
function randomHosts(count: number): string[] {
  const pieces = ['a', 'z', 'x', '0', '9', '-', '.', 'xn--', '0x', 'f', 'A', '..', '1'];
  let seed = 29;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + (next() % 12) }, () => pieces[next() % pieces.length]).join(''),
  );
}

describe('normalizedAlready', () => {
  it.each(inputs)('%s: answers what URL parsing and the checks after it answer', (raw) => {
    const plain = normalizedAlready(raw);
    if (plain !== undefined) expect(plain).toBe(parsed(raw));
    if (plain !== undefined) expect(normalizeDomainName(raw)).toEqual({ ok: true, domain: plain });
  });

  it('takes the plain domains a client usually sends, and leaves the others to the parser', () => {
    expect(inputs.filter((raw) => normalizedAlready(raw) !== undefined)).toEqual([
      'example.com',
      'example.com.',
      'mail.example.co.uk',
      'a-b.example',
      'example.0xg',
      'example.1a',
      `${'a'.repeat(63)}.com`,
      `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.com`,
    ]);
  });

  it('agrees with URL parsing on 20,000 random hosts', () => {
    const disagreements = randomHosts(20_000).filter((raw) => {
      const plain = normalizedAlready(raw);
      return plain !== undefined && plain !== parsed(raw);
    });
    expect(disagreements).toEqual([]);
  });
});
