/**
 * How keyword search's words reach SQLite's full-text index without changing meaning. search.ts
 * decides what a word is (normalizeText: letters and digits of any script, accents dropped); FTS5's
 * own tokenizers would split some of those words differently. So every word is spelled in ASCII
 * letters and digits by a prefix-free code before it is indexed — a-y and 0-9 stand for themselves,
 * "z" is "zz", any other character "z" + its code point in four base-36 digits (never starting with
 * "z") — and FTS5's ascii tokenizer sees exactly our words. A prefix-free code keeps prefixes: a
 * term's spelling starts a word's spelling exactly when the term starts the word, so the index's
 * prefix queries ("term"*) answer what search.ts's "every term starts some word" asks.
 *
 * How a prefix is read decides what a search costs. FTS5 answers `"term"*` by merging the posting
 * lists of every indexed word with that prefix before the first row comes out (about 25–100 ms for
 * "engineer" at 1M profiles, however small the page), except for a prefix length it keeps an index
 * of. So a short term (up to LONGEST_INDEXED_PREFIX spelled characters) is read from FTS5's own
 * prefix index, and a longer one is written out as the OR of the indexed words it starts (read from
 * the kind's word list, `<kind>_terms`), which FTS5 reads incrementally in rank order like any word:
 * both stop once a page is full. Only a long prefix that starts more than MAX_EXPANDED_WORDS words
 * falls back to the merging form (a rare query: prefixes of four or more characters shared by that
 * many words). Every form matches exactly the same rows.
 */
import type { PreparedQuery } from '../search.js';

function spellCharacter(character: string): string {
  if (/^[a-y0-9]$/.test(character)) return character;
  if (character === 'z') return 'zz';
  return `z${(character.codePointAt(0) ?? 0).toString(36).padStart(4, '0')}`;
}

/** One word of normalizeText's output, spelled for the index. */
export function spellWord(word: string): string {
  let spelled = '';
  for (const character of word) spelled += spellCharacter(character);
  return spelled;
}

/** A column's text for the index: the words of every text, spelled, space-separated. */
export function indexedWords(words: readonly string[]): string {
  return words.map(spellWord).join(' ');
}

/** Prefix lengths (spelled characters) FTS5 indexes itself: the index tables' `prefix=` option. */
export const LONGEST_INDEXED_PREFIX = 3;
export const indexedPrefixes = Array.from({ length: LONGEST_INDEXED_PREFIX }, (_, i) => i + 1).join(' ');

/** Most words a longer prefix is written out as by default; beyond, FTS5 merges them itself. */
export const MAX_EXPANDED_WORDS = 64;

/**
 * The indexed words starting with a spelled prefix, in order, at most `limit`: what the caller reads
 * from the kind's word list.
 */
export type WordsStartingWith = (prefix: string, limit: number) => readonly string[];

/** The words a spelled prefix can start: every spelled character is below this one ("{"). */
export const AFTER_SPELLED_WORDS = '{';

/** The MATCH expression for one term: a prefix index read, the words it starts, or none (null). */
function termExpression(term: string, wordsStartingWith: WordsStartingWith, maxWords: number): string | null {
  const spelled = spellWord(term);
  if (spelled.length <= LONGEST_INDEXED_PREFIX) return `"${spelled}"*`;
  const words = wordsStartingWith(spelled, maxWords + 1);
  if (words.length === 0) return null;
  if (words.length > maxWords) return `"${spelled}"*`;
  return `(${words.map((word) => `"${word}"`).join(' OR ')})`;
}

/**
 * The MATCH expression for a prepared query, every term starting some word; null when it can match
 * nothing (no terms, or a term no indexed word starts). `maxWords`: most words a long term is
 * written out as (MAX_EXPANDED_WORDS; tests lower it to reach the merging form).
 */
export function matchExpression(
  query: PreparedQuery,
  wordsStartingWith: WordsStartingWith,
  maxWords = MAX_EXPANDED_WORDS,
): string | null {
  if (query.terms.length === 0) return null;
  const terms: string[] = [];
  for (const term of query.terms) {
    const expression = termExpression(term, wordsStartingWith, maxWords);
    if (expression === null) return null;
    terms.push(expression);
  }
  return terms.join(' AND ');
}
