/**
 * The visible text of a rendered page, by SPEC "Website tools" rule 3: "Scripts, styles, hidden
 * elements, embedded frames and other non-visible content are removed; block elements become line
 * breaks; paragraphs are separated by one blank line; runs of whitespace collapse to one space; text
 * is capped at 2 MiB."
 *
 * `extractVisibleText` runs INSIDE the page: `page.evaluate(extractVisibleText, MAX_VISIBLE_TEXT_CHARS)`.
 * Puppeteer sends only the function's source text, so it must not close over anything in this module
 * (constants are repeated inside it), and it declares no named inner functions or function-valued
 * variables: tsx and esbuild's `keepNames` wrap those in a module-level `__name(...)` helper that does
 * not exist in the page. Helpers are methods of an object literal, which `keepNames` leaves alone; a
 * test bundles this file with `keepNames` and runs the result in Chromium.
 *
 * It walks the rendered DOM itself (computed styles, layout boxes) instead of reading `innerText`, so
 * the rules below are ours and do not move with Chromium releases.
 *
 * What is removed (the element and everything inside it, no line break left behind):
 * - by element: script, style, noscript, template, head/title/meta/link/base; embedded frames and
 *   their fallback content (iframe, frame, frameset, object, embed, portal, fencedframe); graphics and
 *   media (svg, canvas, video, audio, img, picture, map); form-control state (input, textarea, select,
 *   option, optgroup, datalist): a control's value is not text the page publishes, and a closed
 *   select's options are not on screen. Button and label text stays.
 * - by the author's word: the `hidden` attribute, even when a stylesheet overrides its display, and
 *   `hidden="until-found"` (shown only after a find-in-page).
 * - by computed style: `display: none` (which also covers closed dialogs and popovers, `rp`, and
 *   whatever the page's scripts hid after load).
 *
 * What keeps its box (and so its line break) but shows none of its content:
 * - `content-visibility: hidden`, and a closed `<details>` apart from its first `<summary>` (Chromium
 *   hides the rest through a slot the page cannot see, so computed styles would not tell).
 * - visually hidden boxes: overflow clipped (any `overflow` other than `visible`) on an axis where the
 *   box is at most 1 px (the `sr-only` pattern, collapsed accordions with `height: 0`); `clip: rect()`
 *   of at most 1 px on an absolutely or fixed positioned box; `clip-path: inset()` that leaves nothing;
 *   a positioned or transformed box entirely above or left of the document (`left: -9999px`, off-canvas
 *   menus moved out with `translateX(-100%)`), which no scrolling reaches; a fixed box entirely outside
 *   the viewport. In right-to-left documents the left edge is scrollable, so only the top counts there.
 *
 * What is removed per text node: text whose parent's computed `visibility` is not `visible` (hidden and
 * collapse inherit, but a descendant may set `visible` again and is kept, as Chromium draws it), text
 * at `font-size: 0`, and text set in a ligature icon font (font-family Material Icons / Material
 * Symbols: `<i class="material-icons">shopping_cart</i>` draws a cart, not the word).
 *
 * Deliberately kept: `aria-hidden="true"` (it hides from assistive technology, not from the eye:
 * modal and consent libraries put it on the whole page while their dialog is open, and removing it
 * would turn such pages into "no visible text"), `inert`, `opacity: 0` (scroll-reveal libraries start
 * the main content of many pages at opacity 0 until it is scrolled into view, which a headless render
 * never does), zero-size boxes whose overflow is visible, below-the-fold and right-of-the-viewport
 * content (scrollable), the overflow of `html` and `body` (it applies to the viewport, which scrolls),
 * and open shadow roots, which are walked as Chromium renders them (the flat tree: a host shows its
 * shadow tree, a slot shows its assigned nodes or else its fallback children). Not seen: closed shadow roots (the
 * page cannot read them; their host's light children are walked instead), CSS generated content
 * (`::before`/`::after`), image alt text, `text-transform` (text keeps its source casing), and
 * same-colour or off-screen `text-indent` tricks.
 *
 * Layout of the output:
 * - Line breaks come from computed `display`, not tag names, so `li { display: inline }` menus stay
 *   on one line and a `display: block` span gets its own. Block-level boxes (block, flex, grid, table,
 *   list-item, flow-root, table rows and groups, captions; floated and absolutely positioned boxes are
 *   blockified by CSS, and so are flex and grid items) start and end a line. Inline-level boxes
 *   (`inline*`, `contents`, ruby, and MathML inside a formula, whose parts compute to `block math`
 *   but are laid out as one formula) do not; `<math display="block">` does. A table cell is separated
 *   from its neighbours by one space.
 * - Paragraphs, separated by one blank line, are block-level p, h1–h6, blockquote, pre, hr, figure,
 *   table, and lists (ul, ol, menu, dl) that are not nested inside a list item; list items, rows and
 *   other blocks are separated by one line break. Boundaries do not add up: a paragraph inside a
 *   div still gives one blank line, not more.
 * - `<br>` ends the line. Two in a row leave an empty line; a `<br>` at the end of a block adds
 *   nothing, as in the rendering. Where CSS preserves line breaks (`pre`, `pre-wrap`, `pre-line`,
 *   `break-spaces`), each newline in the text is a `<br>`.
 * - Whitespace collapses everywhere, `pre` included: within a line every run of whitespace (JavaScript
 *   `\s`: ASCII whitespace, no-break space, the Unicode space separators, BOM) becomes one space, and
 *   each line is trimmed. Code indentation is therefore lost; line structure is kept.
 * - No leading or trailing blank lines, never more than one blank line in a row. The output contains
 *   only "\n" as line separator.
 * - The text is cut at `maxChars` UTF-16 code units (which also bounds it in code points, the unit JSON
 *   Schema's maxLength counts), never between the halves of a surrogate pair, and trailing whitespace
 *   left by the cut is trimmed. The walk stops once that much text is produced.
 * - A page without visible text yields `text: ''` (the caller's target failure).
 * - The title is `document.title` (which Chromium already strips and collapses), whitespace-collapsed
 *   the same way, cut at 4096 code units like the text, and `null` when empty.
 */

