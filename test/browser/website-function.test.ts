import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtFunctions } from '../support/built-functions.js';
import { type LambdaProcess, restRequest, startLambda } from '../support/lambda-process.js';
import { type LambdaTable, openLambdaTable } from '../support/lambda-table.js';

/**
 * Near the largest legal answer: a title of 4,000 multi-byte characters (the field allows 4,096) and
 * page text filling the html field (at most 2,097,152 characters) but for the title and the markup.
 */
const TITLE_CHARS = 4_000;
const TEXT_CHARS = 2_097_152 - TITLE_CHARS - 256;
/** The most a buffered (not streamed) Lambda answer may hold: 6 MB (6,291,456 bytes) of JSON. */
const BUFFERED_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;
let lambdaTable: LambdaTable;
let pages: Server;
let lambda: LambdaProcess;
let apiKey: string;
let pageUrl: string;
let pageText: string;
let pageTitle: string;

/**
 * CJK ideographs (3 bytes each in UTF-8) drawn uniformly at random from 20,000: no real page, but the
 * worst case for size, as gzip finds little to shrink (about 4.5 MB gzipped, 6.05 MB in base64, so
 * compression alone could not fit a buffered answer).
 */
function multiByteText(length: number): string {
  const codes = new Uint16Array(length);
  for (let index = 0; index < length; index += 1) codes[index] = 0x4e00 + Math.floor(Math.random() * 20_000);
  let text = '';
  for (let index = 0; index < codes.length; index += 8192)
    text += String.fromCharCode(...codes.subarray(index, index + 8192));
  return text;
}

beforeAll(async () => {
  await builtFunctions();
  pageText = multiByteText(TEXT_CHARS);
  pageTitle = multiByteText(TITLE_CHARS);
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>${pageTitle}</title></head><body><p>${pageText}</p></body></html>`;
  pages = createServer((_, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  pages.listen(0, '127.0.0.1');
  await once(pages, 'listening');
  const host = `127.0.0.1:${(pages.address() as AddressInfo).port}`;
  pageUrl = `http://${host}/big`;
  lambdaTable = await openLambdaTable('website-function', 100);
  ({ apiKey } = lambdaTable);
  lambda = await startLambda('websites-content', { ...lambdaTable.env, UNSAFE_WEBSITE_ALLOW_HOSTS: host });
}, 300_000);

afterAll(async () => {
  await lambda?.stop();
  pages?.close();
  await lambdaTable?.close();
});

const content = (headers: Record<string, string>) =>
  restRequest(lambda, {
    method: 'GET',
    path: '/v1/websites/content',
    query: [['url', pageUrl]],
    headers: { Authorization: `Bearer ${apiKey}`, ...headers },
  });

function expectWholePage(body: Buffer): void {
  const answer = JSON.parse(body.toString('utf8'));
  expect(answer.data.title).toBe(pageTitle);
  expect(answer.data.html.length).toBeGreaterThan(TEXT_CHARS + TITLE_CHARS);
  expect(answer.data.html.length).toBeLessThanOrEqual(2_097_152);
  expect(answer.data.html).toContain(pageText.slice(0, 1_000));
  expect(answer.data.html).toContain(pageText.slice(-1_000));
}

describe('the websites-content function', () => {
  it('streams a 2,097,152-character multi-byte HTML answer whole, past the 6 MB buffered limit, to a client without Accept-Encoding', async () => {
    const answer = await content({});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    // As a buffered proxy result (what Lambda measures), the same answer would not fit.
    const buffered = { statusCode: answer.status, multiValueHeaders: answer.headers, body: answer.text };
    expect(Buffer.byteLength(JSON.stringify(buffered))).toBeGreaterThan(BUFFERED_RESPONSE_LIMIT_BYTES);
    expectWholePage(answer.body);
  }, 120_000);

  it('streams it gzipped to a client that accepts gzip', async () => {
    const answer = await content({ 'Accept-Encoding': 'gzip' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toEqual(['gzip']);
    expectWholePage(gunzipSync(answer.body));
  }, 120_000);

  it('launched Chromium from beside the bundle with the proxy flags and without --single-process', () => {
    const children = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .flatMap((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          return parent === lambda.pid ? [readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')] : [];
        } catch {
          return [];
        }
      });
    const browser = children.find((args) => args.some((arg) => arg.startsWith('--proxy-server=')));
    expect(browser).toBeDefined();
    expect(browser).not.toContain('--single-process');
    expect(browser).toContain('--proxy-bypass-list=<-loopback>');
    expect(browser).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
    expect(browser).toContain('--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1');
  });
});
