/**
 * What a rendered page publishes that may hold email addresses, and which links it offers for
 * discovery: two functions that run INSIDE the page (`page.evaluate(collectPageEmails)`,
 * `page.evaluate(collectPageLinks)`). They return raw strings; `normalizeCandidates` and
 * `rankDiscoveryLinks` in email-addresses.ts decide, in Node, what counts.
 *
 * Like extract-visible-text, these functions are serialized into the page: no closures over this
 * module, no named inner functions or function-valued variables (tsx/esbuild `keepNames` would wrap
 * them in a `__name` helper the page lacks); helpers are object-literal methods.
 *
 * Where candidates come from, in this order (the order matters only as "first appearance" for the
 * caller's dedupe and its cut at 100 addresses, so the most explicit sources come first):
 * 1. `mailto:` links (`a`, `area`): the part after `mailto:`, percent-decoded, query and fragment
 *    removed; several recipients stay in one string (`a@x.com,b@x.com`) and are split by the parser.
 * 2. Cloudflare email obfuscation: `data-cfemail="<hex>"` and `/cdn-cgi/l/email-protection#<hex>`
 *    links, decoded as Cloudflare's own script does (first byte is the XOR key of the rest; the bytes
 *    are UTF-8). When that script ran, the address is already in the text and link; when it did not
 *    (blocked, or never loaded), this is the only place the address exists.
 * 3. Structured data: every `email` property, at any depth, of every parseable
 *    `<script type="application/ld+json">` (including `@graph` arrays, and `schema:email` or
 *    `https://schema.org/email` keys), and microdata `itemprop="email"` (its content or href
 *    attribute, else its text).
 * 4. Visible text: `innerText` of the body and of every element inside an open shadow root, i.e. text
 *    after rendering with CSS-hidden content left out. That excludes the classic `display: none`
 *    honeypot addresses set for harvesters. Same-origin frames are not read (the egress policy decides
 *    what frames load, and an embedded widget's address is not the site's).
 * 5. Attribute text people see on hover or hear: `title`, `aria-label`, image `alt` (an address drawn
 *    as an image usually carries itself in alt), and `meta` `content` (author, reply-to, og:email).
 *    Placeholders are not read (`placeholder="you@company.com"` is an example, not an address).
 *
 * HTML entities (`info&#64;acme.de`, `&commat;`) need no separate source scan: the HTML parser has
 * already decoded them in every text node and attribute read above, and entities that survive as
 * literal text (double-encoded `&amp;#64;`, or inside JSON-LD strings) are decoded by
 * `normalizeCandidates`. Reading the raw serialized HTML instead would add only what the page does
 * not show: honeypots, addresses inside bundled scripts, examples in comments.
 *
 * Hidden elements: sources 1, 2 and 5 skip elements that are not rendered or are `visibility: hidden`
 * (`checkVisibility`), and source 4 is rendered text, because an address a page hides from people is
 * a spam trap for harvesters, and whoever writes to it gets blocklisted. Structured data (3) and
 * `meta` are invisible by nature and are read as they are. A mailto link inside a closed dropdown
 * menu is missed by this rule; the same address is almost always also in the footer or on the
 * contact page.
 *
 * Open shadow roots are searched like the document (closed ones cannot be read from the page).
 */

/** A link as the page shows it: absolute href (as the browser resolved it) and its visible label. */
export interface PageLink {
  href: string;
  text: string;
}

