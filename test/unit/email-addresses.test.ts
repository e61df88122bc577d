/**
 * normalizeCandidates and rankDiscoveryLinks as tables (DESIGN §7.10): each row is one rule of the
 * module header, with the inputs that must pass and the look-alikes that must not. The ranking is
 * shown on one small site per language (English, German, French, Spanish, Italian, Portuguese, Dutch).
 */
import { describe, expect, it } from 'vitest';
import {
  type DiscoveryLink,
  normalizeCandidates,
  rankDiscoveryLinks,
} from '../../shared/websites/email-addresses.js';

const PAGE = 'https://www.acme-corp.com/contact';

describe('normalizeCandidates: deobfuscation', () => {
  it.each<[string, string[], string[]]>([
    ['bracketed at and dot', ['anna [at] acme-corp [dot] com'], ['anna@acme-corp.com']],
    ['parenthesized, no spaces', ['anna(at)acme-corp(dot)com'], ['anna@acme-corp.com']],
    [
      'braces and angle brackets',
      ['anna{at}acme-corp{dot}com', 'ben<at>acme-corp<dot>co<dot>uk'],
      ['anna@acme-corp.com', 'ben@acme-corp.co.uk'],
    ],
    ['spaces inside brackets, upper case', ['Anna [ AT ] Acme-Corp [ DOT ] com'], ['anna@acme-corp.com']],
    [
      'bracketed @ and .',
      ['anna[@]acme-corp[.]com', 'ben (@) acme-corp (.) com'],
      ['anna@acme-corp.com', 'ben@acme-corp.com'],
    ],
    [
      'at and dot words in other languages',
      [
        'anna (arroba) tienda-sol (punto) es',
        'ben [ät] brightwater [punkt] de',
        'carla (at) loja-mar (ponto) pt',
        'dirk [at] atelier (point) fr',
      ],
      ['anna@tienda-sol.es', 'ben@brightwater.de', 'carla@loja-mar.pt', 'dirk@atelier.fr'],
    ],
    ['spoken form', ['Mail: anna at acme-corp dot com'], ['anna@acme-corp.com']],
    [
      'spoken form with a dotted local part and a multi-label domain',
      ['maria dot rossi at acme-corp dot co dot uk'],
      ['maria.rossi@acme-corp.co.uk'],
    ],
    ['spoken form in capitals', ['ANNA AT ACME-CORP DOT COM'], ['anna@acme-corp.com']],
    [
      'spoken form after prose with "at"',
      ['Write me at maria dot rossi at acme-corp dot com'],
      ['maria.rossi@acme-corp.com'],
    ],
    ['bracketed at with a spoken dot', ['anna [at] acme-corp dot com'], ['anna@acme-corp.com']],
    [
      'spoken dot in the local part before a bracketed at',
      ['maria dot rossi [at] acme-corp.com'],
      ['maria.rossi@acme-corp.com'],
    ],
    [
      'spaces around a bare @',
      ['anna @ acme-corp.com', 'ben@ acme-corp.com'],
      ['anna@acme-corp.com', 'ben@acme-corp.com'],
    ],
    [
      'decimal, hex and named entities, with and without semicolon',
      [
        'anna&#64;acme-corp.com',
        'ben&#x40;acme-corp.com',
        'carla&commat;acme-corp&period;com',
        'dirk&#64acme-corp.com',
      ],
      ['anna@acme-corp.com', 'ben@acme-corp.com', 'carla@acme-corp.com', 'dirk@acme-corp.com'],
    ],
    [
      'double-encoded entities',
      ['eva&amp;#64;acme-corp.com', 'fritz&amp;commat;acme-corp.com'],
      ['eva@acme-corp.com', 'fritz@acme-corp.com'],
    ],
    [
      'mailto values, display names and lists',
      [
        'mailto:anna@acme-corp.com',
        'Ben <ben@acme-corp.com>',
        '"Carla" <carla@acme-corp.com>; dirk@acme-corp.com',
      ],
      ['anna@acme-corp.com', 'ben@acme-corp.com', 'carla@acme-corp.com', 'dirk@acme-corp.com'],
    ],
  ])('%s', (_, raw, expected) => {
    expect(normalizeCandidates(raw, PAGE)).toEqual(expected);
  });

  it('keeps an entity named like an Object property (&constructor;) as text', () => {
    expect(normalizeCandidates(['anna@acme-corp.com&constructor;'], PAGE)).toEqual(['anna@acme-corp.com']);
  });

  it.each<[string, string]>([
    ['"look at"', 'Look at acme-corp dot com for details'],
    ['"find us at"', 'Find us at acme-corp dot com'],
    ['"available at"', 'Available at acme-corp dot com'],
    ['"at" with a literal dot', 'anna at acme-corp.com'],
    ['"sold at" a shop', 'Sold at acme-corp.com and in stores'],
    ['a bracketed at without a domain', 'Meet us (at) the fair'],
    ['an unknown named entity', 'anna&commatacme-corp.com'],
    ['a Twitter handle', 'Follow @acmecorp on X'],
  ])('leaves prose alone: %s', (_, text) => {
    expect(normalizeCandidates([text], PAGE)).toEqual([]);
  });
});

