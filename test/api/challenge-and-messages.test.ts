/**
 * Details a client library relies on: the WWW-Authenticate challenge of every 401 (RFC 9110,
 * RFC 6750), and messages that read as a person wrote them ("1 credit", "… is required").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PREFIX } from '../../shared/auth/api-keys.js';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const SIMILAR = '/v1/profiles/similar?username=amelia-hartmann';

describe('401 invalid_api_key', () => {
  it('challenges with the Bearer scheme and realm, without an error code, when no key was sent', async () => {
    const response = await harness.get(SIMILAR);
    await expectError(response, 401, 'invalid_api_key');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="lookup-service"');
  });

  it.each([
    ['a well-formed key nobody holds', `${API_KEY_PREFIX}${'A'.repeat(66)}`],
    ['a malformed key', 'not-a-key'],
  ])('adds error="invalid_token" when %s was sent', async (_, key) => {
    const response = await harness.get(SIMILAR, key);
    await expectError(response, 401, 'invalid_api_key');
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="lookup-service", error="invalid_token"',
    );
  });

  it('adds error="invalid_token" for a revoked key', async () => {
    const { apiKey, keyId, account } = await harness.provision();
    await harness.repositories.keys.revoke(account.accountId, keyId);
    const response = await harness.get(SIMILAR, apiKey);
    await expectError(response, 401, 'invalid_api_key');
    expect(response.headers.get('www-authenticate')).toMatch(/, error="invalid_token"$/);
  });
});

describe('messages', () => {
  it('count one credit in the singular and more in the plural', async () => {
    const { apiKey } = await harness.provision({ credits: 0 });
    const one = await expectError(await harness.get(SIMILAR, apiKey), 402, 'insufficient_credits');
    expect(one.error.message).toMatch(/^This call costs 1 credit and the balance is 0;/);
    const details = '/v1/profiles/details/by-username?username=amelia-hartmann';
    const two = await expectError(await harness.get(details, apiKey), 402, 'insufficient_credits');
    expect(two.error.message).toMatch(/^This call costs 2 credits and the balance is 0;/);
  });

  it('state prices in the OpenAPI document the same way', async () => {
    const document = (await (await harness.app.request('/openapi.json')).json()) as {
      paths: Record<string, { get: { description: string } }>;
    };
    expect(document.paths['/v1/profiles/similar']?.get.description).toMatch(/Price: 1 credit\.$/);
    expect(document.paths['/v1/profiles/details/by-username']?.get.description).toMatch(
      /Price: 2 credits\.$/,
    );
  });

  it('say that a missing reactionType is required, not which values it takes', async () => {
    const { apiKey } = await harness.provision();
    const slug = 'amelia-hartmann_what-we-learned-scaling-activity-7265401938275610624-Xk3q';
    const body = await expectError(
      await harness.get(`/v1/posts/reactions/by-slug?slug=${slug}`, apiKey),
      400,
      'invalid_request',
    );
    expect(body.error.details).toEqual([
      { field: 'reactionType', code: 'invalid_value', message: 'reactionType is required.' },
    ]);
  });

  it.each([
    ['/v1/profiles/details/by-url', 'profile', 'in/<username>'],
    ['/v1/companies/details/by-url', 'company', 'company/<slug>'],
    ['/v1/posts/details/by-url', 'post', 'posts/<slug>'],
    ['/v1/jobs/details/by-url', 'job', 'jobs/view/<job id>'],
  ])('on %s name the kind of URL and both accepted forms', async (path, kind, shape) => {
    const { apiKey } = await harness.provision();
    const url = encodeURIComponent('https://example.com/elsewhere');
    const body = await expectError(await harness.get(`${path}?url=${url}`, apiKey), 400, 'invalid_request');
    const message = body.error.details[0]?.message ?? '';
    expect(message).toContain(`url must be a ${kind} URL`);
    expect(message).toContain(`https://www.linkedin.com/${shape}`);
    expect(message).toContain(`https://linkedin.com/${shape}`);
  });
});

describe('a key sent the wrong way', () => {
  const V1 = '/v1/profiles/details/by-username?username=amelia-hartmann';
  const V2 = '/api/v2/profiles/amelia-hartmann';
  let apiKey: string;
  beforeAll(async () => {
    ({ apiKey } = await harness.provision({ credits: 10 }));
  });
  const refusal = async (path: string, headers: Record<string, string>, init: RequestInit = {}) => {
    const response = await harness.app.request(path, { ...init, headers: { ...init.headers, ...headers } });
    const body = await expectError(response, 401, 'invalid_api_key');
    expect(body.error.message).not.toContain(apiKey);
    return body;
  };

  it('says a key in Authorization lacks the Bearer scheme, and how to send it', async () => {
    const body = await refusal(V1, { Authorization: apiKey });
    expect(body.error.message).toBe(
      'The Authorization header holds a value without the Bearer scheme; send Authorization: Bearer <API_KEY>.',
    );
  });

  it('names another scheme that was sent instead of Bearer', async () => {
    const body = await refusal(V1, { Authorization: 'Basic dXNlcjpwYXNz' });
    expect(body.error.message).toBe(
      'The Authorization header uses the Basic scheme; send Authorization: Bearer <API_KEY>.',
    );
  });

  it('says the same on /mcp', async () => {
    const body = await refusal(
      '/mcp',
      { Authorization: apiKey },
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      },
    );
    expect(body.error.message).toMatch(/without the Bearer scheme; send Authorization: Bearer <API_KEY>\.$/);
  });

  it('says X-API-Key belongs to /api/v2 when a v1 path gets it', async () => {
    const body = await refusal(V1, { 'X-API-Key': apiKey });
    expect(body.error.message).toBe(
      'No Authorization header was sent, but an X-API-Key header was: X-API-Key is for /api/v2; on /v1 send Authorization: Bearer <API_KEY>.',
    );
  });

  it('says which header /api/v2 reads when both were sent', async () => {
    const body = await refusal(V2, { 'X-API-Key': apiKey, Authorization: `Bearer ${apiKey}` });
    expect(body.error.message).toBe(
      'Both X-API-Key and Authorization were sent; /api/v2 reads only X-API-Key: send the key there and no Authorization header.',
    );
  });

  it('says /api/v2 takes X-API-Key when only Authorization was sent', async () => {
    const body = await refusal(V2, { Authorization: `Bearer ${apiKey}` });
    expect(body.error.message).toBe(
      'An Authorization header was sent; /api/v2 takes the key as X-API-Key: <API_KEY> instead.',
    );
  });
});
