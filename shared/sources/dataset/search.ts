/**
 * Keyword relevance for every search of the dataset (people, companies, schools, posts, jobs,
 * locations, industries, typeahead, all results), written once. Scoring is deliberately simple and
 * explainable: an exact name beats a name prefix, which beats name words, which beat a hit anywhere
 * in the describing text. Ties fall to a weight (followers, reactions), then a stable key, so the
 * same query always answers in the same order.
 */

export interface SearchDoc {
  /** Names the query may equal or start: the strongest evidence. */
  names: readonly string[];
  /** Describing text a keyword may hit (description, headline, specialties…). */
  texts: readonly (string | null)[];
  /** Higher wins a tie in relevance. */
  weight: number;
  /** Last tie-break: a stable, unique id. */
  key: string;
}

export const Relevance = { none: 0, text: 1, nameWords: 2, namePrefix: 3, exactName: 4 } as const;

/** Case, accents and punctuation do not matter: "Café-München" reads as "cafe munchen". */
export function normalizeText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const wordsOf = (normalized: string) => (normalized ? normalized.split(' ') : []);

/** The words keyword search sees in a text. */
export const textWords = (text: string) => wordsOf(normalizeText(text));

/** Every query term starts some word ("soft dev" covers "Software Development"). */
const covers = (terms: readonly string[], words: readonly string[]) =>
  terms.every((term) => words.some((word) => word.startsWith(term)));

/**
 * Normalized forms of the dataset's own strings, computed once: every search used to re-normalize
 * every record (a quarter of a search's CPU). Queries are not cached (they are unbounded); the
 * dataset's strings are a fixed set, and the cap only guards against a much larger imported one.
 */
const prepared = new Map<string, { normalized: string; words: string[] }>();
const MAX_PREPARED = 200_000;

function prepare(text: string): { normalized: string; words: string[] } {
  let entry = prepared.get(text);
  if (!entry) {
    const normalized = normalizeText(text);
    entry = { normalized, words: wordsOf(normalized) };
    if (prepared.size >= MAX_PREPARED) prepared.clear();
    prepared.set(text, entry);
  }
  return entry;
}

/** A query read once: its normalized form and its terms (empty: the query matches nothing). */
export interface PreparedQuery {
  normalized: string;
  terms: string[];
}

export function prepareQuery(query: string): PreparedQuery {
  const normalized = normalizeText(query);
  return { normalized, terms: wordsOf(normalized) };
}

/**
 * What names alone say: an exact name, a name the query starts, or names covering every term; none
 * otherwise. The dataset database asks this of the rows its full-text index already matched.
 */
export function nameRelevance(query: PreparedQuery, names: readonly string[]): number {
  const prepared = names.map(prepare);
  if (prepared.some((name) => name.normalized === query.normalized)) return Relevance.exactName;
  if (prepared.some((name) => name.normalized.startsWith(query.normalized))) return Relevance.namePrefix;
  return covers(
    query.terms,
    prepared.flatMap((name) => name.words),
  )
    ? Relevance.nameWords
    : Relevance.none;
}

export function relevance(query: string, doc: SearchDoc): number {
  const prepared = prepareQuery(query);
  if (prepared.terms.length === 0) return Relevance.none;
  const byName = nameRelevance(prepared, doc.names);
  if (byName !== Relevance.none) return byName;
  const words = [...doc.names, ...doc.texts].flatMap((text) => (text ? prepare(text).words : []));
  return covers(prepared.terms, words) ? Relevance.text : Relevance.none;
}

export interface Scored<T> {
  item: T;
  score: number;
  weight: number;
  key: string;
}

/** Best first: higher score, then higher weight, then the smaller key (plain comparison, no locale). */
export function byScore<T>(a: Scored<T>, b: Scored<T>): number {
  return b.score - a.score || b.weight - a.weight || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** Items with a positive score, best first. Also orders "similar" lists, which score differently. */
export function ordered<T>(scored: Scored<T>[]): T[] {
  return scored
    .filter((entry) => entry.score > 0)
    .sort(byScore)
    .map((entry) => entry.item);
}

/** The items the query matches, most relevant first; nothing matched is an empty list. */
export function rank<T>(items: readonly T[], query: string, describe: (item: T) => SearchDoc): T[] {
  return ordered(
    items.map((item) => {
      const doc = describe(item);
      return { item, score: relevance(query, doc), weight: doc.weight, key: doc.key };
    }),
  );
}
