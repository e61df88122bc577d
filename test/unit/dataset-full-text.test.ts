/**
 * How a keyword query reaches the dataset database's full-text index (full-text.ts): a short term is
 * read from FTS5's prefix index, a longer one is written out as the indexed words it starts (so FTS5
 * reads it in rank order and a page stops early), and only a long prefix shared by too many words
 * keeps FTS5's merging prefix form. The rows each form matches are compared with the reference in
 * dataset-database.test.ts; this pins which form each query gets.
 */
import { describe, expect, it } from 'vitest';
import {
  LONGEST_INDEXED_PREFIX,
  MAX_EXPANDED_WORDS,
  matchExpression,
  spellWord,
} from '../../shared/sources/dataset/database/full-text.js';
import { prepareQuery } from '../../shared/sources/dataset/search.js';

/** A word list as `<kind>_terms` keeps it: sorted, read from a prefix on. */
function wordList(words: string[]) {
  const sorted = words.map(spellWord).sort();
  const asked: string[] = [];
  const read = (prefix: string, limit: number) => {
    asked.push(prefix);
    return sorted.filter((word) => word.startsWith(prefix)).slice(0, limit);
  };
  return { read, asked };
}

describe('a query term reaches the full-text index', () => {
  const words = wordList(['engineer', 'engineering', 'engineers', 'engine', 'leadership', 'мария']);

  it('up to the indexed prefix length: a prefix-index read, without looking at the word list', () => {
    const fresh = wordList(['engineer']);
    expect(LONGEST_INDEXED_PREFIX).toBe(3);
    expect(matchExpression(prepareQuery('eng'), fresh.read)).toBe('"eng"*');
    expect(matchExpression(prepareQuery('a'), fresh.read)).toBe('"a"*');
    expect(matchExpression(prepareQuery('z'), fresh.read)).toBe('"zz"*');
    expect(fresh.asked).toEqual([]);
  });

  it('longer: the OR of the words it starts, the exact word among them', () => {
    expect(matchExpression(prepareQuery('engineer'), words.read)).toBe(
      '("engineer" OR "engineering" OR "engineers")',
    );
    expect(matchExpression(prepareQuery('Leadership'), words.read)).toBe('("leadership")');
    // Three letters of another script are fifteen spelled characters: a long term.
    expect(matchExpression(prepareQuery('Мар'), words.read)).toBe(`("${spellWord('мария')}")`);
  });

  it('every term of a query, joined by AND; a term no word starts matches nothing', () => {
    expect(matchExpression(prepareQuery('lead eng'), words.read)).toBe('("leadership") AND "eng"*');
    expect(matchExpression(prepareQuery('engineer nowhere'), words.read)).toBeNull();
    expect(matchExpression(prepareQuery('  !! '), words.read)).toBeNull();
  });

  it('a long prefix shared by more words than the bound keeps FTS5 merging them', () => {
    const many = wordList(Array.from({ length: MAX_EXPANDED_WORDS + 1 }, (_, i) => `engine${i}`));
    expect(matchExpression(prepareQuery('engine'), many.read)).toBe('"engine"*');
    expect(matchExpression(prepareQuery('engine1'), many.read)).toMatch(/^\("engine1" OR /);
    expect(matchExpression(prepareQuery('engineer'), words.read, 2)).toBe('"engineer"*');
  });
});
