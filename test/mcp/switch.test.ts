/**
 * GATEWAY_MCP_ENABLED=false: every /mcp request is answered 503 service_unavailable, not retryable,
 * before anything else is looked at (method, credentials, body); REST is unaffected.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';

let harness: Harness;
let apiKey: string;

beforeAll(async () => {
  harness = await startHarness({ env: { GATEWAY_MCP_ENABLED: 'false' } });
  ({ apiKey } = await harness.provision({ credits: 10 }));
});
afterAll(() => harness.close());

it.each([
  ['a POST with a valid key', 'POST', true],
  ['a POST without credentials', 'POST', false],
  ['a GET', 'GET', false],
])('answers %s with 503 service_unavailable, not retryable', async (_, method, withKey) => {
  const response = await harness.app.request('/mcp', {
    method,
    headers: {
      ...(withKey ? { Authorization: `Bearer ${apiKey}` } : {}),
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    ...(method === 'POST' ? { body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' } : {}),
  });
  const body = await expectError(response, 503, 'service_unavailable');
  expect(body.error.retryable).toBe(false);
  expect(response.headers.get('retry-after')).toBeNull();
});

it('keeps serving REST', async () => {
  expect((await harness.get('/v1/search/service-categories', apiKey)).status).toBe(200);
});
