/**
 * The OpenAPI document and /docs (free, unauthenticated, no CDN), response compression, and the
 * one structured log line per request.
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { createAllImplementations } from '../../shared/operations/index.js';
import { createService } from '../../shared/service.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({}, { env: { PRICE_OVERRIDES: '{"test.priced":7}' } });

describe('GET /openapi.json', () => {
  it('publishes an OpenAPI 3.1 document of every catalog path, with prices in force, without a key', async () => {
    const response = await file.harness.app.request('/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<
        string,
        {
          get: {
            description: string;
            parameters: { name: string; in: string }[];
            responses: Record<string, unknown>;
          };
        }
      >;
    };
    expect(document.openapi).toBe('3.1.0');
    const disposable = document.paths['/v1/emails/disposable']?.get;
    expect(disposable?.description).toMatch(/Price: free\./);
    expect(disposable?.parameters).toEqual([expect.objectContaining({ name: 'email', in: 'query' })]);
    expect(Object.keys(disposable?.responses ?? {}).sort()).toEqual(
      ['200', '400', '401', '403', '405', '406', '415', '429', '500', '503'].sort(),
    );
    expect(document.paths['/v1/test/priced']?.get.description).toMatch(/Price: 7 credits\./);
  });

  it('charges an overridden price', async () => {
    const response = await file.harness.get('/v1/test/priced', file.apiKey);
    expect(((await response.json()) as { meta: { creditCost: number } }).meta.creditCost).toBe(7);
  });
});

describe('GET /docs', () => {
  it('serves the interactive reference with assets from the installed package, not a CDN', async () => {
    const page = await (await file.harness.app.request('/docs')).text();
    expect(page).toContain('/openapi.json');
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(source.startsWith('/docs/assets/')).toBe(true);
      const asset = await file.harness.app.request(source);
      expect(asset.status).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it('carries a strict Content-Security-Policy that admits its one inline script by hash, and the page headers', async () => {
    const response = await file.harness.app.request('/docs');
    const policy = response.headers.get('content-security-policy') ?? '';
    const page = await response.text();
    const inline = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] as string);
    expect(inline).toHaveLength(1);
    const hash = createHash('sha256')
      .update(inline[0] as string)
      .digest('base64');
    const directives = new Map(
      policy.split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'", `'sha256-${hash}'`]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);
    // Try it out sends requests to the document's server, PUBLIC_BASE_URL.
    expect(directives.get('connect-src')).toEqual([
      "'self'",
      new URL(file.harness.config.PUBLIC_BASE_URL).origin,
    ]);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('answers an unknown asset with the 404 envelope', async () => {
    expect((await file.harness.app.request('/docs/assets/package.json')).status).toBe(404);
  });
});

describe('compression', () => {
  it.each([
    ['br', (bytes: Buffer) => brotliDecompressSync(bytes)],
    ['gzip', (bytes: Buffer) => gunzipSync(bytes)],
  ])('sends %s when the client accepts it', async (encoding, decompress) => {
    const response = await file.harness.app.request('/openapi.json', {
      headers: { 'Accept-Encoding': encoding },
    });
    expect(response.headers.get('content-encoding')).toBe(encoding);
    const text = decompress(Buffer.from(await response.arrayBuffer())).toString('utf8');
    expect(JSON.parse(text).openapi).toBe('3.1.0');
  });

  it('prefers br, and sends identity when nothing it has is accepted', async () => {
    const both = await file.harness.app.request('/openapi.json', {
      headers: { 'Accept-Encoding': 'gzip, br' },
    });
    expect(both.headers.get('content-encoding')).toBe('br');
    const none = await file.harness.app.request('/openapi.json', {
      headers: { 'Accept-Encoding': 'identity' },
    });
    expect(none.headers.get('content-encoding')).toBeNull();
  });
});

describe('request log', () => {
  it('writes one JSON line per request with id, account, operation, status, cost and latency, never the key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const service = createService({
      config: file.harness.config,
      store: file.harness.store,
      clock: file.harness.clock,
      logger: createLogger('info', sink),
      implementations: createAllImplementations,
      operations: catalog,
    });
    const response = await service.app.request('/v1/emails/disposable?email=a%40b.com', {
      headers: { Authorization: `Bearer ${file.apiKey}` },
    });
    await service.app.request('/nowhere');
    await new Promise((resolve) => setImmediate(resolve));
    const requests = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      requestId: response.headers.get('x-request-id'),
      accountId: expect.stringMatching(/^acct_/),
      keyId: expect.stringMatching(/^key_/),
      operation: 'emails.disposable',
      status: 200,
      creditCost: 0,
      latencyMs: expect.any(Number),
    });
    expect(requests[1]).toMatchObject({ status: 404, path: '/nowhere' });
    expect(lines.join('\n')).not.toContain(file.apiKey);
    expect(lines.join('\n')).not.toContain(file.apiKey.slice(8, 40));
  });
});

describe('start-up warnings', () => {
  it('warns about every UNSAFE_* allow-list that is set, and about none otherwise', async () => {
    const warnings = (env: Record<string, string>) => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      createService({
        config: loadConfig({ LOG_LEVEL: 'silent', ...env }),
        store: file.harness.store,
        clock: file.harness.clock,
        logger: createLogger('warn', sink),
        implementations: createAllImplementations,
        operations: catalog,
      });
      return lines.map((line) => JSON.parse(line).msg as string);
    };
    expect(warnings({})).toEqual([]);
    const both = warnings({
      UNSAFE_SMTP_ALLOW_HOSTS: '127.0.0.1:2525',
      UNSAFE_WEBSITE_ALLOW_HOSTS: '127.0.0.1:8080',
      UNSAFE_BATCH_URL_ALLOW_HOSTS: '127.0.0.1:9090',
    });
    expect(both).toEqual([
      expect.stringMatching(/^UNSAFE_SMTP_ALLOW_HOSTS is set/),
      expect.stringMatching(/^UNSAFE_WEBSITE_ALLOW_HOSTS is set/),
      expect.stringMatching(/^UNSAFE_BATCH_URL_ALLOW_HOSTS is set/),
    ]);
  });

  it('refuses a malformed allow-list at start-up, naming the variable', () => {
    expect(() => loadConfig({ UNSAFE_SMTP_ALLOW_HOSTS: '10.0.0.0/8' })).toThrow(/UNSAFE_SMTP_ALLOW_HOSTS/);
  });
});
