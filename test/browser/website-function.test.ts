import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../functions/lambda/rest-adapter.js';
import { builtFunctions } from '../support/built-functions.js';
import { type LambdaProcess, startLambda } from '../support/lambda-process.js';
import { type LambdaTable, openLambdaTable } from '../support/lambda-table.js';
import { restApiEvent } from '../support/rest-api-event.js';

/** Characters of page text: the html field (at most 2,097,152) also holds the markup around it. */
const TEXT_CHARS = 2_097_152 - 256;
let lambdaTable: LambdaTable;
let pages: Server;
let lambda: LambdaProcess;
let apiKey: string;
let pageUrl: string;

/**
 * CJK ideographs (3 bytes each in UTF-8) drawn at random from the 2,000 most common, as in running
 * text. Uniformly random over 20,000 ideographs (no real page) gzips to 4.5 MB, 6.05 MB in base64:
 * over the limit, which only Lambda response streaming would lift.
 */
function multiByteText(length: number): string {
  const codes = new Uint16Array(length);
  for (let index = 0; index < length; index += 1) codes[index] = 0x4e00 + Math.floor(Math.random() * 2_000);
  let text = '';
  for (let index = 0; index < codes.length; index += 8192)
    text += String.fromCharCode(...codes.subarray(index, index + 8192));
  return text;
}

beforeAll(async () => {
  await builtFunctions();
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>big</title></head><body><p>${multiByteText(TEXT_CHARS)}</p></body></html>`;
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

async function content(headers: Record<string, string>): Promise<APIGatewayProxyResult> {
  const event = restApiEvent({
    method: 'GET',
    path: '/v1/websites/content',
    query: [['url', pageUrl]],
    headers: { Authorization: `Bearer ${apiKey}`, ...headers },
  });
  return (await lambda.invoke<APIGatewayProxyResult>(event)).result;
}

function expectFitsAndDecodes(result: APIGatewayProxyResult): void {
  expect(result.statusCode).toBe(200);
  expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  expect(result.isBase64Encoded).toBe(true);
  expect(result.multiValueHeaders?.['content-encoding']).toEqual(['gzip']);
  const body = JSON.parse(gunzipSync(Buffer.from(result.body, 'base64')).toString('utf8'));
  expect(body.data.html.length).toBeGreaterThan(TEXT_CHARS);
  // Uncompressed, the same answer would not fit.
  expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT_BYTES);
}

describe('the websites-content function', () => {
  it('returns a 2,097,152-character multi-byte HTML answer gzipped under 6 MB when gzip is accepted', async () => {
    expectFitsAndDecodes(await content({ 'Accept-Encoding': 'gzip' }));
  }, 120_000);

  it('returns it gzipped under 6 MB to a client that sent no Accept-Encoding', async () => {
    expectFitsAndDecodes(await content({}));
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
