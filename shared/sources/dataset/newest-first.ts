/**
 * The one order of activity and jobs, wherever a dataset is built (generated in memory, generated
 * in batches, loaded from files): newest first, equal times in creation order by internalId (plain
 * comparison, no locale). The dataset database orders them the same way.
 */

/** Sorts `items` in place and returns them; each time is parsed once, not once per comparison. */
export function newestFirst<T extends { internalId: string }>(items: T[], when: (item: T) => string): T[] {
  const timed = items.map((item) => ({ item, time: Date.parse(when(item)) }));
  timed.sort((a, b) => b.time - a.time || (a.item.internalId < b.item.internalId ? -1 : 1));
  timed.forEach(({ item }, index) => {
    items[index] = item;
  });
  return items;
}
