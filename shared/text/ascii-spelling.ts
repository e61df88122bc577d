/**
 * The lower-case ASCII spelling of a name or text, shared by email find's candidates and the
 * dataset's slugs and handles. The `transliteration` package romanizes every script it knows
 * (Cyrillic, Greek, CJK as pinyin, Indic, Arabic, Thai, Hangul, kana…) and strips accents; a few of
 * its defaults are overridden where mailboxes and profile handles spell otherwise.
 */
import { transliterate } from 'transliteration';

/**
 * Russian х and ц as passports (ICAO 9303) and most corporate mailboxes spell them (the package
 * writes h and c), and Greek ου as ou (ELOT 743; the package writes oy).
 */
const SPELLINGS: [RegExp, string][] = [
  [/х/g, 'kh'],
  [/ц/g, 'ts'],
  [/ο[υύ]/g, 'ou'],
];

/** "Zoë Müller" → "zoe muller", "Иван Петров" → "ivan petrov", "李" → "li"; unknown letters vanish. */
export function asciiSpelling(text: string): string {
  return transliterate(text.normalize('NFC').toLowerCase(), { replace: SPELLINGS }).toLowerCase();
}
