/**
 * GATEWAY_MCP_ENABLED=false: every /mcp request is answered 503 service_unavailable, not retryable,
 * before anything else is looked at (method, credentials, body); no server card advertises it; REST is
 * unaffected.
 */
import { expect, it } from 'vitest';
import { SERVER_CARD_PATHS } from '../../shared/mcp/server-card.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({ credits: 10 }, { env: { GATEWAY_MCP_ENABLED: 'false' } });

it.each([
  ['a POST with a valid key', 'POST', true],
  ['a POST without credentials', 'POST', false],
  ['a GET', 'GET', false],
])('answers %s with 503 service_unavailable, not retryable', async (_, method, withKey) => {
  const response = await file.harness.app.request('/mcp', {
    method,
    headers: {
      ...(withKey ? { Authorization: `Bearer ${file.apiKey}` } : {}),
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    ...(method === 'POST' ? { body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' } : {}),
  });
  const body = await expectError(response, 503, 'service_unavailable');
  expect(body.error.retryable).toBe(false);
  expect(response.headers.get('retry-after')).toBeNull();
});

it.each(SERVER_CARD_PATHS)('serves no server card at %s (404 resource_not_found)', async (path) => {
  await expectError(await file.harness.app.request(path), 404, 'resource_not_found');
});

it('keeps serving REST', async () => {
  expect((await file.harness.get('/v1/search/service-categories', file.apiKey)).status).toBe(200);
});
