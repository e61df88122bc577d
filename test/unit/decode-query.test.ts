/**
 * The strict decoder of query strings and path segments: what URLSearchParams decodes, it decodes
 * the same (`+` is a space, empty pairs are skipped); what URLSearchParams decodes lossily (invalid
 * UTF-8 becomes U+FFFD, a broken escape stays literal) or lets through (control characters), it
 * reports as a problem instead of text.
 */
import { describe, expect, it } from 'vitest';
import {
  decodePathSegment,
  decodeQuery,
  describeProblem,
  type TextProblem,
  textProblem,
} from '../../shared/pipeline/decode-query.js';

describe('decodeQuery on well-formed input', () => {
  it.each([
    ['keywords=software', 'plain ASCII'],
    ['keywords=data+science', 'a plus is a space'],
    ['keywords=a%2Bb', 'an escaped plus is a plus'],
    ['keywords=%C3%A9t%C3%A9&offset=10', 'UTF-8 escapes and two pairs'],
    ['username=%E0%A4%85%E0%A4%AE%E0%A4%BF%E0%A4%A4', 'Devanagari with combining marks'],
    ['q=%F0%9F%98%80', 'a four-byte sequence (a surrogate pair in UTF-16)'],
    ['a=1&&b=2&', 'empty pairs are skipped'],
    ['flag&x=', 'a name without = and an empty value'],
    ['=x', 'an empty name'],
    ['x=a=b', 'only the first = splits'],
    ['%EF%BB%BFx=1', 'a byte-order mark is kept as a character'],
    ['x=%EF%BF%BD', 'a literal U+FFFD sent as UTF-8 is text'],
    ['', 'nothing'],
  ])('reads %s as URLSearchParams does (%s)', (query) => {
    const decoded = decodeQuery(query).map(({ name, value }) => [name.text, value.text]);
    expect(decoded).toEqual([...new URLSearchParams(query)]);
  });

  it('ignores a leading question mark, as URLSearchParams does', () => {
    expect(decodeQuery('?a=1').map(({ name, value }) => [name.text, value.text])).toEqual([['a', '1']]);
  });

  it('keeps each name as received, for naming it safely', () => {
    expect(decodeQuery('%FF=1').map((entry) => entry.rawName)).toEqual(['%FF']);
  });
});

describe('decodeQuery refuses what is not text', () => {
  const cases: [string, string, TextProblem][] = [
    ['%ED%A0%80', 'a lone surrogate encoded in UTF-8 (CESU)', { kind: 'invalid_utf8' }],
    ['%FF%FE', 'bytes that never occur in UTF-8', { kind: 'invalid_utf8' }],
    ['a%C3%28%40b.com', 'a lead byte followed by a non-continuation byte', { kind: 'invalid_utf8' }],
    ['%C3', 'a sequence cut short at the end', { kind: 'invalid_utf8' }],
    ['%C0%AF', 'an overlong encoding of /', { kind: 'invalid_utf8' }],
    ['%F4%90%80%80', 'a code point above U+10FFFF', { kind: 'invalid_utf8' }],
    ['%E0%A4%A', 'an escape cut short', { kind: 'broken_escape', escape: '%A' }],
    ['%', 'a lone percent sign', { kind: 'broken_escape', escape: '%' }],
    ['50%', 'a percent sign at the end', { kind: 'broken_escape', escape: '%' }],
    ['%G1', 'an escape that is not hex', { kind: 'broken_escape', escape: '%G1' }],
    ['a%00b', 'NUL', { kind: 'control_character', codePoint: 0 }],
    ['a%09b', 'a tab', { kind: 'control_character', codePoint: 9 }],
    ['a%0D%0Ab', 'CR LF', { kind: 'control_character', codePoint: 13 }],
    ['%1B%5B31m', 'ESC (a terminal escape)', { kind: 'control_character', codePoint: 0x1b }],
    ['a%7F', 'DEL', { kind: 'control_character', codePoint: 0x7f }],
    ['a%C2%85', 'NEL, a C1 control', { kind: 'control_character', codePoint: 0x85 }],
    ['a%C2%9F', 'the last C1 control', { kind: 'control_character', codePoint: 0x9f }],
  ];

  it.each(cases)('reports the value %s (%s)', (raw, _reason, problem) => {
    const [entry] = decodeQuery(`keywords=${raw}`);
    expect(entry?.name).toEqual({ text: 'keywords' });
    expect(entry?.value).toEqual({ problem });
  });

  it.each(cases)('reports the name %s (%s)', (raw, _reason, problem) => {
    const [entry] = decodeQuery(`${raw}=1`);
    expect(entry).toEqual({ rawName: raw, name: { problem }, value: { text: '1' } });
  });

  it('reports the first broken escape even after a valid one', () => {
    expect(decodeQuery('x=%C3%A9%Z')[0]?.value).toEqual({ problem: { kind: 'broken_escape', escape: '%Z' } });
  });

  it.each([
    ['a\u00a0b', 'a no-break space (U+00A0, just past the C1 range)'],
    ['\u200e', 'a left-to-right mark (a format character, not a control)'],
  ])('lets %j through (%s)', (text) => {
    expect(decodeQuery(`x=${encodeURIComponent(text)}`)[0]?.value).toEqual({ text });
  });
});

