/**
 * Exactness under concurrency, through the real app and each store adapter (SQLite, and DynamoDB on
 * dynalite): a balance worth 50 admits exactly 50 of 100 racing billed calls, a rate limit of N
 * admits exactly N (and ledgers exactly those N free calls), the ledger explains the balance
 * afterwards, and the rate-limit headers keep their meaning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { PRICED_PATH } from '../support/priced-operation.js';

describe.each(storeKinds)('on the %s store', (kind) => {
  const clock = new ManualClock();
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ clock, store: kind });
  });
  afterAll(() => harness.close());

  describe('billing under concurrency', () => {
    it('admits exactly 50 of 100 concurrent calls against a balance worth 50, and the ledger agrees', async () => {
      const { account, apiKey } = await harness.provision({
        credits: 50,
        rateLimit: { limit: 1000, windowSeconds: 60 },
      });
      const responses = await Promise.all(
        Array.from({ length: 100 }, () => harness.get(PRICED_PATH, apiKey)),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(50);
      expect(statuses.filter((status) => status === 402)).toHaveLength(50);

      const balances = responses
        .filter((response) => response.status === 200)
        .map((response) => Number(response.headers.get('x-credits-remaining')));
      expect(new Set(balances)).toEqual(new Set(Array.from({ length: 50 }, (_, index) => index)));

      const state = await harness.repositories.ledger.state(account.accountId);
      const entries = await harness.repositories.ledger.entries(account.accountId);
      expect(state.balance).toBe(0);
      expect(state.pending).toEqual([]);
      expect(entries).toHaveLength(50);
      expect(entries.every((entry) => entry.status === 'charged' && entry.cost === 1)).toBe(true);
      const charged = entries.reduce((sum, entry) => sum + entry.cost, 0);
      expect(state.granted - charged).toBe(state.balance);
    });
  });

  describe('rate limit under concurrency', () => {
    it('admits exactly N of many concurrent calls, and the remaining count runs down N-1 … 0', async () => {
      const limit = 10;
      const { apiKey } = await harness.provision({ rateLimit: { limit, windowSeconds: 60 } });
      const responses = await Promise.all(
        Array.from({ length: 40 }, () => harness.get('/v1/emails/disposable?email=a%40b.com', apiKey)),
      );
      const admitted = responses.filter((response) => response.status === 200);
      const refused = responses.filter((response) => response.status === 429);
      expect(admitted).toHaveLength(limit);
      expect(refused).toHaveLength(30);
      const remaining = admitted.map((response) => Number(response.headers.get('x-ratelimit-remaining')));
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, index) => index));
      for (const response of refused) {
        expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    });

    it('ledgers exactly the N admitted free calls, each once with its status, and none of the refused', async () => {
      const limit = 10;
      const { account, apiKey } = await harness.provision({ rateLimit: { limit, windowSeconds: 60 } });
      const responses = await Promise.all(
        Array.from({ length: 40 }, () => harness.get('/v1/emails/disposable?email=a%40b.com', apiKey)),
      );
      const admitted = responses.filter((response) => response.status === 200);
      expect(admitted).toHaveLength(limit);
      const entries = await harness.repositories.ledger.entries(account.accountId);
      expect(entries.map((entry) => entry.requestId).sort()).toEqual(
        admitted.map((response) => response.headers.get('x-request-id')).sort(),
      );
      for (const entry of entries)
        expect(entry).toMatchObject({
          operation: 'emails.disposable',
          cost: 0,
          status: 'charged',
          httpStatus: 200,
        });
    });

    it('counts the previous window by its weight as the window rolls', async () => {
      const windowMs = 60_000;
      clock.set(Math.ceil(clock.now() / windowMs) * windowMs + windowMs);
      const { apiKey } = await harness.provision({ rateLimit: { limit: 10, windowSeconds: 60 } });
      const burst = (count: number) =>
        Promise.all(
          Array.from({ length: count }, () => harness.get('/v1/emails/disposable?email=a%40b.com', apiKey)),
        );

      expect((await burst(12)).filter((response) => response.status === 200)).toHaveLength(10);
      // Halfway through the next window the previous ten still weigh five.
      clock.advance(windowMs + windowMs / 2);
      const halfway = await burst(8);
      expect(halfway.filter((response) => response.status === 200)).toHaveLength(5);
      const refused = halfway.find((response) => response.status === 429);
      // Previous 10, current 5 at f = 0.5: one more fits once 10·(1−f) ≤ 4, at f = 0.6, six seconds on.
      expect(refused?.headers.get('retry-after')).toBe('6');
      clock.advance(6_000);
      expect((await burst(1))[0]?.status).toBe(200);
    });

    it('is kept per account: one account at its ceiling does not limit another', async () => {
      const first = await harness.provision({ rateLimit: { limit: 1, windowSeconds: 60 } });
      const second = await harness.provision({ rateLimit: { limit: 1, windowSeconds: 60 } });
      expect((await harness.get('/v1/emails/disposable?email=a%40b.com', first.apiKey)).status).toBe(200);
      expect((await harness.get('/v1/emails/disposable?email=a%40b.com', first.apiKey)).status).toBe(429);
      expect((await harness.get('/v1/emails/disposable?email=a%40b.com', second.apiKey)).status).toBe(200);
    });
  });

  describe('rate-limit headers', () => {
    const windowMs = 60_000;
    const limited = async (limit: number) => {
      const { apiKey } = await harness.provision({ rateLimit: { limit, windowSeconds: 60 } });
      return () => harness.get('/v1/emails/disposable?email=a%40b.com', apiKey);
    };

    it('X-RateLimit-Reset counts the seconds until the current window ends, never more than its length', async () => {
      clock.set(Math.ceil(clock.now() / windowMs) * windowMs + windowMs);
      const call = await limited(2);
      const first = await call();
      expect(first.headers.get('x-ratelimit-reset')).toBe('60');
      clock.advance(15_500);
      expect((await call()).headers.get('x-ratelimit-reset')).toBe('45');
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-reset')).toBe('45');
      // Two in this window, limit 2: one more fits once the next window has weighed this one down to 1.
      expect(refused.headers.get('retry-after')).toBe('75');
      clock.advance(74_000);
      expect((await call()).status).toBe(429);
      clock.advance(1_000);
      const admitted = await call();
      expect(admitted.status).toBe(200);
      expect(Number(admitted.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
    });

    it('a refused call (402) counts against the ceiling too, and 429 answers before 402', async () => {
      const { apiKey } = await harness.provision({ credits: 0, rateLimit: { limit: 2, windowSeconds: 60 } });
      const first = await harness.get(PRICED_PATH, apiKey);
      expect(first.status).toBe(402);
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      expect((await harness.get(PRICED_PATH, apiKey)).status).toBe(402);
      expect((await harness.get(PRICED_PATH, apiKey)).status).toBe(429);
    });
  });
});
