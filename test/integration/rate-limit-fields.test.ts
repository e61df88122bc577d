/**
 * The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers-11: `RateLimit-Policy` and
 * `RateLimit`, structured fields) beside X-RateLimit-* on every metered answer, with the same
 * values: on 200, 402 and 429 over v1, on v2, and in MCP's `_meta` of a tool result.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { type ListeningApp, listen, postJsonRpc } from '../support/mcp-server.js';
import { PRICED_PATH } from '../support/priced-operation.js';

const SERVICE_DOMAIN = 'lookup.test';
let harness: Harness;
let app: ListeningApp;
const clock = new ManualClock(Date.UTC(2026, 10, 26, 12, 0, 0));

beforeAll(async () => {
  harness = await startHarness({ clock, env: { SERVICE_DOMAIN } });
  app = await listen(harness);
});
afterAll(async () => {
  await app?.close();
  await harness?.close();
});

/** The IETF fields as the X-RateLimit-* values say they must read. */
function expectedFields(headers: { get(name: string): string | null }) {
  return {
    policy: `"lookups";q=${headers.get('x-ratelimit-limit')};w=60`,
    rateLimit: `"lookups";r=${headers.get('x-ratelimit-remaining')};t=${headers.get('x-ratelimit-reset')}`,
  };
}

function fields(headers: { get(name: string): string | null }) {
  return { policy: headers.get('ratelimit-policy'), rateLimit: headers.get('ratelimit') };
}

describe('RateLimit-Policy and RateLimit', () => {
  it('are sent on 200, 402 and 429 with the values of X-RateLimit-*', async () => {
    const { apiKey } = await harness.provision({ credits: 1, rateLimit: { limit: 3, windowSeconds: 60 } });
    const ok = await harness.get(PRICED_PATH, apiKey);
    expect(ok.status).toBe(200);
    expect(fields(ok.headers)).toEqual({ policy: '"lookups";q=3;w=60', rateLimit: '"lookups";r=2;t=60' });

    clock.advance(15_500);
    const broke = await harness.get(PRICED_PATH, apiKey);
    expect(broke.status).toBe(402);
    expect(fields(broke.headers)).toEqual({ policy: '"lookups";q=3;w=60', rateLimit: '"lookups";r=1;t=45' });

    await harness.get(PRICED_PATH, apiKey);
    const limited = await harness.get(PRICED_PATH, apiKey);
    expect(limited.status).toBe(429);
    expect(fields(limited.headers)).toEqual({
      policy: '"lookups";q=3;w=60',
      rateLimit: '"lookups";r=0;t=45',
    });
    for (const response of [ok, broke, limited])
      expect(fields(response.headers)).toEqual(expectedFields(response.headers));
  });

  it('are sent on a free metered answer and on a refunded 404', async () => {
    const { apiKey } = await harness.provision({ rateLimit: { limit: 50, windowSeconds: 60 } });
    const free = await harness.get('/v1/emails/disposable?email=a%40b.com', apiKey);
    expect(free.status).toBe(200);
    expect(fields(free.headers)).toEqual(expectedFields(free.headers));
    const refunded = await harness.get(`${PRICED_PATH}?outcome=upstream_error`, apiKey);
    expect(refunded.status).toBe(502);
    expect(fields(refunded.headers)).toEqual(expectedFields(refunded.headers));
  });

  it("name the account reads' own window on GET /v1/account, with its values", async () => {
    const { apiKey } = await harness.provision({ rateLimit: { limit: 50, windowSeconds: 60 } });
    const response = await harness.get('/v1/account', apiKey);
    expect(response.status).toBe(200);
    const limit = response.headers.get('x-ratelimit-limit');
    expect(response.headers.get('ratelimit-policy')).toMatch(new RegExp(`^"account";q=${limit};w=\\d+$`));
    expect(response.headers.get('ratelimit')).toBe(
      `"account";r=${response.headers.get('x-ratelimit-remaining')};t=${response.headers.get('x-ratelimit-reset')}`,
    );
  });

  it('are not sent where X-RateLimit-* are not: a refused key', async () => {
    const unauthorized = await harness.get(PRICED_PATH, 'lk_live_nope');
    expect(unauthorized.status).toBe(401);
    expect(fields(unauthorized.headers)).toEqual({ policy: null, rateLimit: null });
  });

  it('are carried by /api/v2 and by MCP tool results', async () => {
    const { apiKey } = await harness.provision({ rateLimit: { limit: 50, windowSeconds: 60 } });
    const v2 = await fetch(`${app.origin}/api/v2/profiles/amelia-hartmann`, {
      headers: { 'X-API-Key': apiKey },
    });
    expect(v2.status).toBe(200);
    expect(fields(v2.headers)).toEqual(expectedFields(v2.headers));
    expect(v2.headers.get('ratelimit')).toMatch(/^"lookups";r=\d+;t=\d+$/);

    const response = await postJsonRpc(
      app.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_profile_details', arguments: { username: 'amelia-hartmann' } },
      },
      { Authorization: `Bearer ${apiKey}`, 'MCP-Protocol-Version': '2025-06-18' },
    );
    const { result } = (await response.json()) as { result: CallToolResult };
    const meta = result._meta?.[`${SERVICE_DOMAIN}/lookup`] as { headers: Record<string, string> };
    const headers = new Headers(meta.headers);
    expect(fields(headers)).toEqual(expectedFields(headers));
    expect(meta.headers.RateLimit).toMatch(/^"lookups";r=\d+;t=\d+$/);
  });
});
