/**
 * Node-side judgement for website email discovery (SPEC "Website tools" rule 5): which of the raw
 * strings a page published (collectPageEmails) are email addresses, and which of its links discovery
 * should follow next (collectPageLinks). Pure functions: no I/O, no clock, no logging.
 *
 * normalizeCandidates(raw, pageUrl):
 * - Decodes HTML entities first (numeric, hex and the named ones that spell addresses: `&commat;`,
 *   `&period;`, `&amp;`, …), twice, so double-encoded `&amp;#64;` comes out as `@` too.
 * - Undoes the common hand obfuscations, but only in unambiguous shapes:
 *   - a bracketed at or dot, any of [] () {} <>: `name [at] domain [dot] com`, `name(at)domain(dot)com`,
 *     `name{@}domain`, `name [.] com`, plus `ät`/`arroba` and `punkt`/`point`/`punto`/`ponto`;
 *   - spaces around a bare `@` between word characters: `name @ domain.com`;
 *   - the spoken form `name at domain dot com` (`john dot doe at acme dot co dot uk`), only when the
 *     domain is spelled with the word "dot" at least once, the phrase is not followed by another
 *     "at"/"dot", and the word before "at" is not a common English word that precedes "at" in prose
 *     ("look at acme dot com", "find us at …", "available at …"). A plain "at" in a sentence, or
 *     "name at domain.com" with a literal dot, is left alone: too often it is just prose.
 * - Extracts addresses with a strict ASCII pattern: local part of letters, digits and `_ + -` in
 *   dot-separated atoms (no quoted or exotic local parts: they are vanishingly rare on web pages and
 *   invite glued punctuation), at most 64 characters; a domain of at least two labels (letters, digits,
 *   inner hyphens, each at most 63) ending in an alphabetic or `xn--` top-level label; at most 254
 *   characters in all. A local part glued to a preceding letter, digit or `. _ % + -` is not cut out of
 *   a longer word (`müller@…` does not yield `ller@…`). Internationalized addresses are not returned:
 *   the API promises strings "in email format", which validators read as ASCII.
 * - Drops false positives:
 *   - asset names: the last label is a file extension (`logo@2x.png`, `icon@3x.webp`, fonts,
 *     scripts, styles, media, documents);
 *   - reserved names (RFC 2606, RFC 6761, RFC 9476, ICANN's blocked private-use names): example.com,
 *     example.net, example.org and their subdomains, and the top-level names test, example, invalid,
 *     localhost, local, alt, internal, arpa, home, lan, corp, intranet, localdomain, tld;
 *   - error-tracking DSNs and other machine identifiers: sentry.io and its subdomains, any label
 *     `sentry` or `sentry-*` (self-hosted Sentry, `sentry-next.wixpress.com`), wixpress.com, bugsnag.com,
 *     and local parts that are 24+ hex digits or a UUID (a Sentry public key is 32 hex digits);
 *   - placeholders: `your@…`, `yourname@…`, `your.email@…`, the local parts name, user, username,
 *     someone, firstname.lastname and its translations, john.doe, max.mustermann …, and the domains
 *     domain.<tld>, yourdomain.<tld>, mydomain.<tld>, yoursite, yourcompany and the like;
 *   - a domain without a dot never matches the pattern at all (`email@example`).
 *   The reserved and tracking rules do not apply to an address on the page's own site (its host, or a
 *   parent or subdomain of it, `www.` ignored): sentry.io's contact page may publish support@sentry.io.
 * - Returns whole addresses lower-cased. Local parts are case-sensitive in theory; in practice no
 *   mailbox provider treats them so, and one case makes `Info@Acme.de` and `info@acme.de`, printed
 *   side by side, one address. Duplicates are removed; order is first appearance in `raw`.
 *
 * rankDiscoveryLinks(links, baseUrl, maxLinks):
 * - Keeps http(s) links on the same site as baseUrl: same hostname once a leading `www.` is removed
 *   (an approximation of "same registrable domain" that needs no public-suffix list: `shop.acme.de`
 *   is another site, `www.acme.de` is not). Scheme and port are ignored, so an `http://` link on an
 *   `https://` site still counts; the egress guard judges the destination itself.
 * - Drops the fragment; drops the submitted page, `/cdn-cgi/` utility links and downloads (documents,
 *   images, media, archives, fonts, scripts, feeds, vCards …) by their extension. A page linked several
 *   times (same host without `www.`, path without trailing slash, query) is one entry: the href and
 *   position of its first link, the best score of all its links (an unlabeled icon link first, the
 *   footer's "Kontakt" later).
 * - Keeps only relevant links: those whose path (and query) or label contains a keyword of a category
 *   below, in English, German, French, Spanish, Italian, Portuguese or Dutch. Words are compared
 *   lower-case without diacritics (`über-uns` = `uber uns`, `mentions-légales`), split at anything
 *   that is not a letter or digit; keywords of five letters or more also match as a word prefix
 *   (`contactez`, `kontaktformular`, `datenschutzerklarung`). Labels longer than eight words are
 *   teasers of articles, not navigation, and are not read.
 * - Scores by the best category: contact 100; imprint 90 (Impressum, mentions légales, aviso legal,
 *   note legali, colofon: in Germany, Austria and Switzerland the law requires an email address on
 *   it, so it is the most reliable page after contact); support 80; about 60; legal 50; privacy 40
 *   (data-protection officers' addresses); terms 30; press 20. +3 when path and label agree, −5 per
 *   path segment beyond the first (at most −20), so `/kontakt` beats `/blog/2019/kontakt-tipps`.
 *   Ties keep document order. Returns at most maxLinks absolute URLs, best first.
 */

