/**
 * The result bound's cut on its own: a body that fits is left as it is; a long text is cut to the
 * longest prefix that fits, and never inside a surrogate pair (a lone half costs 6 characters of JSON
 * against the pair's 2, so the longest prefix that fits always ends after a whole pair).
 */
import { describe, expect, it } from 'vitest';
import { cutToFit } from '../../shared/mcp/result-bound.js';

const size = (body: unknown) => JSON.stringify(body).length;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('cutToFit', () => {
  it('leaves a body that fits untouched', () => {
    const body = { data: { text: 'short' }, meta: {} };
    expect(cutToFit(body, 'none', 1_000, size)).toEqual({ body });
  });

  it.each<[string, string, number]>([
    ['ASCII', 'a'.repeat(2_000), 800],
    // Bounds of every parity and slack, so a cut inside a pair would show in one of them.
    ...Array.from({ length: 8 }, (_, extra): [string, string, number] => [
      'emoji, a surrogate pair each',
      '😀'.repeat(1_000),
      800 + extra,
    ]),
  ])('cuts a long text to a well-formed prefix (%s, bound %i)', (_name, text, bound) => {
    const body = { data: { url: 'https://example.org/', text }, meta: { creditCost: 2 } };
    const { body: cut, cut: what } = cutToFit(body, 'none', bound, size);
    const shown = (cut.data as { text: string }).text;
    expect(text.startsWith(shown)).toBe(true);
    expect(shown).not.toMatch(LONE_SURROGATE);
    expect(size(cut)).toBeLessThanOrEqual(bound);
    expect(what).toEqual({
      field: 'data.text',
      unit: 'characters',
      kept: shown.length,
      omitted: text.length - shown.length,
      continues: false,
    });
  });
});