describe('normalizeCandidates: the address pattern', () => {
  it.each<[string, string[], string[]]>([
    [
      'punctuation around addresses',
      ['Write to anna@acme-corp.com.', '(ben@acme-corp.com)', 'carla@acme-corp.com,dirk@acme-corp.com'],
      ['anna@acme-corp.com', 'ben@acme-corp.com', 'carla@acme-corp.com', 'dirk@acme-corp.com'],
    ],
    [
      'plus, underscore and hyphen in the local part',
      ['a.b+c_d-e@acme-corp.com'],
      ['a.b+c_d-e@acme-corp.com'],
    ],
    ['a punycode domain', ['anna@xn--mller-kva.de'], ['anna@xn--mller-kva.de']],
    ['a 64-character local part', [`${'x'.repeat(64)}@acme-corp.com`], [`${'x'.repeat(64)}@acme-corp.com`]],
    ['after a colon glued to a word', ['E-Mail:anna@acme-corp.de'], ['anna@acme-corp.de']],
  ])('accepts %s', (_, raw, expected) => {
    expect(normalizeCandidates(raw, PAGE)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['a domain without a dot', 'anna@acme-corp'],
    ['a placeholder domain without a dot', 'email@example'],
    ['a double @', 'anna@@acme-corp.com'],
    ['a local part ending in a dot', 'anna.@acme-corp.com'],
    ['a local part starting with a dot', '.anna@acme-corp.com'],
    ['two dots in a row', 'an..na@acme-corp.com'],
    ['a label starting with a hyphen', 'anna@-acme.com'],
    ['a label ending with a hyphen', 'anna@acme-.com'],
    ['a one-letter top-level label', 'anna@acme.c'],
    ['a numeric top-level label', 'anna@acme.123'],
    ['an IP literal', 'anna@[192.0.2.1]'],
    ['an IP address domain', 'anna@192.0.2.1'],
    ['a 65-character local part', `${'x'.repeat(65)}@acme-corp.com`],
    ['the tail of a word with a non-ASCII letter', 'müller@acme-corp.de'],
    ['a non-ASCII domain', 'anna@müller.de'],
    ['a top-level label glued to a digit', 'anna@acme-corp.com2'],
  ])('rejects %s', (_, text) => {
    expect(normalizeCandidates([text], PAGE)).toEqual([]);
  });
});

describe('normalizeCandidates: false positives', () => {
  it.each<[string, string[]]>([
    [
      'image, font, script, style and document names',
      [
        'logo@2x.png',
        'icon@3x.webp',
        'hero@1.5x.jpg',
        'photo@2x.JPEG',
        'font@latest.woff2',
        'bundle@4.2.1.min.js',
        'styles@2x.css',
        'manual@v2.pdf',
      ],
    ],
    [
      'reserved domains',
      [
        'anna@example.com',
        'anna@mail.example.org',
        'anna@example.net',
        'anna@shop.test',
        'anna@printer.local',
        'anna@acme.example',
        'anna@acme.invalid',
        'anna@host.localhost',
        'anna@corp.internal',
      ],
    ],
    [
      'error-tracking DSNs and machine identifiers',
      [
        '0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io',
        'abc@sentry.io',
        'abc@o1.ingest.us.sentry.io',
        'a1b2@sentry-next.wixpress.com',
        'x@sentry.brightwater.de',
        'abc@notify.bugsnag.com',
        '0123456789abcdef0123456789abcdef@acme-corp.com',
        '123e4567-e89b-12d3-a456-426614174000@acme-corp.com',
      ],
    ],
    [
      'placeholders',
      [
        'your@email.com',
        'yourname@acme-corp.com',
        'your.email@acme-corp.com',
        'name@domain.com',
        'user@acme-corp.com',
        'someone@acme-corp.com',
        'firstname.lastname@acme-corp.com',
        'vorname.nachname@acme-corp.de',
        'max.mustermann@acme-corp.de',
        'john.doe@acme-corp.com',
        'anna@yourdomain.com',
        'anna@your-company.com',
        'anna@domain.de',
      ],
    ],
  ])('drops %s', (_, raw) => {
    expect(normalizeCandidates(raw, PAGE)).toEqual([]);
  });

  it('keeps real addresses that only resemble the false positives', () => {
    expect(
      normalizeCandidates(
        [
          'help@sentrysafe.com',
          'mail@acme-corp.de',
          'email@acme-corp.de',
          'yours.truly@acme-corp.com',
          'info@mail.com',
          'sales@png-tools.com',
          'cafe@beef.coffee',
        ],
        PAGE,
      ),
    ).toEqual([
      'help@sentrysafe.com',
      'mail@acme-corp.de',
      'email@acme-corp.de',
      'yours.truly@acme-corp.com',
      'info@mail.com',
      'sales@png-tools.com',
      'cafe@beef.coffee',
    ]);
  });

  it.each<[string, string, string[], string[]]>([
    [
      "tracking domain on the tracker's own site",
      'https://sentry.io/contact/',
      ['support@sentry.io'],
      ['support@sentry.io'],
    ],
    [
      'parent domain from a subdomain page',
      'https://docs.sentry.io/',
      ['support@sentry.io'],
      ['support@sentry.io'],
    ],
    [
      'reserved domain on its own site',
      'https://www.example.com/',
      ['info@example.com'],
      ['info@example.com'],
    ],
    ['asset names and placeholders even there', 'https://sentry.io/', ['logo@2x.png', 'your@sentry.io'], []],
    ['no exemption when the page URL is not a URL', 'not a url', ['support@sentry.io'], []],
    ['no exemption for another site', 'https://acme-corp.com/', ['support@sentry.io'], []],
  ])('own-site exemption: %s', (_, pageUrl, raw, expected) => {
    expect(normalizeCandidates(raw, pageUrl)).toEqual(expected);
  });
});

describe('normalizeCandidates: dedupe and order', () => {
  it('lower-cases whole addresses and keeps the first appearance of each', () => {
    expect(
      normalizeCandidates(
        [
          'Anna@ACME-corp.com and ben@acme-corp.com',
          'anna@acme-corp.com',
          'BEN@Acme-Corp.com, carla@acme-corp.com',
        ],
        PAGE,
      ),
    ).toEqual(['anna@acme-corp.com', 'ben@acme-corp.com', 'carla@acme-corp.com']);
  });

  it('returns nothing for nothing', () => {
    expect(normalizeCandidates([], PAGE)).toEqual([]);
    expect(normalizeCandidates(['', '   ', 'no address here'], PAGE)).toEqual([]);
  });
});

const site = (base: string, links: [string, string][]): DiscoveryLink[] =>
  links.map(([path, text]) => ({ href: new URL(path, base).href, text }));

describe('rankDiscoveryLinks: seven languages', () => {
  it.each<[string, string, [string, string][], string[]]>([
    [
      'English',
      'https://acme-corp.com/',
      [
        ['/', 'Home'],
        ['/products', 'Products'],
        ['/press', 'Press'],
        ['/about-us', 'About us'],
        ['/terms', 'Terms of Service'],
        ['/legal/privacy-policy', 'Privacy Policy'],
        ['/support', 'Support'],
        ['/legal-notice', 'Legal notice'],
        ['/contact-us', 'Contact us'],
      ],
      ['/contact-us', '/legal-notice', '/support', '/about-us', '/legal/privacy-policy', '/terms', '/press'],
    ],
    [
      'German',
      'https://www.brightwater.de/',
      [
        ['/', 'Startseite'],
        ['/karriere', 'Karriere'],
        ['/presse', 'Presse'],
        ['/agb', 'AGB'],
        ['/datenschutz', 'Datenschutzerklärung'],
        ['/ueber-uns', 'Über uns'],
        ['/hilfe', 'Hilfe'],
        ['/impressum', 'Impressum'],
        ['/kontakt', 'Kontakt'],
      ],
      ['/kontakt', '/impressum', '/hilfe', '/ueber-uns', '/datenschutz', '/agb', '/presse'],
    ],
    [
      'French',
      'https://www.atelier-lumiere.fr/',
      [
        ['/boutique', 'Boutique'],
        ['/cgv', 'CGV'],
        ['/politique-de-confidentialite', 'Politique de confidentialité'],
        ['/a-propos', 'À propos'],
        ['/aide', 'Aide'],
        ['/mentions-legales', 'Mentions légales'],
        ['/nous-contacter', 'Contactez-nous'],
      ],
      ['/nous-contacter', '/mentions-legales', '/aide', '/a-propos', '/politique-de-confidentialite', '/cgv'],
    ],
    [
      'Spanish',
      'https://www.tienda-sol.es/',
      [
        ['/blog', 'Blog'],
        ['/terminos-y-condiciones', 'Términos y condiciones'],
        ['/politica-de-privacidad', 'Política de privacidad'],
        ['/quienes-somos', 'Quiénes somos'],
        ['/ayuda', 'Ayuda'],
        ['/aviso-legal', 'Aviso legal'],
        ['/contacto', 'Contacto'],
      ],
      [
        '/contacto',
        '/aviso-legal',
        '/ayuda',
        '/quienes-somos',
        '/politica-de-privacidad',
        '/terminos-y-condiciones',
      ],
    ],
    [
      'Italian',
      'https://www.bottega-luna.it/',
      [
        ['/negozio', 'Negozio'],
        ['/termini-e-condizioni', 'Termini e condizioni'],
        ['/privacy', 'Privacy'],
        ['/chi-siamo', 'Chi siamo'],
        ['/assistenza', 'Assistenza'],
        ['/note-legali', 'Note legali'],
        ['/contatti', 'Contatti'],
      ],
      ['/contatti', '/note-legali', '/assistenza', '/chi-siamo', '/privacy', '/termini-e-condizioni'],
    ],
    [
      'Portuguese',
      'https://www.loja-mar.com.br/',
      [
        ['/produtos', 'Produtos'],
        ['/termos-de-uso', 'Termos de uso'],
        ['/politica-de-privacidade', 'Política de privacidade'],
        ['/sobre', 'Sobre nós'],
        ['/suporte', 'Suporte'],
        ['/contato', 'Fale conosco'],
      ],
      ['/contato', '/suporte', '/sobre', '/politica-de-privacidade', '/termos-de-uso'],
    ],
    [
      'Dutch',
      'https://www.winkel-zee.nl/',
      [
        ['/assortiment', 'Assortiment'],
        ['/algemene-voorwaarden', 'Algemene voorwaarden'],
        ['/privacyverklaring', 'Privacyverklaring'],
        ['/over-ons', 'Over ons'],
        ['/klantenservice', 'Klantenservice'],
        ['/colofon', 'Colofon'],
        ['/contact', 'Contact'],
      ],
      ['/contact', '/colofon', '/klantenservice', '/over-ons', '/privacyverklaring', '/algemene-voorwaarden'],
    ],
  ])('%s', (_, base, links, expected) => {
    expect(rankDiscoveryLinks(site(base, links), base, 8)).toEqual(
      expected.map((path) => new URL(path, base).href),
    );
  });

  it.each<[string, string, string]>([
    ['Kontaktformular', '/service/formular', 'Kontaktformular'],
    ['über-uns with the umlaut in the path', '/%C3%BCber-uns', 'Team'],
    ['qui sommes-nous', '/qui-sommes-nous', 'Qui sommes-nous ?'],
    ['contattaci', '/contattaci', 'Scrivici'],
    ['chi siamo glued', '/chisiamo', 'Azienda'],
    ['datenschutzerklärung', '/datenschutzerklaerung', 'Datenschutz'],
    ['a keyword only in the query', '/index.php?page=kontakt', 'Mehr'],
    ['a keyword only in the label', '/page/17', 'Contact'],
  ])('recognizes %s', (_, path, text) => {
    const base = 'https://www.brightwater.de/';
    expect(rankDiscoveryLinks(site(base, [[path, text]]), base, 8)).toEqual([new URL(path, base).href]);
  });
});

describe('rankDiscoveryLinks: which links qualify', () => {
  const base = 'https://www.acme-corp.com/start';

  it.each<[string, DiscoveryLink[], string[]]>([
    [
      'same site with or without www, over http or https, on any port',
      [
        { href: 'http://acme-corp.com/contact', text: 'Contact' },
        { href: 'https://www.acme-corp.com:8443/about', text: 'About' },
      ],
      ['http://acme-corp.com/contact', 'https://www.acme-corp.com:8443/about'],
    ],
    [
      'not another subdomain or another site',
      [
        { href: 'https://shop.acme-corp.com/contact', text: 'Contact' },
        { href: 'https://acme-corp.de/kontakt', text: 'Kontakt' },
        { href: 'https://www.acme-corp.com.evil.net/contact', text: 'Contact' },
      ],
      [],
    ],
    [
      'http and https only',
      [
        { href: 'mailto:info@acme-corp.com', text: 'Contact' },
        { href: 'tel:+491234', text: 'Contact' },
        { href: 'javascript:openContact()', text: 'Contact' },
        { href: 'ftp://www.acme-corp.com/contact', text: 'Contact' },
      ],
      [],
    ],
    [
      'fragments removed, the submitted page left out',
      [
        { href: 'https://www.acme-corp.com/contact#form', text: 'Contact' },
        { href: 'https://www.acme-corp.com/contact', text: 'Contact' },
        { href: 'https://www.acme-corp.com/start#contact', text: 'Contact' },
        { href: 'https://acme-corp.com/start/', text: 'About' },
      ],
      ['https://www.acme-corp.com/contact'],
    ],
    [
      'downloads and Cloudflare utility links left out',
      [
        { href: 'https://www.acme-corp.com/kontakt.pdf', text: 'Kontakt' },
        { href: 'https://www.acme-corp.com/contact.vcf', text: 'Contact' },
        { href: 'https://www.acme-corp.com/images/contact.png', text: 'Contact' },
        { href: 'https://www.acme-corp.com/cdn-cgi/l/email-protection', text: 'Contact' },
        { href: 'https://www.acme-corp.com/contact.html', text: 'Contact' },
        { href: 'https://www.acme-corp.com/about.php', text: 'About' },
      ],
      ['https://www.acme-corp.com/contact.html', 'https://www.acme-corp.com/about.php'],
    ],
    [
      'one entry per page, at its first position with its best label',
      [
        { href: 'https://www.acme-corp.com/page-7', text: '' },
        { href: 'https://www.acme-corp.com/about', text: 'About' },
        { href: 'https://acme-corp.com/page-7/', text: 'Contact' },
      ],
      ['https://www.acme-corp.com/page-7', 'https://www.acme-corp.com/about'],
    ],
    [
      'relative hrefs resolved against the page',
      [{ href: 'kontakt', text: '' }],
      ['https://www.acme-corp.com/kontakt'],
    ],
    [
      'unparseable hrefs skipped',
      [
        { href: 'http://[::1', text: 'Contact' },
        { href: '/contact', text: 'Contact' },
      ],
      ['https://www.acme-corp.com/contact'],
    ],
    [
      'only relevant links',
      [
        { href: '/', text: 'Home' },
        { href: '/shop', text: 'Shop' },
        { href: '/blog/why-we-moved', text: 'Why we moved' },
      ],
      [],
    ],
    [
      'labels of more than eight words are not read',
      [
        { href: '/blog/post-17', text: 'How to contact our support team about your order today' },
        { href: '/blog/post-18', text: 'Contact our support team about your order today' },
      ],
      ['https://www.acme-corp.com/blog/post-18'],
    ],
    [
      'deep paths lose against shallow ones of the same kind',
      [
        { href: '/blog/2019/kontakt-tipps', text: 'Kontakt-Tipps' },
        { href: '/kontakt', text: 'Kontakt' },
        { href: '/ueber-uns', text: 'Über uns' },
      ],
      [
        'https://www.acme-corp.com/kontakt',
        'https://www.acme-corp.com/blog/2019/kontakt-tipps',
        'https://www.acme-corp.com/ueber-uns',
      ],
    ],
  ])('%s', (_, links, expected) => {
    expect(rankDiscoveryLinks(links, base, 8)).toEqual(expected);
  });

  it('returns at most maxLinks', () => {
    const links = ['/contact', '/impressum', '/support', '/about', '/privacy'].map((href) => ({
      href,
      text: '',
    }));
    expect(rankDiscoveryLinks(links, base, 2)).toEqual([
      'https://www.acme-corp.com/contact',
      'https://www.acme-corp.com/impressum',
    ]);
    expect(rankDiscoveryLinks(links, base, 0)).toEqual([]);
  });

  it('returns nothing for a base that is not a URL', () => {
    expect(
      rankDiscoveryLinks([{ href: 'https://acme-corp.com/contact', text: 'Contact' }], 'nope', 8),
    ).toEqual([]);
  });
});
