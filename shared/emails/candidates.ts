/**
 * Candidate addresses for email find: names spelled in ASCII (any script, by transliteration;
 * German umlauts both as ae/oe/ue and as plain vowels; apostrophes dropped; hyphens and particles
 * handled), then patterns in order of how common they are in company mail systems (first.last and
 * first lead by far; initials and reversed orders follow). At most 16.
 */
import { InvalidRequestError } from '../errors.js';
import { asciiSpelling } from '../text/ascii-spelling.js';

export const MAX_CANDIDATES = 16;

/** Name particles that are part of a surname ("van der Berg" → "vanderberg" and "berg"). */
const PARTICLES = new Set([
  'van',
  'der',
  'den',
  'de',
  'del',
  'della',
  'di',
  'da',
  'dos',
  'das',
  'du',
  'von',
  'zu',
  'le',
  'la',
  'el',
  'al',
  'bin',
  'ter',
  'ten',
  'st',
]);

/** German mail systems write umlauts as ae/oe/ue; others (and many people) drop the dots. */
const UMLAUTS: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' };

/**
 * The lower-case ASCII words of a name part, one list per spelling, most likely first:
 * "Müller" → [["mueller"], ["muller"]], "Иван" → [["ivan"]], "O'Neil" → [["oneil"]]. Empty when
 * no spelling has a word (a script the transliteration does not know).
 */