describe('decodePathSegment', () => {
  it('keeps a plus as a plus: only query strings spell a space with +', () => {
    expect(decodePathSegment('a+b%20c')).toEqual({ text: 'a+b c' });
  });

  it.each([
    ['%ED%A0%80', { kind: 'invalid_utf8' }],
    ['%E0%A4%A', { kind: 'broken_escape', escape: '%A' }],
    ['%00', { kind: 'control_character', codePoint: 0 }],
  ])('refuses %s like a query value', (raw, problem) => {
    expect(decodePathSegment(raw)).toEqual({ problem });
  });
});

describe('textProblem on decoded strings (MCP arguments arrive as JSON strings)', () => {
  it.each([
    ['\ud800', { kind: 'unpaired_surrogate', codePoint: 0xd800 }],
    ['a\udfffb', { kind: 'unpaired_surrogate', codePoint: 0xdfff }],
    ['\udc00\ud800', { kind: 'unpaired_surrogate', codePoint: 0xdc00 }],
    ['a\u0000', { kind: 'control_character', codePoint: 0 }],
    ['\u007f', { kind: 'control_character', codePoint: 0x7f }],
    ['x\u0085', { kind: 'control_character', codePoint: 0x85 }],
  ])('finds the problem in %j', (text, problem) => {
    expect(textProblem(text)).toEqual(problem);
  });

  it('reports whichever problem comes first', () => {
    expect(textProblem('\u0001\ud800')).toEqual({ kind: 'control_character', codePoint: 1 });
    expect(textProblem('\ud800\u0001')).toEqual({ kind: 'unpaired_surrogate', codePoint: 0xd800 });
  });

  it.each(['josé', '😀', 'ﬀ', '\ufeff', ''])('finds none in %j', (text) => {
    expect(textProblem(text)).toBeUndefined();
  });
});

describe('describeProblem', () => {
  it.each<[TextProblem, RegExp]>([
    [{ kind: 'broken_escape', escape: '%G1' }, /"%G1".*%25/],
    [{ kind: 'invalid_utf8' }, /not UTF-8 text.*%C3%A9/],
    [{ kind: 'control_character', codePoint: 0 }, /control character U\+0000/],
    [{ kind: 'unpaired_surrogate', codePoint: 0xd800 }, /unpaired surrogate U\+D800/],
  ])('says what was received and what to send instead: %j', (problem, pattern) => {
    const phrase = describeProblem(problem);
    expect(phrase).toMatch(pattern);
    expect(phrase).toMatch(/^[\x20-\x7e]+$/);
  });

  it('quotes a broken escape printably, even one that is not ASCII', () => {
    expect(describeProblem({ kind: 'broken_escape', escape: '%\u0000é' })).toContain('"%??"');
  });
});
