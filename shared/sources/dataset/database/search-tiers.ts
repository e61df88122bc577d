/**
 * Keyword search over a dataset database, in search.ts's tiers in order — exact name, name prefix
 * (the names index), name words (the names' FTS5 index), text (the all-words FTS5 index, minus rows
 * whose names match) — each read in rank order and stopped once a page is full, so its cost follows
 * the page, not the number of matches. The searches of database-reader.ts are built on it.
 */

import { byScore, type PreparedQuery, prepareQuery, Relevance, type Scored } from '../search.js';
import type { DatasetConnection, Parameters } from './dataset-connection.js';
import { AFTER_SPELLED_WORDS, MAX_EXPANDED_WORDS, matchExpression } from './full-text.js';
import type { FullTextKind } from './schema.js';

/** Above every character: names starting with q sort between q and q + this. */
const LAST_CHARACTER = String.fromCodePoint(0x10ffff);
/** Records sharing a name prefix up to which the prefix tier sorts them; beyond, it walks the ranks. */
const SORTED_PREFIXES = 2_000;
/** Staff counts up to which people search scores the staff directly rather than through the index. */
export const DIRECTLY_SCORED = 20_000;

/** The limits choosing between two ways of a search; tests lower them to reach both ways. */
export interface SearchLimits {
  directlyScored: number;
  sortedPrefixes: number;
  /** Most words a long query term is written out as before FTS5 merges them itself (full-text.ts). */
  expandedWords: number;
}

export const defaultSearchLimits: SearchLimits = {
  directlyScored: DIRECTLY_SCORED,
  sortedPrefixes: SORTED_PREFIXES,
  expandedWords: MAX_EXPANDED_WORDS,
};

/** Narrows a search: SQL over the record's rank row `r` and, when `readsRecord`, its table row `e`. */
export interface Filter {
  sql: string;
  parameters: Parameters;
  readsRecord: boolean;
}

/** A matched record: its rank (tie order) and relevance tier. */
export interface Hit {
  rank: number;
  score: number;
}

/**
 * The joins a filter needs from a rank (`rank` is the column holding it). CROSS JOIN keeps the rank
 * source as the outer loop: left to itself the planner drives from a filter's IN list and re-runs
 * the full-text query once per row (224 ms instead of 2 for a filtered company search at 1M).
 */
function narrowing(kind: FullTextKind, rank: string, filter: Filter | undefined): string {
  if (!filter) return '';
  const record = filter.readsRecord ? ` CROSS JOIN ${kind} e ON e.seq = r.seq` : '';
  return `CROSS JOIN ${kind}_rank r ON r.rank = ${rank}${record}`;
}

export class TieredSearch {
  constructor(
    private readonly connection: DatasetConnection,
    readonly limits: SearchLimits,
  ) {}

  /** The query's MATCH expression over a kind's indexes (full-text.ts); null: it matches nothing. */
  match(kind: FullTextKind, query: PreparedQuery): string | null {
    return matchExpression(
      query,
      (prefix, limit) =>
        this.connection
          .rows(
            `SELECT term FROM ${kind}_terms WHERE term >= :prefix AND term < :end ORDER BY term LIMIT :limit`,
            {
              prefix,
              end: `${prefix}${AFTER_SPELLED_WORDS}`,
              limit,
            },
          )
          .map((row) => String(row.term)),
      this.limits.expandedWords,
    );
  }

