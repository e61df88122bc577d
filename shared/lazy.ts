/**
 * Something made once, on first use, and shared: the first call's promise serves every caller. A
 * failed making is forgotten, so the next call tries again (a store briefly unreachable at start-up
 * must not poison the process for its lifetime).
 */
export function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

/**
 * Something made once, at its first use, and kept: for what a cold start may never need (an
 * adapter tool's argument schema, a stored record's schema: made when first read).
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