/** Runs in the page. Self-contained: see the module header before changing anything here. */
export function collectPageEmails(): string[] {
  const found: string[] = [];

  const roots: Array<Document | ShadowRoot> = [document];
  for (let index = 0; index < roots.length; index += 1) {
    for (const element of (roots[index] as Document | ShadowRoot).querySelectorAll('*')) {
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }

  const helpers = {
    /** Rendered and not `visibility: hidden` (a display:none mailto link is a harvester trap). */
    shown(element: Element): boolean {
      return element.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
    },
    push(value: string | null | undefined): void {
      const trimmed = (value ?? '').trim();
      if (trimmed !== '') found.push(trimmed);
    },
    /** Cloudflare's scheme: hex pairs, the first is the key XORed into every following byte. */
    cloudflare(hex: string): void {
      if (!/^(?:[0-9a-f]{2}){2,}$/i.test(hex)) return;
      const key = Number.parseInt(hex.slice(0, 2), 16);
      const bytes = new Uint8Array(hex.length / 2 - 1);
      for (let index = 0; index < bytes.length; index += 1) {
        bytes[index] = Number.parseInt(hex.slice(2 + index * 2, 4 + index * 2), 16) ^ key;
      }
      this.push(new TextDecoder('utf-8').decode(bytes));
    },
    /** Every value of a key named email in a JSON-LD document, breadth-first, bounded. */
    jsonLd(source: string): void {
      let parsed: unknown;
      try {
        parsed = JSON.parse(source);
      } catch {
        return;
      }
      const queue: unknown[] = [parsed];
      for (let index = 0; index < queue.length && index < 100_000; index += 1) {
        const value = queue[index];
        if (Array.isArray(value)) {
          queue.push(...value);
        } else if (value !== null && typeof value === 'object') {
          for (const [key, child] of Object.entries(value)) {
            const name = key.toLowerCase();
            const isEmail = name === 'email' || name.endsWith(':email') || name.endsWith('/email');
            if (isEmail && typeof child === 'string') this.push(child);
            else if (isEmail && Array.isArray(child)) {
              for (const item of child) if (typeof item === 'string') this.push(item);
            }
            if (child !== null && typeof child === 'object') queue.push(child);
          }
        }
      }
    },
  };

  // 1. mailto: links.
  for (const root of roots) {
    for (const link of root.querySelectorAll('a[href], area[href]')) {
      const href = (link.getAttribute('href') ?? '').trim();
      if (!/^mailto:/i.test(href) || !helpers.shown(link)) continue;
      const recipients = href.slice('mailto:'.length).split(/[?#]/)[0] ?? '';
      try {
        helpers.push(decodeURIComponent(recipients));
      } catch {
        helpers.push(recipients);
      }
    }
  }

  // 2. Cloudflare-protected addresses.
  for (const root of roots) {
    for (const element of root.querySelectorAll('[data-cfemail]')) {
      if (helpers.shown(element)) helpers.cloudflare(element.getAttribute('data-cfemail') ?? '');
    }
    for (const link of root.querySelectorAll('a[href*="/cdn-cgi/l/email-protection"]')) {
      if (!helpers.shown(link)) continue;
      const href = link.getAttribute('href') ?? '';
      const hash = href.indexOf('#');
      if (hash >= 0) helpers.cloudflare(href.slice(hash + 1));
    }
  }

  // 3. Structured data.
  for (const root of roots) {
    for (const script of root.querySelectorAll('script[type]')) {
      const type = (script.getAttribute('type') ?? '').trim().toLowerCase();
      if (type.startsWith('application/ld+json')) helpers.jsonLd(script.textContent ?? '');
    }
    for (const element of root.querySelectorAll('[itemprop~="email" i]')) {
      const value = element.getAttribute('content') ?? element.getAttribute('href');
      helpers.push(value ?? (element as HTMLElement).innerText ?? element.textContent);
    }
  }

  // 4. Visible text.
  helpers.push(document.body?.innerText);
  for (const root of roots) {
    if (root === document) continue;
    for (const child of root.children) {
      if (child instanceof HTMLElement) helpers.push(child.innerText);
    }
  }

  // 5. Attribute text.
  for (const root of roots) {
    for (const element of root.querySelectorAll('[title], [aria-label], img[alt], meta[content]')) {
      if (element.localName !== 'meta' && !helpers.shown(element)) continue;
      for (const name of ['title', 'aria-label', 'alt', 'content']) {
        if (name === 'alt' && element.localName !== 'img') continue;
        if (name === 'content' && element.localName !== 'meta') continue;
        helpers.push(element.getAttribute(name));
      }
    }
  }

  return found;
}

/**
 * Runs in the page. Every `a[href]` and `area[href]` of the document and its open shadow roots, in
 * document order, with the resolved absolute href and a label: the visible text, else aria-label,
 * else title, else an image's alt (for logo links), whitespace-collapsed and cut at 200 characters.
 */
export function collectPageLinks(): PageLink[] {
  const links: PageLink[] = [];
  const roots: Array<Document | ShadowRoot> = [document];
  for (let index = 0; index < roots.length; index += 1) {
    for (const element of (roots[index] as Document | ShadowRoot).querySelectorAll('*')) {
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }
  for (const root of roots) {
    for (const link of root.querySelectorAll('a[href], area[href]')) {
      // SVG <a> has an SVGAnimatedString href and no innerText: not a page link we can rank.
      if (!(link instanceof HTMLAnchorElement || link instanceof HTMLAreaElement)) continue;
      const label =
        (link instanceof HTMLAnchorElement ? link.innerText : '') ||
        link.getAttribute('aria-label') ||
        link.getAttribute('title') ||
        link.querySelector('img[alt]')?.getAttribute('alt') ||
        (link instanceof HTMLAreaElement ? link.alt : '') ||
        '';
      links.push({ href: link.href, text: label.replace(/\s+/g, ' ').trim().slice(0, 200) });
    }
  }
  return links;
}
