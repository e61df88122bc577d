/**
 * Spend caps per key, on each store adapter (SQLite, and DynamoDB on dynalite), through the real
 * server on loopback: a key's daily and monthly caps are enforced in the same atomic admission as the
 * balance and the rate window, exactly under concurrency across v1, v2 and MCP; a call the cap does
 * not cover is 402 naming the cap and its reset; the caps reset at the UTC day and month boundaries;
 * a refunded call gives its credits back to the period it was taken from.
 */

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { itemKeys } from '../../shared/store/dynamodb/keys.js';
import type { SqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import { type Harness, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { type ListeningApp, listen, postJsonRpc } from '../support/mcp-server.js';

const SERVICE_DOMAIN = 'lookup.test';
const USERNAME = 'amelia-hartmann';
/** profiles.details costs 2 credits on every transport. */
const V1_PATH = `/v1/profiles/details/by-username?username=${USERNAME}`;
const V2_PATH = `/api/v2/profiles/${USERNAME}`;
const UNKNOWN_PATH = '/v1/profiles/details/by-username?username=nobody-at-all';

interface Answer {
  status: number;
  creditsRemaining: string | undefined;
  message?: string;
  details?: unknown[];
  /** MCP only: the text an agent reads. */
  text?: string;
}

describe.each(storeKinds)('on the %s store', (kind) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 12, 0, 0));
  let harness: Harness;
  let app: ListeningApp;
  let rpcId = 0;

  beforeAll(async () => {
    harness = await startHarness({ clock, store: kind, env: { SERVICE_DOMAIN } });
    app = await listen(harness);
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
  });

  async function cappedKey(caps: { dailyCreditCap?: number; monthlyCreditCap?: number }, credits = 1_000) {
    const { account } = await harness.provision({ credits, rateLimit: { limit: 10_000, windowSeconds: 60 } });
    const { apiKey, record } = await harness.repositories.keys.issue(account.accountId, caps);
    return { accountId: account.accountId, keyId: record.keyId, apiKey };
  }

  async function http(path: string, headers: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${app.origin}${path}`, { headers });
    const body = (await response.json()) as { error?: { message: string; details: unknown[] } };
    return {
      status: response.status,
      creditsRemaining: response.headers.get('x-credits-remaining') ?? undefined,
      ...(body.error ? { message: body.error.message, details: body.error.details } : {}),
    };
  }

  const v1 = (apiKey: string, path = V1_PATH) => http(path, { Authorization: `Bearer ${apiKey}` });
  const v2 = (apiKey: string) => http(V2_PATH, { 'X-API-Key': apiKey });

  async function mcp(apiKey: string): Promise<Answer> {
    rpcId += 1;
    const response = await postJsonRpc(
      app.url,
      {
        jsonrpc: '2.0',
        id: rpcId,
        method: 'tools/call',
        params: { name: 'get_profile_details', arguments: { username: USERNAME } },
      },
      { Authorization: `Bearer ${apiKey}`, 'MCP-Protocol-Version': '2025-06-18' },
    );
    const { result } = (await response.json()) as { result: CallToolResult };
    const meta = result._meta?.[`${SERVICE_DOMAIN}/lookup`] as {
      status: number;
      headers: Record<string, string>;
    };
    const body = result.structuredContent as { error?: { message: string; details: unknown[] } };
    const [first] = result.content;
    return {
      status: meta.status,
      creditsRemaining: meta.headers['X-Credits-Remaining'],
      text: first?.type === 'text' ? first.text : undefined,
      ...(body.error ? { message: body.error.message, details: body.error.details } : {}),
    };
  }

  it('admits exactly 5 of 50 concurrent 2-credit calls under a daily cap of 10, across v1, v2 and MCP', async () => {
    const { accountId, keyId, apiKey } = await cappedKey({ dailyCreditCap: 10 });
    const transports = [v1, v2, mcp];
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => (transports[index % 3] as typeof v1)(apiKey)),
    );
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 402);
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(45);
    // What the key may still spend after each admitted call: 8, 6, 4, 2, 0 in some order.
    expect(admitted.map((answer) => Number(answer.creditsRemaining)).sort((a, b) => a - b)).toEqual([
      0, 2, 4, 6, 8,
    ]);
    for (const answer of refused) {
      expect(answer.message).toBe(
        "This key's daily credit cap of 10 credits has 0 left and this call costs 2 credits; " +
          'the cap resets at 2026-11-27T00:00:00.000Z.',
      );
      expect(answer.details).toEqual([]);
      expect(answer.creditsRemaining).toBe('0');
    }

    const state = await harness.repositories.ledger.state(accountId);
    expect(state.balance).toBe(990);
    expect(state.pending).toEqual([]);
    const entries = await harness.repositories.ledger.entries(accountId);
    expect(entries.filter((entry) => entry.status === 'charged')).toHaveLength(5);
    expect(new Set(entries.map((entry) => entry.transport)).size).toBeGreaterThan(1);
    expect(await harness.repositories.ledger.keySpend(accountId, keyId)).toEqual({
      day: '2026-11-26',
      dailySpent: 10,
      month: '2026-11',
      monthlySpent: 10,
    });
  });

  it('shows the key what it may still spend: the least of the balance and each cap left', async () => {
    const { apiKey } = await cappedKey({ dailyCreditCap: 9, monthlyCreditCap: 100 }, 5);
    expect(await v1(apiKey)).toMatchObject({ status: 200, creditsRemaining: '3' });
    const { apiKey: roomy } = await cappedKey({ dailyCreditCap: 5, monthlyCreditCap: 100 });
    expect(await v1(roomy)).toMatchObject({ status: 200, creditsRemaining: '3' });
    expect(await v2(roomy)).toMatchObject({ status: 200, creditsRemaining: '1' });
    const refused = await mcp(roomy);
    expect(refused).toMatchObject({ status: 402, creditsRemaining: '1' });
    expect(refused.text).toMatch(
      /^insufficient_credits: This key's daily credit cap of 5 credits has 1 left/,
    );
    expect(refused.text).toMatch(/wait for the cap's reset/);
  });

  it('still answers 402 for the balance itself, with the balance message, when the cap has room', async () => {
    const { apiKey } = await cappedKey({ dailyCreditCap: 100 }, 1);
    const answer = await v1(apiKey);
    expect(answer).toMatchObject({ status: 402, creditsRemaining: '1' });
    expect(answer.message).toMatch(/the balance is 1/);
  });

  it('resets the daily cap at the next UTC day', async () => {
    clock.set(Date.UTC(2026, 10, 26, 23, 0, 0));
    const { apiKey, accountId, keyId } = await cappedKey({ dailyCreditCap: 4 });
    expect((await v1(apiKey)).status).toBe(200);
    expect((await v2(apiKey)).status).toBe(200);
    expect((await mcp(apiKey)).status).toBe(402);
    clock.set(Date.UTC(2026, 10, 26, 23, 59, 59, 999));
    expect((await v1(apiKey)).status).toBe(402);
    clock.set(Date.UTC(2026, 10, 27, 0, 0, 0));
    expect(await v1(apiKey)).toMatchObject({ status: 200, creditsRemaining: '2' });
    expect(await harness.repositories.ledger.keySpend(accountId, keyId)).toEqual({
      day: '2026-11-27',
      dailySpent: 2,
      month: '2026-11',
      monthlySpent: 6,
    });
  });

  it('resets the monthly cap at the next UTC month, and names it when it refuses', async () => {
    clock.set(Date.UTC(2026, 10, 29, 8, 0, 0));
    const { apiKey } = await cappedKey({ dailyCreditCap: 4, monthlyCreditCap: 6 });
    expect((await v1(apiKey)).status).toBe(200);
    expect((await v1(apiKey)).status).toBe(200);
    clock.set(Date.UTC(2026, 10, 30, 8, 0, 0));
    expect((await v1(apiKey)).status).toBe(200);
    const refused = await v1(apiKey);
    expect(refused).toMatchObject({ status: 402, creditsRemaining: '0', details: [] });
    expect(refused.message).toBe(
      "This key's monthly credit cap of 6 credits has 0 left and this call costs 2 credits; " +
        'the cap resets at 2026-12-01T00:00:00.000Z.',
    );
    clock.set(Date.UTC(2026, 11, 1, 0, 0, 0));
    expect(await v1(apiKey)).toMatchObject({ status: 200, creditsRemaining: '2' });
  });

  it('gives a refunded call’s credits back to the cap it was taken from', async () => {
    clock.set(Date.UTC(2026, 11, 2, 9, 0, 0));
    const { apiKey, accountId, keyId } = await cappedKey({ dailyCreditCap: 4 });
    const notFound = await v1(apiKey, UNKNOWN_PATH);
    expect(notFound).toMatchObject({ status: 404, creditsRemaining: '4' });
    expect((await harness.repositories.ledger.keySpend(accountId, keyId)).dailySpent).toBe(0);
    expect((await v1(apiKey)).status).toBe(200);
    expect((await mcp(apiKey)).status).toBe(200);
    expect((await v2(apiKey)).status).toBe(402);
  });

  it('gives a refund back to the day it was taken from, not the day it settles', async () => {
    clock.set(Date.UTC(2026, 11, 3, 23, 59, 0));
    const { apiKey, accountId, keyId } = await cappedKey({ dailyCreditCap: 4 });
    const admission = await harness.repositories.ledger.admit({
      accountId,
      requestId: `req_cap_${kind}`,
      operation: 'profiles.details',
      cost: 2,
      rateLimit: { limit: 10_000, windowSeconds: 60 },
      keyId,
      caps: { keyId, dailyCreditCap: 4, monthlyCreditCap: null },
    });
    expect(admission.outcome).toBe('admitted');
    clock.set(Date.UTC(2026, 11, 4, 0, 1, 0));
    expect((await v1(apiKey)).status).toBe(200);
    if (admission.outcome !== 'admitted' || !admission.entry) throw new Error('not admitted');
    await harness.repositories.ledger.refund(admission.entry, 'upstream_error', 502);
    // Today's spend is untouched by yesterday's refund; the month gets it back.
    expect(await harness.repositories.ledger.keySpend(accountId, keyId)).toEqual({
      day: '2026-12-04',
      dailySpent: 2,
      month: '2026-12',
      monthlySpent: 2,
    });
  });

  it('gives the credits of a request reconciled after a crash back to its cap', async () => {
    clock.set(Date.UTC(2026, 11, 5, 9, 0, 0));
    const { accountId, keyId } = await cappedKey({ monthlyCreditCap: 10 });
    const admission = await harness.repositories.ledger.admit({
      accountId,
      requestId: `req_crashed_${kind}`,
      operation: 'profiles.details',
      cost: 2,
      rateLimit: { limit: 10_000, windowSeconds: 60 },
      keyId,
      caps: { keyId, dailyCreditCap: null, monthlyCreditCap: 10 },
    });
    expect(admission.outcome).toBe('admitted');
    expect((await harness.repositories.ledger.keySpend(accountId, keyId)).monthlySpent).toBe(2);
    clock.advance(60_000);
    const { settled } = await harness.repositories.ledger.reconcile(0);
    expect(settled.map((entry) => entry.requestId)).toContain(`req_crashed_${kind}`);
    expect(await harness.repositories.ledger.keySpend(accountId, keyId)).toMatchObject({
      dailySpent: 0,
      monthlySpent: 0,
    });
  });

  it('keeps only the current day and month of a key’s spend: past periods go with a later admission', async () => {
    clock.set(Date.UTC(2026, 11, 30, 12, 0, 0));
    const { apiKey, accountId, keyId } = await cappedKey({ dailyCreditCap: 100 });
    expect((await v1(apiKey)).status).toBe(200);
    clock.set(Date.UTC(2027, 0, 2, 12, 0, 0));
    expect((await v1(apiKey)).status).toBe(200);
    expect((await v2(apiKey)).status).toBe(200);
    expect(await storedSpendPeriods(accountId, keyId)).toEqual(['2027-01', '2027-01-02']);
  });

  /** The periods of a key's spend as the store holds them, read from the database itself. */
  async function storedSpendPeriods(accountId: string, keyId: string): Promise<string[]> {
    if (kind === 'sqlite') {
      return (harness.store as SqliteStore).database.db
        .prepare('SELECT period FROM key_spend WHERE account_id = ? AND key_id = ?')
        .all(accountId, keyId)
        .map((row) => String(row.period))
        .sort();
    }
    const { table } = harness.store as DynamoStore;
    const { Item = {} } = await table.client.get({
      TableName: table.table,
      Key: itemKeys.balance(accountId),
      ConsistentRead: true,
    });
    const prefix = `spend:${keyId}/`;
    return Object.keys(Item)
      .filter((name) => name.startsWith(prefix))
      .map((name) => name.slice(prefix.length))
      .sort();
  }
});
