/**
 * The bound on what one tool result may make an agent hold: the characters of its text blocks and of
 * its `structuredContent` (as JSON) together, `MCP_RESULT_MAX_CHARS` (64,000 by default: about
 * 16,000 to 21,000 tokens, under the 25,000 at which Claude Code refuses a result). A success over it
 * has the longest field of its `data` (a list, or a text such as a page's HTML) cut from the end to
 * what fits, never silently:
 * - a page with positional paging (`start`, `offset`) gets paging fields that continue right after
 *   the last item kept (`returned`, `hasMore: true`, `nextStart`/`nextOffset`), so the next call
 *   returns exactly what was cut;
 * - a cursor page, a list without paging and a text cannot be continued from inside the answer (a
 *   cursor moves by whole pages of its source): the cut is told in the text and in `_meta`, with how
 *   much was left out, and the agent is told to narrow the request (REST answers are never cut).
 * docs/benchmarks.md measures the largest result of every tool at 1M profiles against the bound.
 */
import type { PagingStyle } from '../../schemas/envelope.js';
import { MAX_OFFSET } from '../../schemas/envelope.js';

/** Room a cut result keeps for the line that tells of the cut. */
const NOTICE_RESERVE = 300;

/** What a cut left out, for `_meta` and the text. */
export interface ResultCut {
  /** The field that was cut, as a path in the body (`data.posts`, `data.html`). */
  field: string;
  /** Items of a list, characters of a text. */
  unit: 'items' | 'characters';
  kept: number;
  omitted: number;
  /** Whether the paging fields continue right after the last item kept. */
  continues: boolean;
}

type Body = { data?: unknown; meta?: { paging?: Record<string, unknown> } & Record<string, unknown> };

/**
 * The body cut to fit `maxChars`, with what was cut; the body itself when it fits or has no list to
 * cut. `size` gives the size of the result a body makes.
 */
export function cutToFit(
  body: Body,
  paging: PagingStyle,
  maxChars: number,
  size: (body: Body) => number,
): { body: Body; cut?: ResultCut } {
  if (size(body) <= maxChars) return { body };
  const field = longestField(body.data);
  if (!field) return { body };
  const value = (body.data as Record<string, unknown[] | string>)[field] as unknown[] | string;
  const isList = Array.isArray(value);
  const withLength = (length: number) =>
    isList
      ? cutBody(body, field, value.slice(0, length), paging)
      : { ...body, data: { ...(body.data as object), [field]: value.slice(0, length) } };
  // The longest prefix that fits, found by halving: sizes grow with the length.
  let [low, high] = [0, value.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (size(withLength(middle)) <= maxChars - NOTICE_RESERVE) low = middle;
    else high = middle - 1;
  }
  return {
    body: withLength(low),
    cut: {
      field: `data.${field}`,
      unit: isList ? 'items' : 'characters',
      kept: low,
      omitted: value.length - low,
      continues: isList && (paging === 'start' || paging === 'offset'),
    },
  };
}

/** The line the text gains when a result was cut. */
export function cutNotice(cut: ResultCut, maxChars: number): string {
  const what = `Cut to ${cut.kept} of ${cut.kept + cut.omitted} ${cut.unit} of ${cut.field} to fit the ${maxChars.toLocaleString('en-US')}-character result bound`;
  return cut.continues
    ? `${what}; call again with meta.paging's next position for the rest, starting right after the last item shown.`
    : `${what}; the ${cut.omitted} ${cut.unit} left out are not shown: narrow the request (a shorter range, a more specific query) to see them.`;
}

/** The name of the `data` field holding the longest list or text (by JSON length), if any. */
function longestField(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  let longest: { name: string; length: number } | undefined;
  for (const [name, value] of Object.entries(data)) {
    if (!(Array.isArray(value) || typeof value === 'string') || value.length === 0) continue;
    const length = JSON.stringify(value).length;
    if (!longest || length > longest.length) longest = { name, length };
  }
  return longest?.name;
}

function cutBody(body: Body, list: string, items: unknown[], paging: PagingStyle): Body {
  const data = { ...(body.data as Record<string, unknown>), [list]: items };
  const current = body.meta?.paging;
  if (!current || (paging !== 'start' && paging !== 'offset')) return { ...body, data };
  const from = Number(paging === 'start' ? current.start : current.offset);
  const next = from + items.length;
  const field = paging === 'start' ? 'nextStart' : 'nextOffset';
  // Offsets past the spec's cap cannot be asked for, so a next page there is not announced.
  const reachable = paging === 'start' || next <= MAX_OFFSET;
  const cutPaging = {
    ...current,
    returned: items.length,
    hasMore: reachable,
    [field]: reachable ? next : null,
  };
  return { ...body, data, meta: { ...body.meta, paging: cutPaging } };
}