/** What collectPageLinks returns for each link. */
export interface DiscoveryLink {
  href: string;
  text: string;
}

/** A Map, since entity names come from the page: `&constructor;` must stay text. */
const NAMED_ENTITIES = new Map<string, string>(
  Object.entries({
    commat: '@',
    period: '.',
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: ' ',
    hyphen: '-',
    dash: '-',
    lowbar: '_',
    plus: '+',
    colon: ':',
    sol: '/',
    lpar: '(',
    rpar: ')',
    lsqb: '[',
    rsqb: ']',
    lbrack: '[',
    rbrack: ']',
    lcub: '{',
    rcub: '}',
    lbrace: '{',
    rbrace: '}',
  }),
);
/** Named references HTML still decodes without the semicolon. */
const LEGACY_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp']);
const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z][a-z0-9]{1,31}))(;?)/gi;

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (match, decimal?: string, hex?: string, name?: string, semicolon?: string) => {
    if (decimal !== undefined || hex !== undefined) {
      const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return match;
      return String.fromCodePoint(code);
    }
    const key = (name ?? '').toLowerCase();
    const value = NAMED_ENTITIES.get(key);
    if (value === undefined || (semicolon === '' && !LEGACY_ENTITIES.has(key))) return match;
    return value;
  });
}

const BRACKETED_AT = /\s*[[({<]\s*(?:at|@|ät|arroba)\s*[\])}>]\s*/giu;
const BRACKETED_DOT = /\s*[[({<]\s*(?:dot|punkt|point|punto|ponto|\.)\s*[\])}>]\s*/giu;
const SPACED_AT = /(?<=[\p{L}\p{N}_+-])(?:\s+@\s*|\s*@\s+)(?=[\p{L}\p{N}])/gu;
const SPOKEN =
  /(?<![\p{L}\p{N}._%+-])([a-z0-9_+-]+(?:\s+dot\s+[a-z0-9_+-]+)*)\s+at\s+([a-z0-9-]+(?:\s+dot\s+[a-z0-9-]+)+)(?![\p{L}\p{N}_-])(?!\s+(?:at|dot)\s)/giu;
