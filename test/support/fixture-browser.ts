/**
 * For the page-side tests: the fixture pages under test/fixtures/websites/ served on loopback, and
 * Chromium launched directly (no egress proxy: these pages make no requests of their own).
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';

export const FIXTURES = new URL('../fixtures/websites/', import.meta.url);

export interface FixtureBrowser {
  browser: Browser;
  /** `http://127.0.0.1:PORT`; `/<name>.html` serves that fixture. */
  origin: string;
  close(): Promise<void>;
}

/** `extraArgs`: Chromium switches on top of the ones the website functions launch it with. */
export async function startFixtureBrowser(extraArgs: string[] = []): Promise<FixtureBrowser> {
  const server = createServer((request, response) => {
    const name = new URL(request.url ?? '/', 'http://fixtures').pathname.slice(1);
    if (!/^[a-z-]+\.html$/.test(name)) {
      response.writeHead(404).end();
      return;
    }
    readFile(new URL(name, FIXTURES)).then(
      (body) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, '--no-sandbox', ...extraArgs],
    headless: 'shell',
  });
  return {
    browser,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
