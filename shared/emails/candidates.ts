/**
 * Candidate addresses for email find: names normalized (case, accents transliterated, apostrophes
 * dropped, hyphens and particles handled), then patterns in order of how common they are in company
 * mail systems (first.last and first lead by far; initials and reversed orders follow). At most 16.
 */

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

/** Letters a decomposition cannot reduce to ASCII, spelled as mail systems usually do. */
const TRANSLITERATIONS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  ø: 'o',
  œ: 'oe',
  đ: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
};

/** Lower-case ASCII words of a name part: "Zoë-Anne O'Neil" → ["zoe", "anne", "oneil"]. */
export function nameWords(name: string): string[] {
  const ascii = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßæøœđłþı]/g, (letter) => TRANSLITERATIONS[letter] ?? letter)
    .replace(/['’`´]/g, '');
  return ascii.split(/[^a-z0-9]+/).filter((word) => word !== '');
}

export interface NameParts {
  first: string;
  /** The first name as its words, for hyphenated first names ("jean-luc" → jeanluc, jean). */
  firstVariants: string[];
  /** Surname spellings, most likely first: particles joined, then the surname without them. */
  lastVariants: string[];
}

export function nameParts(firstName: string, lastName?: string): NameParts | null {
  const firstWords = nameWords(firstName);
  if (firstWords.length === 0) return null;
  const first = firstWords.join('');
  const firstVariants = unique([first, firstWords.join('-'), firstWords[0] as string]);
  const lastWords = lastName ? nameWords(lastName) : [];
  const core = lastWords.filter((word) => !PARTICLES.has(word));
  const lastVariants =
    lastWords.length === 0
      ? []
      : unique([lastWords.join(''), core.join(''), core.at(-1) ?? '', lastWords.join('-')].filter(Boolean));
  return { first, firstVariants, lastVariants };
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
  if (parts.lastVariants.length === 0) {
    for (const first of parts.firstVariants) add('first', first);
    return found.slice(0, MAX_CANDIDATES);
  }
  const ordered = preferredPattern
    ? [
        ...PATTERNS.filter(([name]) => name === preferredPattern),
        ...PATTERNS.filter(([name]) => name !== preferredPattern),
      ]
    : PATTERNS;
  // The leading patterns with every spelling of the surname (particles joined, dropped, hyphenated),
  // then the rarer patterns with its main spelling only.
  ordered.forEach(([name, pattern], rank) => {
    const lasts = rank < LEADING_PATTERNS ? parts.lastVariants : parts.lastVariants.slice(0, 1);
    for (const last of lasts) add(name, pattern(parts.first, last));
  });
  return found.slice(0, MAX_CANDIDATES);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
