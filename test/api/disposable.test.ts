/**
 * GET /v1/emails/disposable through the real app and the real DynamoDB API: every status the spec
 * lists for it, with its exact body and headers.
 */
import { describe, expect, it } from 'vitest';
import { disposableCheck } from '../../schemas/operations/emails.js';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { implement } from '../../shared/pipeline/operation.js';
import { createService } from '../../shared/service.js';
import { createDynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { createDynamoTable } from '../../shared/store/dynamodb/table.js';
import { expectError, headerNames, rateLimitHeaderNames } from '../support/assertions.js';
import { harnessForFile, startHarness } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';

const PATH = '/v1/emails/disposable';
const file = harnessForFile({ credits: 0 });

describe('200', () => {
  it('answers a listed domain as disposable, free, with rate-limit headers', async () => {
    const response = await file.harness.get(`${PATH}?email=someone%40mailinator.com`, file.apiKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { domain: 'mailinator.com', isDisposable: true },
      meta: { creditCost: 0 },
    });
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{20}$/);
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    expect(response.headers.get('x-credits-remaining')).toBeNull();
  });

  it('answers an unlisted domain as not disposable, still free', async () => {
    const response = await file.harness.get(`${PATH}?email=jane%40example.org`, file.apiKey);
    expect(await response.json()).toEqual({
      data: { domain: 'example.org', isDisposable: false },
      meta: { creditCost: 0 },
    });
  });

  it.each([
    ['Someone@MAILINATOR.COM', 'mailinator.com'],
    ['someone@mailinator.com.', 'mailinator.com'],
    ['a@b@Mailinator.com', 'mailinator.com'],
    ['user@bücher.example', 'xn--bcher-kva.example'],
    ['user@ＭＡＩＬＩＮＡＴＯＲ.com', 'mailinator.com'],
  ])('normalizes the domain of %s to %s', async (email, domain) => {
    const response = await file.harness.get(`${PATH}?email=${encodeURIComponent(email)}`, file.apiKey);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { domain: string } }).data.domain).toBe(domain);
  });

  it('checks exact membership: a subdomain of a listed domain is not listed', async () => {
    const response = await file.harness.get(`${PATH}?email=a%40mail.mailinator.com`, file.apiKey);
    expect(((await response.json()) as { data: { isDisposable: boolean } }).data.isDisposable).toBe(false);
  });

  it('ignores a client-sent X-Request-Id and mints its own', async () => {
    const response = await file.harness.get(`${PATH}?email=a%40b.com`, file.apiKey, {
      headers: { 'X-Request-Id': 'mine' },
    });
    expect(response.headers.get('x-request-id')).not.toBe('mine');
  });

  it('accepts a declared Content-Type: application/json with no body', async () => {
    const response = await file.harness.get(`${PATH}?email=a%40b.com`, file.apiKey, {
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(200);
  });
});

describe('400', () => {
  it.each([
    ['', 'email', 'invalid_value'],
    ['?email=ab', 'email', 'invalid_value'],
    ['?email=no-at-sign', 'email', 'invalid_format'],
    ['?email=someone%40', 'email', 'invalid_format'],
    ['?email=someone%40exa%20mple.com', 'email', 'invalid_format'],
    [`?email=${'a'.repeat(250)}%40b.com`, 'email', 'too_long'],
    ['?email=a%40b.com&email=c%40d.com', 'email', 'repeated_parameter'],
    ['?email=a%40b.com&verbose=1', 'verbose', 'unknown_parameter'],
  ])('refuses %s with %s %s', async (query, field, code) => {
    const response = await file.harness.get(`${PATH}${query}`, file.apiKey);
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.retryable).toBe(false);
    expect(body.error.details).toContainEqual(expect.objectContaining({ field, code }));
    expect(headerNames(response)).not.toContain('x-ratelimit-limit');
  });

  it('reports at most 16 details', async () => {
    const query = Array.from({ length: 30 }, (_, index) => `p${index}=1`).join('&');
    const body = await expectError(
      await file.harness.get(`${PATH}?${query}`, file.apiKey),
      400,
      'invalid_request',
    );
    expect(body.error.details).toHaveLength(16);
  });
});

describe('401', () => {
  it.each([
    ['no key', undefined],
    ['a malformed key', 'not-a-key'],
    ['a well-formed unknown key', `lk_live_${'A'.repeat(66)}`],
  ])('refuses %s', async (_, key) => {
    const body = await expectError(
      await file.harness.get(`${PATH}?email=a%40b.com`, key),
      401,
      'invalid_api_key',
    );
    expect(body.error.retryable).toBe(false);
  });

  it('refuses a revoked key', async () => {
    const { account, apiKey: key, keyId } = await file.harness.provision();
    await file.harness.repositories.keys.revoke(account.accountId, keyId);
    await expectError(await file.harness.get(`${PATH}?email=a%40b.com`, key), 401, 'invalid_api_key');
  });

  it('refuses an expired key', async () => {
    const { account } = await file.harness.provision();
    const { apiKey: key } = await file.harness.repositories.keys.issue(account.accountId, {
      expiresAt: new Date(file.harness.clock.now() - 1000).toISOString(),
    });
    await expectError(await file.harness.get(`${PATH}?email=a%40b.com`, key), 401, 'invalid_api_key');
  });

  it('refuses a key sent without the Bearer scheme', async () => {
    await expectError(
      await file.harness.app.request(`${PATH}?email=a%40b.com`, { headers: { Authorization: file.apiKey } }),
      401,
      'invalid_api_key',
    );
  });
});