/** SPEC "Website resources": text is a string of at most 2,097,152 characters. */
export const MAX_VISIBLE_TEXT_CHARS = 2_097_152;
/** SPEC "Website resources": title is a string of at most 4096 characters, or null. */
export const MAX_TITLE_CHARS = 4096;

export interface VisibleText {
  title: string | null;
  text: string;
}

/** Runs in the page. Self-contained: see the module header before changing anything here. */
export function extractVisibleText(maxChars: number = 2_097_152): VisibleText {
  const cap = Number.isFinite(maxChars) && maxChars >= 0 ? Math.floor(maxChars) : 2_097_152;

  const REMOVED = new Set(
    (
      'script style noscript template head title meta link base ' +
      'iframe frame frameset object embed portal fencedframe applet ' +
      'svg canvas video audio img picture source track map area ' +
      'input textarea select option optgroup datalist'
    ).split(' '),
  );
  const PARAGRAPHS = new Set('p h1 h2 h3 h4 h5 h6 blockquote pre hr figure table'.split(' '));
  const LISTS = new Set(['ul', 'ol', 'menu', 'dl']);
  const LIST_ITEMS = new Set(['li', 'dd', 'dt']);

  const rtl =
    document.documentElement !== null && getComputedStyle(document.documentElement).direction === 'rtl';

  /** The output, built line by line; only appended to, so the walk can stop at the cap. */
  const out = {
    parts: [] as string[],
    length: 0,
    /** Raw text of the line being built; collapsed when the line ends. */
    line: '',
    /** A non-empty line has been written (no leading blank lines). */
    started: false,
    /** A blank line is owed before the next non-empty line (paragraph boundary, or `<br><br>`). */
    blank: false,
    write(piece: string): void {
      this.parts.push(piece);
      this.length += piece.length;
    },
    /** Ends the current line; `forced` (a `<br>`) turns an empty line into a blank one. */
    endLine(forced: boolean): void {
      const content = this.line.replace(/\s+/g, ' ').trim();
      this.line = '';
      if (content === '') {
        if (forced && this.started) this.blank = true;
        return;
      }
      if (this.started) this.write(this.blank ? '\n\n' : '\n');
      this.write(content);
      this.started = true;
      this.blank = false;
    },
    /** A block boundary: 1 = line break, 2 = blank line. Boundaries merge (the larger wins). */
    boundary(lines: number): void {
      this.endLine(false);
      if (lines >= 2 && this.started) this.blank = true;
    },
    text(data: string, preserveBreaks: boolean): void {
      if (!preserveBreaks) {
        this.line += data;
        return;
      }
      const segments = data.split(/\r\n|\r|\n/);
      segments.forEach((segment, index) => {
        if (index > 0) this.endLine(true);
        this.line += segment;
      });
    },
  };

  /** Whether a rendered box shows nothing of its content (clipped away or unreachably off-screen). */
  const geometry = {
    hidesContent(element: Element, style: CSSStyleDeclaration): boolean {
      // The root's and body's overflow applies to the viewport, which scrolls: they never clip.
      if (element === document.documentElement || element === document.body) return false;
      const display = style.display;
      if (display === 'contents' || display === 'inline') return false;
      const positioned = style.position !== 'static';
      const clipsX = style.overflowX !== 'visible';
      const clipsY = style.overflowY !== 'visible';
      const clip = (style.position === 'absolute' || style.position === 'fixed') && style.clip !== 'auto';
      const clipPath = style.clipPath.startsWith('inset(');
      const transformed = style.transform !== 'none';
      if (!positioned && !clipsX && !clipsY && !clipPath && !transformed) return false;
      const rect = element.getBoundingClientRect();
      if ((clipsX && rect.width <= 1) || (clipsY && rect.height <= 1)) return true;
      if (clip) {
        const edges = style.clip.match(/-?[\d.]+(?=px)|auto/g);
        if (edges && edges.length === 4) {
          const [top, right, bottom, left] = edges.map((edge) =>
            edge === 'auto' ? Number.NaN : Number(edge),
          );
          if (right !== undefined && left !== undefined && right - left <= 1) return true;
          if (bottom !== undefined && top !== undefined && bottom - top <= 1) return true;
        }
      }
      if (clipPath) {
        // inset(<top> [<right> [<bottom> [<left>]]] [round ...]), omitted sides copy the opposite one.
        const inner = style.clipPath.slice('inset('.length).split(/\)| round /)[0] ?? '';
        const [top = '', right = top, bottom = top, left = right] = inner.trim().split(/\s+/);
        const insets = [top, right, bottom, left].map((value, index) => {
          const size = index % 2 === 0 ? rect.height : rect.width;
          if (value.endsWith('%')) return (Number.parseFloat(value) / 100) * size;
          if (value.endsWith('px')) return Number.parseFloat(value);
          return value === '0' ? 0 : Number.NaN;
        });
        const [t = Number.NaN, r = Number.NaN, b = Number.NaN, l = Number.NaN] = insets;
        if (t + b >= rect.height - 1 || l + r >= rect.width - 1) return true;
      }
      if (positioned || transformed) {
        const fixed = style.position === 'fixed';
        const scrollX = fixed ? 0 : window.scrollX;
        const scrollY = fixed ? 0 : window.scrollY;
        if (rect.bottom + scrollY <= 0 && rect.height > 0) return true;
        if (!rtl && rect.right + scrollX <= 0 && rect.width > 0) return true;
        if (fixed && (rect.top >= window.innerHeight || rect.left >= window.innerWidth)) return true;
      }
      return false;
    },
  };

  interface Frame {
    nodes: ArrayLike<Node>;
    index: number;
    /** Line boundary owed when the frame's element ends (0, 1 or 2). */
    after: number;
    /** A table cell: one space after it. */
    cell: boolean;
    /** Text directly inside is drawn: visibility is `visible` and the font has a size. */
    drawn: boolean;
    /** Newlines in the text are line breaks (white-space preserves them). */
    breaks: boolean;
    /** Inside a list item: nested lists are not paragraphs of their own. */
    inItem: boolean;
  }

  const root = document.body ?? document.documentElement;
  const frames: Frame[] = [
    { nodes: root ? [root] : [], index: 0, after: 0, cell: false, drawn: true, breaks: false, inItem: false },
  ];

  while (frames.length > 0 && out.length <= cap) {
    const frame = frames[frames.length - 1] as Frame;
    if (frame.index >= frame.nodes.length) {
      frames.pop();
      if (frame.cell) out.line += ' ';
      if (frame.after > 0) out.boundary(frame.after);
      continue;
    }
    const node = frame.nodes[frame.index] as Node;
    frame.index += 1;

    if (node.nodeType === Node.TEXT_NODE) {
      if (frame.drawn) out.text((node as Text).data, frame.breaks);
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue;

    const element = node as Element;
    const tag = element.localName.toLowerCase();
    if (REMOVED.has(tag)) continue;
    if (element.hasAttribute('hidden')) continue;
    const style = getComputedStyle(element);
    const display = style.display;
    if (display === 'none') continue;

    if (tag === 'br') {
      out.endLine(true);
      continue;
    }

    const inlineLevel =
      display.startsWith('inline') ||
      display === 'contents' ||
      display.startsWith('ruby') ||
      display === 'math' ||
      (display === 'block math' && tag !== 'math') ||
      display === '-webkit-inline-box' ||
      display.startsWith('table-column');
    const cell = display === 'table-cell';
    let lines = 0;
    if (!inlineLevel && !cell) {
      lines = PARAGRAPHS.has(tag) || (LISTS.has(tag) && !frame.inItem) ? 2 : 1;
    }

    let children: ArrayLike<Node> = element.childNodes;
    if (style.contentVisibility === 'hidden' || geometry.hidesContent(element, style)) {
      children = [];
    } else if (element.shadowRoot) {
      children = element.shadowRoot.childNodes;
    } else if (tag === 'slot') {
      const assigned = (element as HTMLSlotElement).assignedNodes();
      if (assigned.length > 0) children = assigned;
    } else if (tag === 'details' && !(element as HTMLDetailsElement).open) {
      const summary = Array.from(element.children).find((child) => child.localName === 'summary');
      children = summary ? [summary] : [];
    }

    if (lines > 0) out.boundary(lines);
    if (cell) out.line += ' ';
    const collapse = style.whiteSpaceCollapse || style.whiteSpace;
    frames.push({
      nodes: children,
      index: 0,
      after: lines,
      cell,
      drawn:
        style.visibility === 'visible' &&
        style.fontSize !== '0px' &&
        !/^\s*["']?material (icons|symbols)/i.test(style.fontFamily),
      breaks: ['preserve', 'preserve-breaks', 'break-spaces', 'pre', 'pre-wrap', 'pre-line'].includes(
        collapse,
      ),
      inItem: frame.inItem || LIST_ITEMS.has(tag),
    });
  }
  out.endLine(false);

  let text = out.parts.join('');
  if (text.length > cap) {
    let end = cap;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    text = text.slice(0, end).trimEnd();
  }

  let title = (document.title ?? '').replace(/\s+/g, ' ').trim();
  if (title.length > 4096) {
    let end = 4096;
    const last = title.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    title = title.slice(0, end).trimEnd();
  }
  return { title: title === '' ? null : title, text };
}
