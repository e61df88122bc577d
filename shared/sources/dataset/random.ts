/**
 * A tiny seeded PRNG (mulberry32) and the few draws the dataset generator needs. The dataset must be
 * identical on every machine and run, so nothing in the dataset may touch Math.random.
 */

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by relative weight; `weights[i]` belongs to `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T;
  shuffle<T>(items: readonly T[]): T[];
  /**
   * Up to `count` distinct items, in random order. Lists up to SHUFFLE_LIMIT long are shuffled
   * whole (how the built-in sample was always drawn, so it stays the same); longer ones, which
   * only large datasets have, by Floyd's algorithm, whose cost does not grow with the list.
   */
  sample<T>(items: readonly T[], count: number): T[];
  /** `length` characters drawn from `alphabet`. */
  chars(alphabet: string, length: number): string;
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An element known to exist; keeps noUncheckedIndexedAccess honest without `!`. */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new RangeError(`index ${index} is outside a list of ${items.length}`);
  return item;
}

/** Above this length a sample no longer shuffles the whole list. */
export const SHUFFLE_LIMIT = 4096;

export function createRandom(seed: number): Random {
  const next = mulberry32(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const shuffle = <T>(items: readonly T[]): T[] => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = int(0, i);
      [copy[i], copy[j]] = [at(copy, j), at(copy, i)];
    }
    return copy;
  };
  /** Floyd's algorithm: every subset of `count` indices equally likely, one draw each; then shuffled. */
  const sparseSample = <T>(items: readonly T[], count: number): T[] => {
    const picked = new Set<number>();
    for (let last = items.length - Math.min(count, items.length); last < items.length; last++) {
      const index = int(0, last);
      picked.add(picked.has(index) ? last : index);
    }
    return shuffle([...picked].map((index) => at(items, index)));
  };
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: (items) => at(items, int(0, items.length - 1)),
    weighted: (items, weights) => {
      const total = weights.reduce((sum, weight) => sum + weight, 0);
      let roll = next() * total;
      for (let i = 0; i < items.length; i++) {
        roll -= weights[i] ?? 0;
        if (roll < 0) return at(items, i);
      }
      return at(items, items.length - 1);
    },
    shuffle,
    sample: (items, count) =>
      items.length <= SHUFFLE_LIMIT
        ? shuffle(items).slice(0, Math.max(0, count))
        : sparseSample(items, count),
    chars: (alphabet, length) =>
      Array.from({ length }, () => alphabet.charAt(int(0, alphabet.length - 1))).join(''),
  };
}
