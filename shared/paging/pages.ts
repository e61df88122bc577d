/**
 * The start- and offset-based paging shapes of the spec, from a window of a list.
 */

import { MAX_OFFSET } from '../../schemas/envelope.js';
import { PAGE_SIZE } from '../../schemas/operations/data-lookup.js';
import type { SearchWindow, Window } from '../sources/data-source.js';

export { PAGE_SIZE };

/** Skills and company interests: `start`, `count`, `returned`, `hasMore`, `nextStart`. */
export function startPage<T>(start: number, window: Window<T>) {
  const returned = window.items.length;
  const hasMore = start + returned < window.total;
  return {
    items: window.items,
    paging: { start, count: PAGE_SIZE, returned, hasMore, nextStart: hasMore ? start + returned : null },
  };
}

/**
 * Company and domain search: `offset`, `limit`, `returned`, `hasMore`, `nextOffset`. The spec caps
 * offset at 10000, so a next page past it is not announced.
 */
export function offsetPage<T>(offset: number, window: SearchWindow<T>) {
  const returned = window.items.length;
  const next = offset + returned;
  const more = 'total' in window ? next < window.total : window.hasMore;
  const hasMore = more && next <= MAX_OFFSET;
  return {
    items: window.items,
    paging: { offset, limit: PAGE_SIZE, returned, hasMore, nextOffset: hasMore ? next : null },
  };
}