const SPOKEN_DOT = /\s+dot\s+/giu;
/** `john dot doe@…` and `…@acme dot com`, left once a bracketed or bare @ is in place. */
const SPOKEN_LOCAL = /(?<![\p{L}\p{N}._%+-])([a-z0-9_+-]+(?:\s+dot\s+[a-z0-9_+-]+)+)(?=@)/giu;
const SPOKEN_DOMAIN = /(?<=@)([a-z0-9-]+(?:\s+dot\s+[a-z0-9-]+)+)(?![\p{L}\p{N}_-])/giu;
/** Words that precede "at" in ordinary prose; never the local part of a spoken address. */
const PROSE_BEFORE_AT = new Set(
  (
    'a all also and anytime are arrive arrived arrives as available based be been best but buy can ' +
    'directly find first found here him her home is it last later least live located look looking ' +
    'me meet most not now on once one online only or order our sale sold shop stay that them there ' +
    'this us visit was we were what when where which who work working works you'
  ).split(' '),
);

function deobfuscate(text: string): string {
  return text
    .replace(BRACKETED_AT, '@')
    .replace(BRACKETED_DOT, '.')
    .replace(SPACED_AT, '@')
    .replace(SPOKEN, (match, local: string, domain: string) => {
      if (PROSE_BEFORE_AT.has(local.toLowerCase())) return match;
      return `${local.replace(SPOKEN_DOT, '.')}@${domain.replace(SPOKEN_DOT, '.')}`;
    })
    .replace(SPOKEN_LOCAL, (local: string) => local.replace(SPOKEN_DOT, '.'))
    .replace(SPOKEN_DOMAIN, (domain: string) => domain.replace(SPOKEN_DOT, '.'));
}

const EMAIL_IN_TEXT =
  /(?<![\p{L}\p{N}._%+-])([a-z0-9_+-]+(?:\.[a-z0-9_+-]+)*)@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59}))(?![\p{L}\p{N}_-])/giu;
