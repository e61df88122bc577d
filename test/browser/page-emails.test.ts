/**
 * Email candidates and discovery links collected in real Chromium from
 * test/fixtures/websites/contact-emails.html, a German contact page that publishes addresses in every
 * form the discovery must find (mailto links with queries and several recipients, bracketed and
 * spoken obfuscation, HTML entities and a double-encoded one, Cloudflare's data-cfemail and
 * /cdn-cgi/l/email-protection link, JSON-LD nested in @graph, microdata, a title attribute, an image
 * alt, a meta tag, an open shadow root) next to every false positive it must drop (image names,
 * reserved and placeholder addresses, Sentry DSNs in text and in a script, hidden honeypots). The
 * expected lists are exact: order is part of the contract (first appearance decides which 100 are
 * returned).
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeCandidates, rankDiscoveryLinks } from '../../shared/websites/email-addresses.js';
import { collectPageEmails, collectPageLinks, type PageLink } from '../../shared/websites/page-emails.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';

const _FIXTURES = new URL('../fixtures/websites/', import.meta.url);
const SOURCE = fileURLToPath(new URL('../../shared/websites/page-emails.ts', import.meta.url));

let browser: Browser;
let origin: string;
let page: Page;
let pageUrl: string;
let candidates: string[];
let links: PageLink[];

let fixtures: FixtureBrowser;

beforeAll(async () => {
  fixtures = await startFixtureBrowser();
  browser = fixtures.browser;
  origin = fixtures.origin;
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const response = await page.goto(`${origin}/contact-emails.html`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  pageUrl = page.url();
  candidates = await page.evaluate(collectPageEmails);
  links = await page.evaluate(collectPageLinks);
});

afterAll(() => fixtures?.close());

const at = (local: string) => `${local}@brightwater-tools.de`;

describe('collectPageEmails + normalizeCandidates', () => {
  it('finds every published address, in order of first appearance, without false positives', () => {
    expect(normalizeCandidates(candidates, pageUrl)).toEqual([
      // mailto: links, document first, then the open shadow root
      at('info'),
      at('max.power'),
      at('service'),
      at('kundendienst'),
      // Cloudflare: data-cfemail, then the /cdn-cgi/l/email-protection#… link
      at('geschuetzt'),
      at('cloud'),
      // JSON-LD (nested in @graph and contactPoint, "mailto:" prefixed, mixed case), then microdata
      at('zentrale'),
      at('vertrieb'),
      at('presse'),
      at('garantie'),
      // rendered text: bracketed, parenthesized, spoken, entity, named entities, double-encoded entity,
      // then the shadow root's text
      at('buchhaltung'),
      at('einkauf'),
      at('jobs'),
      at('datenschutz'),
      at('lager'),
      at('technik'),
      at('filiale'),
      // attributes: meta content, title, image alt
      at('redaktion'),
      at('assistenz'),
      at('empfang'),
    ]);
  });

  it("decodes Cloudflare-protected addresses in the page even though Cloudflare's script never ran", () => {
    expect(candidates).toContain(at('geschuetzt'));
    expect(candidates).toContain(at('cloud'));
  });

  it('reads mailto: links decoded, without their query, with every recipient', () => {
    expect(candidates).toContain(at('info'));
    expect(candidates).toContain(`Max Power <${at('max.power')}>,${at('service')}`);
    expect(candidates.some((candidate) => candidate.includes('subject='))).toBe(false);
  });

  it('leaves out hidden honeypots, script source and unparseable JSON-LD', () => {
    const all = candidates.join('\n');
    for (const trap of ['falle', 'falle2', 'falle3', 'falle4', 'falle5', 'script', 'broken']) {
      expect(all).not.toContain(at(trap));
    }
    expect(all).not.toContain('o123456.ingest.sentry.io/987654');
  });

  it('drops the false positives the page shows as text', () => {
    const all = candidates.join('\n');
    for (const shown of ['logo@2x.png', 'someone@example.com', 'your@email.com', 'name@domain.com']) {
      expect(all).toContain(shown);
    }
    const found = normalizeCandidates(candidates, pageUrl);
    expect(found.filter((address) => !address.endsWith('@brightwater-tools.de'))).toEqual([]);
  });
});

describe('collectPageLinks + rankDiscoveryLinks', () => {
  it('collects links from the document and its open shadow roots with their labels', () => {
    expect(links).toContainEqual({ href: `${origin}/ueber-uns/`, text: 'Über uns' });
    expect(links).toContainEqual({ href: `${origin}/kontakt`, text: 'Kontakt' });
    expect(links).toContainEqual({ href: `mailto:${at('kundendienst')}`, text: 'Kundendienst' });
  });

  it('ranks same-site contact, imprint, help, about and privacy pages, dropping the page itself', () => {
    expect(rankDiscoveryLinks(links, pageUrl, 8)).toEqual([
      `${origin}/kontakt`,
      `${origin}/impressum`,
      `${origin}/hilfe/faq`,
      `${origin}/ueber-uns/`,
      `${origin}/datenschutz`,
    ]);
  });
});

describe('in-page functions', () => {
  it('still work when compiled with esbuild keepNames (as tsx and bundles may do)', async () => {
    const bundle = await build({
      entryPoints: [SOURCE],
      bundle: true,
      format: 'iife',
      globalName: 'pageEmailsModule',
      keepNames: true,
      write: false,
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]?.text ?? '';
    expect(code).toContain('__name(');
    const compiled = new Function(`${code}; return pageEmailsModule;`)() as {
      collectPageEmails: typeof collectPageEmails;
      collectPageLinks: typeof collectPageLinks;
    };
    expect(await page.evaluate(compiled.collectPageEmails)).toEqual(candidates);
    expect(await page.evaluate(compiled.collectPageLinks)).toEqual(links);
  });
});