  /**
   * The ranks of a kind's records the query matches, best first, up to `need`: the exact-name and
   * name-prefix tiers from the names index, then the name-words and text tiers from the full-text
   * index read in rank order, each stopping as soon as enough rows are found. `filter` narrows the
   * rows (see Filter).
   */
  ranks(kind: FullTextKind, query: PreparedQuery, need: number, filter?: Filter): Hit[] {
    if (need <= 0) return [];
    const all = this.match(kind, query);
    if (all === null) return [];
    const where = filter?.sql ?? '';
    const range = { query: query.normalized, end: `${query.normalized}${LAST_CHARACTER}` };
    const hits: Hit[] = [];
    const take = (score: number, sql: string, parameters: Parameters) => {
      if (hits.length >= need) return;
      const rows = this.connection.rows(sql, {
        ...filter?.parameters,
        ...parameters,
        need: need - hits.length,
      });
      for (const row of rows) hits.push({ rank: Number(row.rank), score });
    };
    const names = `${kind}_names`;
    const startsName = (rank: string) =>
      `EXISTS (SELECT 1 FROM ${names} p WHERE p.rank = ${rank} AND p.name >= :query AND p.name < :end)`;
    take(
      Relevance.exactName,
      `SELECT DISTINCT n.rank AS rank FROM ${names} n ${narrowing(kind, 'n.rank', filter)}
         WHERE n.name = :query ${where} ORDER BY n.rank LIMIT :need`,
      { query: query.normalized },
    );
    const exactName = `EXISTS (SELECT 1 FROM ${names} x WHERE x.rank = RANK AND x.name = :query)`;
    // A name prefix few names share is read from the names index and sorted; one many share (a single
    // letter) is found faster walking the ranks in order until enough records start a name with it.
    const prefixed = this.connection.count(
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${names} WHERE name >= :query AND name < :end LIMIT ${this.limits.sortedPrefixes + 1})`,
      range,
    );
    take(
      Relevance.namePrefix,
      prefixed <= this.limits.sortedPrefixes
        ? `SELECT DISTINCT n.rank AS rank FROM ${names} n ${narrowing(kind, 'n.rank', filter)}
             WHERE n.name >= :query AND n.name < :end AND NOT ${exactName.replace('RANK', 'n.rank')} ${where}
             ORDER BY n.rank LIMIT :need`
        : `SELECT r.rank AS rank FROM ${kind}_rank r ${filter?.readsRecord ? `CROSS JOIN ${kind} e ON e.seq = r.seq` : ''}
             WHERE ${startsName('r.rank')} AND NOT ${exactName.replace('RANK', 'r.rank')} ${where}
             ORDER BY r.rank LIMIT :need`,
      range,
    );
    const nameFts = `${kind}_name_fts`;
    take(
      Relevance.nameWords,
      `SELECT ${nameFts}.rowid AS rank FROM ${nameFts} ${narrowing(kind, `${nameFts}.rowid`, filter)}
         WHERE ${nameFts} MATCH :match AND NOT ${startsName(`${nameFts}.rowid`)} ${where}
         ORDER BY ${nameFts}.rowid LIMIT :need`,
      { ...range, match: all },
    );
    // Text hits: every match whose names do not hold the terms, in rank order (few rows are read).
    const fts = `${kind}_fts`;
    const text = filter
      ? narrowing(kind, `${fts}.rowid`, filter)
      : `CROSS JOIN ${kind}_rank r ON r.rank = ${fts}.rowid`;
    take(
      Relevance.text,
      `SELECT ${fts}.rowid AS rank FROM ${fts} ${text}
         WHERE ${fts} MATCH :match AND name_relevance(:query, r.doc) = 0 ${where}
         ORDER BY ${fts}.rowid LIMIT :need`,
      { query: query.normalized, match: all },
    );
    return hits;
  }

  /** How many of a kind's records the query matches (within `filter`). */
  matchCount(kind: FullTextKind, query: PreparedQuery, filter?: Filter): number {
    const all = this.match(kind, query);
    if (all === null) return 0;
    const fts = `${kind}_fts`;
    return this.connection.count(
      `SELECT count(*) AS n FROM ${fts} ${narrowing(kind, `${fts}.rowid`, filter)}
         WHERE ${fts} MATCH :match ${filter?.sql ?? ''}`,
      { ...filter?.parameters, match: all },
    );
  }

  /** The records of hits, in their order, with what a mixed search sorts them by. */
  records<T>(kind: FullTextKind, hits: readonly Hit[]): Scored<T>[] {
    return hits.map((hit) => {
      const [row] = this.connection.rows(
        `SELECT e.body, r.weight, r.key FROM ${kind}_rank r JOIN ${kind} e ON e.seq = r.seq WHERE r.rank = :rank`,
        { rank: hit.rank },
      );
      return {
        item: JSON.parse(String(row?.body)) as T,
        score: hit.score,
        weight: Number(row?.weight),
        key: String(row?.key),
      };
    });
  }

  /** The best `limit` records of one kind. */
  top<T>(kind: FullTextKind, keywords: string, limit: number): T[] {
    return this.records<T>(kind, this.ranks(kind, prepareQuery(keywords), limit)).map((entry) => entry.item);
  }

  /** The best of several kinds: the best `limit` overall are among each kind's best `limit`. */
  mixed<H extends { type: string; record: unknown }>(
    kinds: readonly [FullTextKind, H['type']][],
    keywords: string,
    limit: number,
  ): H[] {
    const query = prepareQuery(keywords);
    return kinds
      .flatMap(([kind, type]) =>
        this.records<H['record']>(kind, this.ranks(kind, query, limit)).map((entry) => ({
          ...entry,
          item: { type, record: entry.item } as H,
        })),
      )
      .sort(byScore)
      .slice(0, limit)
      .map((entry) => entry.item);
  }
}
