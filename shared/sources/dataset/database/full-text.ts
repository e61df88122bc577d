/**
 * How keyword search's words reach SQLite's full-text index without changing meaning. search.ts
 * decides what a word is (normalizeText: letters and digits of any script, accents dropped); FTS5's
 * own tokenizers would split some of those words differently. So every word is spelled in ASCII
 * letters and digits by a prefix-free code before it is indexed — a-y and 0-9 stand for themselves,
 * "z" is "zz", any other character "z" + its code point in four base-36 digits (never starting with
 * "z") — and FTS5's ascii tokenizer sees exactly our words. A prefix-free code keeps prefixes: a
 * term's spelling starts a word's spelling exactly when the term starts the word, so the index's
 * prefix queries ("term"*) answer what search.ts's "every term starts some word" asks.
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

/** The MATCH expression for a prepared query: every term starts some word (null: no terms). */
export function matchExpression(query: PreparedQuery): string | null {
  if (query.terms.length === 0) return null;
  return query.terms.map((term) => `"${spellWord(term)}"*`).join(' AND ');
}