/** The final, ASCII-only check on the lower-cased address (no `u`/`i` flags: no case folding of ſ or K). */
const STRICT_EMAIL =
  /^[a-z0-9_+-]+(?:\.[a-z0-9_+-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

const ASSET_EXTENSIONS = new Set(
  (
    'png jpg jpeg jpe gif webp avif svg svgz ico bmp tif tiff heic heif jxl ' +
    'woff woff2 ttf otf eot js mjs cjs ts css scss less map json xml ' +
    'mp4 m4v webm ogv mp3 m4a wav ogg oga flac pdf txt htm html php asp aspx jsp'
  ).split(' '),
);
const RESERVED_TOP_LEVEL = new Set(
  'test example invalid localhost local alt internal arpa home lan corp intranet localdomain tld'.split(' '),
);
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'];
const TRACKING_DOMAINS = ['sentry.io', 'wixpress.com', 'bugsnag.com'];
const MACHINE_LOCAL = /^(?:[0-9a-f]{24,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const PLACEHOLDER_LOCAL = new Set(
  (
    'name user username someone somebody anybody firstname lastname firstname.lastname first.last ' +
    'first.lastname firstname.last vorname nachname vorname.nachname max.mustermann maxmustermann ' +
    'erika.mustermann john.doe jane.doe johndoe janedoe prenom.nom nom.prenom nombre.apellido ' +
    'nome.cognome voornaam.achternaam'
  ).split(' '),
);
const PLACEHOLDER_YOUR = /^your(?:[._-]?(?:name|email|e-mail|mail|address|id|user|username))?$/;
const PLACEHOLDER_DOMAIN =
  /^(?:domain|(?:your|my)[-_]?(?:domain|site|website|company|business|email|mail|name|shop|store))\.[a-z]{2,}$/;

function isWithin(domain: string, parent: string): boolean {
  return domain === parent || domain.endsWith(`.${parent}`);
}

function pageSite(pageUrl: string): string | null {
  try {
    return new URL(pageUrl).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** Why an address is not one the site publishes for people, or null when it is. */
function dropReason(local: string, domain: string, site: string | null): string | null {
  const labels = domain.split('.');
  const last = labels[labels.length - 1] ?? '';
  if (ASSET_EXTENSIONS.has(last)) return 'asset_name';
  if (MACHINE_LOCAL.test(local)) return 'machine_identifier';
  if (PLACEHOLDER_YOUR.test(local) || PLACEHOLDER_LOCAL.has(local)) return 'placeholder';
  if (PLACEHOLDER_DOMAIN.test(domain)) return 'placeholder';
  const ownSite = site !== null && (isWithin(domain, site) || isWithin(site, domain));
  if (ownSite) return null;
  if (RESERVED_TOP_LEVEL.has(last) || RESERVED_DOMAINS.some((reserved) => isWithin(domain, reserved))) {
    return 'reserved_domain';
  }
  if (
    TRACKING_DOMAINS.some((tracking) => isWithin(domain, tracking)) ||
    labels.some((label) => label === 'sentry' || label.startsWith('sentry-'))
  ) {
    return 'tracking_identifier';
  }
  return null;
}

/**
 * The distinct email addresses in the raw strings a page published, lower-cased, in order of first
 * appearance, without false positives. See the module header for every rule.
 */
export function normalizeCandidates(raw: readonly string[], pageUrl: string): string[] {
  const site = pageSite(pageUrl);
  const seen = new Set<string>();
  const addresses: string[] = [];
  for (const candidate of raw) {
    const text = deobfuscate(decodeEntities(decodeEntities(candidate)));
    for (const match of text.matchAll(EMAIL_IN_TEXT)) {
      const address = match[0].toLowerCase();
      const local = (match[1] ?? '').toLowerCase();
      const domain = (match[2] ?? '').toLowerCase();
      if (seen.has(address)) continue;
      if (local.length > 64 || address.length > 254 || !STRICT_EMAIL.test(address)) continue;
      if (dropReason(local, domain, site) !== null) continue;
      seen.add(address);
      addresses.push(address);
    }
  }
  return addresses;
}

interface Category {
  weight: number;
  phrases: readonly string[];
}

/** Phrases are space-separated words; see the module header for how words match. */
const CATEGORIES: readonly Category[] = [
  {
    weight: 100,
    phrases: ['contact', 'kontakt', 'contat', 'get in touch', 'fale conosco', 'escribenos'],
  },
  {
    weight: 90,
    phrases: [
      'impressum',
      'imprint',
      'mentions legales',
      'mention legale',
      'aviso legal',
      'note legali',
      'nota legale',
      'informazioni legali',
      'colofon',
      'colophon',
      'legal notice',
    ],
  },
  {
    weight: 80,
    phrases: [
      'support',
      'suporte',
      'soporte',
      'hilfe',
      'help',
      'helpdesk',
      'helpcenter',
      'aide',
      'ayuda',
      'assistenza',
      'assistance',
      'assistencia',
      'atendimento',
      'ondersteuning',
      'klantenservice',
      'kundenservice',
      'kundendienst',
      'service client',
      'servicio al cliente',
      'atencion al cliente',
      'servizio clienti',
      'customer service',
      'customer care',
    ],
  },
  {
    weight: 60,
    phrases: [
      'about',
      'uber uns',
      'ueber uns',
      'uberuns',
      'ueberuns',
      'a propos',
      'apropos',
      'qui sommes nous',
      'sobre',
      'quienes somos',
      'quienessomos',
      'nosotros',
      'quem somos',
      'quemsomos',
      'chi siamo',
      'chisiamo',
      'over ons',
      'overons',
      'wie zijn wij',
      'wie wij zijn',
      'unternehmen',
      'empresa',
      'azienda',
      'entreprise',
      'team',
      'equipe',
      'equipo',
      'our story',
      'who we are',
    ],
  },
  {
    weight: 50,
    phrases: ['legal', 'juridique', 'rechtlich', 'juridisch', 'disclaimer'],
  },
  {
    weight: 40,
    phrases: [
      'privacy',
      'datenschutz',
      'privacidad',
      'privacidade',
      'confidentialite',
      'riservatezza',
      'donnees personnelles',
      'dati personali',
      'gdpr',
      'dsgvo',
      'rgpd',
    ],
  },
  {
    weight: 30,
    phrases: [
      'terms',
      'agb',
      'cgv',
      'cgu',
      'conditions generales',
      'condiciones',
      'terminos',
      'termini',
      'termos',
      'condizioni',
      'voorwaarden',
      'nutzungsbedingungen',
    ],
  },
  {
    weight: 20,
    phrases: ['press', 'prensa', 'stampa', 'pers', 'imprensa', 'newsroom'],
  },
];
const CATEGORY_WORDS = CATEGORIES.map((category) => ({
  weight: category.weight,
  phrases: category.phrases.map((phrase) => phrase.split(' ')),
}));

const DOWNLOAD_EXTENSIONS = new Set(
  (
    'pdf jpg jpeg jpe png gif webp avif svg svgz ico bmp tif tiff heic heif zip rar 7z gz tgz tar bz2 xz ' +
    'dmg exe msi apk iso mp3 mp4 m4a m4v mov avi wmv webm ogg ogv wav flac doc docx xls xlsx ppt pptx ' +
    'odt ods odp rtf csv txt xml json rss atom css js mjs woff woff2 ttf otf eot ics vcf epub'
  ).split(' '),
);
const MAX_LABEL_WORDS = 8;

function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

function wordMatches(word: string, keyword: string): boolean {
  return word === keyword || (keyword.length >= 5 && word.startsWith(keyword));
}

/** The weight of the best category any phrase of which occurs in the words, or 0. */
function categoryWeight(list: readonly string[]): number {
  let best = 0;
  for (const category of CATEGORY_WORDS) {
    if (category.weight <= best) continue;
    const hit = category.phrases.some((phrase) =>
      list.some((_, start) =>
        phrase.every((keyword, offset) => wordMatches(list[start + offset] ?? '', keyword)),
      ),
    );
    if (hit) best = category.weight;
  }
  return best;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Same page for discovery: host without `www.`, port, path without trailing slash, query. */
function pageKey(url: URL): string {
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  return `${host}:${url.port}${path}${url.search}`;
}

/**
 * The same-site links worth visiting for email discovery, best first, at most maxLinks absolute URLs
 * without fragments. See the module header for the ranking.
 */
export function rankDiscoveryLinks(
  links: readonly DiscoveryLink[],
  baseUrl: string,
  maxLinks: number,
): string[] {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return [];
  }
  const site = base.hostname.toLowerCase().replace(/^www\./, '');
  const submitted = pageKey(base);
  // One entry per page; when a page is linked several times, its best-scoring link counts and its
  // first appearance orders it ("Kontakt" in the footer after an unlabeled icon link to the same page).
  const byKey = new Map<string, { href: string; score: number; order: number }>();

  links.forEach((link, order) => {
    let url: URL;
    try {
      url = new URL(link.href, base);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    if (url.hostname.toLowerCase().replace(/^www\./, '') !== site) return;
    url.hash = '';
    const key = pageKey(url);
    if (key === submitted) return;
    const path = safeDecode(url.pathname);
    if (path.toLowerCase().startsWith('/cdn-cgi/')) return;
    const extension = /\.([a-z0-9]{1,5})$/i.exec(path)?.[1]?.toLowerCase();
    if (extension !== undefined && DOWNLOAD_EXTENSIONS.has(extension)) return;

    const pathWeight = categoryWeight(words(`${path} ${safeDecode(url.search.replace(/\+/g, ' '))}`));
    const label = words(link.text);
    const textWeight = label.length <= MAX_LABEL_WORDS ? categoryWeight(label) : 0;
    const weight = Math.max(pathWeight, textWeight);
    const depth = path.split('/').filter((segment) => segment !== '').length;
    const score =
      weight === 0
        ? Number.NEGATIVE_INFINITY
        : weight + (pathWeight > 0 && textWeight > 0 ? 3 : 0) - Math.min(20, 5 * Math.max(0, depth - 1));
    const known = byKey.get(key);
    if (known === undefined) byKey.set(key, { href: url.href, score, order });
    else if (score > known.score) known.score = score;
  });

  const ranked = [...byKey.values()]
    .filter((entry) => entry.score > Number.NEGATIVE_INFINITY)
    .sort((a, b) => b.score - a.score || a.order - b.order);
  const limit = Number.isFinite(maxLinks) ? Math.max(0, Math.floor(maxLinks)) : 0;
  return ranked.slice(0, limit).map((entry) => entry.href);
}