export function nameSpellings(name: string): string[][] {
  const composed = name.normalize('NFC');
  const spellings = [composed.replace(/[äöüÄÖÜ]/g, (letter) => UMLAUTS[letter] ?? letter), composed];
  const words = spellings.map((spelling) =>
    asciiSpelling(spelling)
      .replace(/['`]/g, '')
      .split(/[^a-z0-9]+/)
      .filter((word) => word !== ''),
  );
  // One entry per distinct spelling ("Jane" has only one), in order.
  const distinct = new Map(words.filter((list) => list.length > 0).map((list) => [list.join(' '), list]));
  return [...distinct.values()];
}

/** One way to spell the whole name: its first name and the spellings of its surname. */
interface NameSpelling {
  first: string;
  /** The first name as its words, for hyphenated first names ("jean-luc" → jeanluc, jean). */
  firstVariants: string[];
  /** Surname spellings, most likely first: particles joined, then the surname without them. */
  lastVariants: string[];
}

export interface NameParts {
  /** Most likely first; first and last name share one convention (both ae/oe/ue, or both plain). */
  spellings: NameSpelling[];
}

/** The parts of a name from the spellings of its first and (optional) last name; first is non-empty. */
export function nameParts(firstSpellings: string[][], lastSpellings: string[][]): NameParts {
  const count = Math.max(firstSpellings.length, lastSpellings.length);
  const spellings = Array.from({ length: count }, (_, convention) => {
    const firstWords = firstSpellings[Math.min(convention, firstSpellings.length - 1)] ?? [];
    const lastWords = lastSpellings[Math.min(convention, lastSpellings.length - 1)] ?? [];
    const first = firstWords.join('');
    const core = lastWords.filter((word) => !PARTICLES.has(word));
    return {
      first,
      firstVariants: unique([first, firstWords.join('-'), firstWords[0] ?? '']),
      lastVariants:
        lastWords.length === 0
          ? []
          : unique([lastWords.join(''), core.join(''), core.at(-1) ?? '', lastWords.join('-')]),
    };
  });
  return { spellings };
}

type Pattern = (first: string, last: string) => string;

/** Most common first (industry studies of corporate address formats agree on this order). */
const PATTERNS: [string, Pattern][] = [
  ['first.last', (f, l) => `${f}.${l}`],
  ['first', (f) => f],
  ['flast', (f, l) => `${f[0]}${l}`],
  ['firstlast', (f, l) => `${f}${l}`],
  ['f.last', (f, l) => `${f[0]}.${l}`],
  ['first_last', (f, l) => `${f}_${l}`],
  ['last', (_, l) => l],
  ['firstl', (f, l) => `${f}${l[0]}`],
  ['last.first', (f, l) => `${l}.${f}`],
  ['lastf', (f, l) => `${l}${f[0]}`],
  ['first-last', (f, l) => `${f}-${l}`],
  ['lastfirst', (f, l) => `${l}${f}`],
  ['first.l', (f, l) => `${f}.${l[0]}`],
  ['fl', (f, l) => `${f[0]}${l[0]}`],
  ['last_first', (f, l) => `${l}_${f}`],
  ['l.first', (f, l) => `${l[0]}.${f}`],
];

/** How many of the most common patterns are tried with every spelling of the surname. */
const LEADING_PATTERNS = 4;

export interface Candidate {
  address: string;
  pattern: string;
}

/**
 * Up to 16 candidates in order; `preferredPattern` (what worked on this domain before) goes first.
 * Without a last name only first-name addresses are tried.
 */
export function candidates(parts: NameParts, domain: string, preferredPattern?: string): Candidate[] {
  const found: Candidate[] = [];
  const add = (pattern: string, local: string) => {
    const address = `${local}@${domain}`;
    if (local !== '' && local.length <= 64 && !found.some((candidate) => candidate.address === address)) {
      found.push({ address, pattern });
    }
  };
  const { spellings } = parts;
  if (spellings.every((spelling) => spelling.lastVariants.length === 0)) {
    const longest = Math.max(...spellings.map((spelling) => spelling.firstVariants.length));
    for (let rank = 0; rank < longest; rank++) {
      for (const spelling of spellings) add('first', spelling.firstVariants[rank] ?? '');
    }
    return found.slice(0, MAX_CANDIDATES);
  }
  const ordered = preferredPattern
    ? [
        ...PATTERNS.filter(([name]) => name === preferredPattern),
        ...PATTERNS.filter(([name]) => name !== preferredPattern),
      ]
    : PATTERNS;
  const everySpelling = spellings.flatMap((spelling) =>
    spelling.lastVariants.map((last) => ({ first: spelling.first, last })),
  );
  const mainSpelling = everySpelling.slice(0, 1);
  // The leading patterns with every spelling (umlaut conventions; particles joined, dropped,
  // hyphenated), then the rarer patterns with the most likely spelling only.
  ordered.forEach(([name, pattern], rank) => {
    for (const { first, last } of rank < LEADING_PATTERNS ? everySpelling : mainSpelling) {
      add(name, pattern(first, last));
    }
  });
  return found.slice(0, MAX_CANDIDATES);
}

/** Distinct non-empty values, in order. */
function unique(values: string[]): string[] {
  return [...new Set(values)].filter(Boolean);
}

/** Who to find an address for, and where. */
export interface FindInput {
  firstName: string;
  lastName?: string;
  domain: string;
}

/**
 * The name's parts in ASCII, when they make at least one candidate. A name no spelling can write in
 * an address (an unknown script, or a romanization past 64 characters) is the client's error, not a
 * search that found nothing: the pipeline asks this before admission (`refuseInput`), so it costs
 * nothing.
 */
export function addressableName({ firstName, lastName, domain }: FindInput): NameParts {
  const first = nameSpellings(firstName);
  const last = lastName === undefined ? [] : nameSpellings(lastName);
  const sent = lastName === undefined ? ['firstName'] : ['firstName', 'lastName'];
  const unspellable = sent.filter((field) => (field === 'firstName' ? first : last).length === 0);
  if (unspellable.length > 0) {
    throw new InvalidRequestError(
      unspellable.map((field) => ({
        field,
        code: 'invalid_value',
        message: `${field} has no letters that can be spelled in Latin letters for an email address.`,
      })),
    );
  }
  const parts = nameParts(first, last);
  if (candidates(parts, domain).length > 0) return parts;
  throw new InvalidRequestError(
    sent.map((field) => ({
      field,
      code: 'invalid_value',
      message: `${field} spelled in Latin letters makes no address of at most 64 characters.`,
    })),
  );
}
