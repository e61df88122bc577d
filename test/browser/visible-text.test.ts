/**
 * Golden outputs of SPEC "Website tools" rule 3 in real Chromium: each page under
 * test/fixtures/websites/ is served on loopback, rendered, and the text extractVisibleText returns must
 * equal the .txt next to it exactly (the golden files end with one newline, as text files do; it is
 * not part of the expected text). The fixtures between them cover every clause: blocks.html (block
 * elements and paragraphs), hidden.html (every hidden-element rule and what is deliberately kept),
 * whitespace.html, frames.html and frameset.html (embedded frames and non-visible media),
 * scripts-styles.html (scripts, styles, templates, text after rendering), nested-lists.html,
 * table.html, shadow-dom.html, empty.html (no visible text). The 2 MiB cap is tested on pages generated
 * here. Chromium is launched directly (test/support/fixture-browser.ts), without the egress proxy.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extractVisibleText,
  MAX_TITLE_CHARS,
  MAX_VISIBLE_TEXT_CHARS,
  type VisibleText,
} from '../../shared/websites/visible-text.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';

const FIXTURES = new URL('../fixtures/websites/', import.meta.url);
const SOURCE = fileURLToPath(new URL('../../shared/websites/visible-text.ts', import.meta.url));

let browser: Browser;
let origin: string;

let fixtures: FixtureBrowser;

beforeAll(async () => {
  fixtures = await startFixtureBrowser();
  browser = fixtures.browser;
  origin = fixtures.origin;
});

afterAll(() => fixtures?.close());

async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 1280, height: 800 });
    return await run(page);
  } finally {
    await page.close();
  }
}

async function golden(name: string): Promise<string> {
  const text = await readFile(new URL(`${name}.txt`, FIXTURES), 'utf8');
  return text.replace(/\n$/, '');
}

function renderFixture(name: string, extract: typeof extractVisibleText = extractVisibleText) {
  return withPage(async (page) => {
    const response = await page.goto(`${origin}/${name}.html`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    return page.evaluate(extract, MAX_VISIBLE_TEXT_CHARS);
  });
}

function renderHtml(html: string, maxChars?: number): Promise<VisibleText> {
  return withPage(async (page) => {
    await page.setContent(html, { waitUntil: 'load' });
    return maxChars === undefined
      ? page.evaluate(extractVisibleText)
      : page.evaluate(extractVisibleText, maxChars);
  });
}

describe('extractVisibleText: golden pages', () => {
  it.each<[string, string | null]>([
    ['blocks', 'Blocks and paragraphs'],
    ['hidden', 'Hidden content'],
    ['whitespace', null],
    ['frames', 'Frames and media'],
    ['frameset', 'Frameset'],
    ['scripts-styles', 'Scripts and styles'],
    ['nested-lists', 'Lists'],
    ['table', 'Table'],
    ['shadow-dom', 'Shadow DOM'],
    ['empty', 'Nothing to see'],
  ])('renders %s.html to its golden text', async (name, title) => {
    const result = await renderFixture(name);
    expect(result).toEqual({ title, text: await golden(name) });
  });

  it('returns empty text, not an error, for a page with nothing visible', async () => {
    const result = await renderFixture('empty');
    expect(result.text).toBe('');
  });

  it('still works when the function was compiled with esbuild keepNames (as tsx and bundles may do)', async () => {
    const bundle = await build({
      entryPoints: [SOURCE],
      bundle: true,
      format: 'iife',
      globalName: 'visibleTextModule',
      keepNames: true,
      write: false,
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]?.text ?? '';
    expect(code).toContain('__name(');
    const compiled = new Function(`${code}; return visibleTextModule;`)() as {
      extractVisibleText: typeof extractVisibleText;
    };
    // Only the function's own source reaches the page; the bundle's __name helper stays behind.
    expect(compiled.extractVisibleText.toString()).not.toContain('__name');
    const result = await renderFixture('blocks', compiled.extractVisibleText);
    expect(result.text).toBe(await golden('blocks'));
  });
});

describe('extractVisibleText: the 2 MiB cap', () => {
  it('cuts the text at 2,097,152 characters and trims what the cut leaves at the end', async () => {
    const paragraphs = Array.from({ length: 2_200 }, (_, index) => `${index} ${'x'.repeat(1_000)}`);
    const full = paragraphs.join('\n\n');
    expect(full.length).toBeGreaterThan(MAX_VISIBLE_TEXT_CHARS);
    const result = await renderHtml(`<body>${paragraphs.map((text) => `<p>${text}</p>`).join('')}</body>`);
    expect(result.text.length).toBeLessThanOrEqual(MAX_VISIBLE_TEXT_CHARS);
    expect(result.text).toBe(full.slice(0, MAX_VISIBLE_TEXT_CHARS).trimEnd());
  });

  it('never splits a surrogate pair at the cap', async () => {
    const text = `${'a'.repeat(MAX_VISIBLE_TEXT_CHARS - 1)}\u{1F600}b`;
    const result = await renderHtml(`<body><p>${text}</p></body>`);
    expect(result.text).toBe('a'.repeat(MAX_VISIBLE_TEXT_CHARS - 1));
  });

  it('keeps a page of exactly the cap whole', async () => {
    const text = 'b'.repeat(MAX_VISIBLE_TEXT_CHARS);
    const result = await renderHtml(`<body><p>${text}</p></body>`);
    expect(result.text).toBe(text);
  });

  it.each<[string, number, string]>([
    ['<p>abcd\u{1F600}</p>', 5, 'abcd'],
    ['<p>abcd\u{1F600}</p>', 6, 'abcd\u{1F600}'],
    ['<p>ab</p><p>cd</p>', 3, 'ab'],
    ['<p>ab</p><p>cd</p>', 4, 'ab'],
    ['<p>ab</p><p>cd</p>', 5, 'ab\n\nc'],
    ['<p>ab cd</p>', 3, 'ab'],
    ['<p>abc</p>', 0, ''],
  ])('cuts %s at %i characters to %j', async (body, maxChars, expected) => {
    const result = await renderHtml(`<body>${body}</body>`, maxChars);
    expect(result.text).toBe(expected);
  });

  it('cuts a long title at 4096 characters without splitting a surrogate pair', async () => {
    const result = await renderHtml(`<title>${'t'.repeat(MAX_TITLE_CHARS - 1)}\u{1F600}</title><p>x</p>`);
    expect(result.title).toBe('t'.repeat(MAX_TITLE_CHARS - 1));
  });
});