describe('403', () => {
  it('refuses a suspended account', async () => {
    const { account, apiKey: key } = await file.harness.provision();
    await file.harness.repositories.accounts.setStatus(account.accountId, 'suspended', { actor: 'test' });
    const body = await expectError(
      await file.harness.get(`${PATH}?email=a%40b.com`, key),
      403,
      'insufficient_scope',
    );
    expect(body.error.message).toMatch(/suspended/);
  });

  it('refuses a key whose scopes exclude the email family', async () => {
    const { apiKey: key } = await file.harness.provision({ scopes: ['profiles'] });
    const body = await expectError(
      await file.harness.get(`${PATH}?email=a%40b.com`, key),
      403,
      'insufficient_scope',
    );
    expect(body.error.message).toMatch(/emails/);
    expect(headerNames(await file.harness.get(`${PATH}?email=a%40b.com`, key))).not.toContain(
      'x-ratelimit-limit',
    );
  });
});

describe('405, 406, 415', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'])(
    'answers %s with 405 and Allow: GET',
    async (method) => {
      const response = await file.harness.app.request(`${PATH}?email=a%40b.com`, {
        method,
        headers: { Authorization: `Bearer ${file.apiKey}` },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      if (method !== 'HEAD') await expectError(response, 405, 'method_not_allowed');
    },
  );

  it.each(['text/html', 'application/xml, text/plain', 'application/json;q=0'])(
    'answers Accept: %s with 406',
    async (accept) => {
      await expectError(
        await file.harness.get(`${PATH}?email=a%40b.com`, file.apiKey, { headers: { Accept: accept } }),
        406,
        'not_acceptable',
      );
    },
  );

  it.each(['*/*', 'application/*', 'text/html, application/json;q=0.5'])(
    'accepts Accept: %s',
    async (accept) => {
      expect(
        (await file.harness.get(`${PATH}?email=a%40b.com`, file.apiKey, { headers: { Accept: accept } }))
          .status,
      ).toBe(200);
    },
  );

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'answers a declared Content-Type: %s with 415',
    async (contentType) => {
      await expectError(
        await file.harness.get(`${PATH}?email=a%40b.com`, file.apiKey, {
          headers: { 'Content-Type': contentType },
        }),
        415,
        'unsupported_media_type',
      );
    },
  );

  it('answers a GET that announces a body with 415', async () => {
    await expectError(
      await file.harness.get(`${PATH}?email=a%40b.com`, file.apiKey, { headers: { 'Content-Length': '7' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('checks the method before the key', async () => {
    await expectError(await file.harness.app.request(PATH, { method: 'POST' }), 405, 'method_not_allowed');
  });
});

describe('404 for unknown paths', () => {
  it.each(['/v1/emails', '/v1/emails/disposable/extra', '/v2/anything'])(
    'answers %s in the envelope',
    async (path) => {
      const body = await expectError(await file.harness.app.request(path), 404, 'resource_not_found');
      expect(body.error.details).toEqual([]);
    },
  );
});

describe('429', () => {
  it('refuses the request past the ceiling with Retry-After and X-RateLimit-*', async () => {
    const { apiKey: key } = await file.harness.provision({ rateLimit: { limit: 2, windowSeconds: 60 } });
    expect((await file.harness.get(`${PATH}?email=a%40b.com`, key)).status).toBe(200);
    expect((await file.harness.get(`${PATH}?email=a%40b.com`, key)).status).toBe(200);
    const response = await file.harness.get(`${PATH}?email=a%40b.com`, key);
    const body = await expectError(response, 429, 'rate_limit_exceeded');
    expect(body.error.retryable).toBe(true);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-limit')).toBe('2');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    expect(response.headers.get('x-credits-remaining')).toBeNull();
  });
});

describe('500', () => {
  it('answers a failure inside the check with internal_error, not retryable, without account headers', async () => {
    const failing = await startHarness({
      implementations: implement([disposableCheck], {
        'emails.disposable': async () => {
          throw new RangeError('snapshot corrupted');
        },
      }),
    });
    try {
      const { apiKey: key } = await failing.provision();
      const response = await failing.get(`${PATH}?email=a%40b.com`, key);
      const body = await expectError(response, 500, 'internal_error');
      expect(body.error.retryable).toBe(false);
      expect(body.error.message).not.toMatch(/snapshot/);
      for (const name of [...rateLimitHeaderNames, 'x-credits-remaining'])
        expect(response.headers.get(name)).toBeNull();
    } finally {
      await failing.close();
    }
  });
});

describe('503', () => {
  it('answers service_unavailable, retryable, with Retry-After when the store cannot be reached', async () => {
    // A real DynamoDB client pointed at a port nothing listens on.
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const store = createDynamoStore(
      createDynamoTable({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', table: 'gone' }),
    );
    const service = createService({
      config,
      store,
      clock: new ManualClock(),
      logger: createLogger('silent'),
      implementations: () =>
        implement([disposableCheck], { 'emails.disposable': async () => ({ data: {} }) }),
      operations: [disposableCheck],
    });
    const response = await service.app.request(`${PATH}?email=a%40b.com`, {
      headers: { Authorization: `Bearer ${file.apiKey}` },
    });
    const body = await expectError(response, 503, 'service_unavailable');
    expect(body.error.retryable).toBe(true);
    expect(response.headers.get('retry-after')).toBe('5');
    await store.close();
  });
});
