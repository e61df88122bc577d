/**
 * Settlement of billed calls through the real pipeline and each store adapter, driven by the
 * test-only priced operation: what is charged, what is refunded, which headers each answer carries,
 * and the ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, headerNames } from '../support/assertions.js';
import { type Harness, type StoreKind, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { PRICED_PATH } from '../support/priced-operation.js';

describe.each(storeKinds)('on the %s store', (kind: StoreKind) => {
  const clock = new ManualClock();
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ clock, store: kind });
  });
  afterAll(() => harness.close());

  /** What a billed request leaves behind when its process dies after admission, before settlement. */
  const admitAndCrash = (accountId: string, requestId: string, cost: number) =>
    harness.repositories.ledger.admit({
      accountId,
      requestId,
      operation: 'test.priced',
      cost,
      rateLimit: { limit: 1000, windowSeconds: 60 },
    });

  async function account(credits = 10) {
    const provisioned = await harness.provision({ credits });
    const call = (outcome: string) => harness.get(`${PRICED_PATH}?outcome=${outcome}`, provisioned.apiKey);
    const ledger = () => harness.repositories.ledger.entries(provisioned.account.accountId);
    const balance = async () =>
      (await harness.repositories.ledger.state(provisioned.account.accountId)).balance;
    return { ...provisioned, call, ledger, balance };
  }

  describe('a success', () => {
    it('charges the price, reports the balance, and keeps provider-private fields out of the body', async () => {
      const subject = await account(10);
      const response = await subject.call('ok');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { answer: 42 }, meta: { creditCost: 1 } });
      expect(response.headers.get('x-credits-remaining')).toBe('9');
      expect(await subject.balance()).toBe(9);
      expect(await subject.ledger()).toEqual([
        expect.objectContaining({ operation: 'test.priced', cost: 1, status: 'charged', httpStatus: 200 }),
      ]);
    });
  });

  describe('a failure after the debit', () => {
    it.each([
      ['upstream_error', 502, 'upstream_error', true],
      ['crash', 500, 'internal_error', false],
      ['invalid_data', 500, 'internal_error', false],
      ['slow', 504, 'upstream_timeout', true],
    ])('%s → %i %s, refunded, retryable %s', async (outcome, status, code, retryable) => {
      const subject = await account(10);
      const response = await subject.call(outcome);
      const body = await expectError(response, status, code);
      expect(body.error.retryable).toBe(retryable);
      expect(response.headers.get('x-credits-remaining')).toBe('10');
      expect(headerNames(response)).toEqual(
        expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining']),
      );
      expect(await subject.balance()).toBe(10);
      expect(await subject.ledger()).toEqual([
        expect.objectContaining({ status: 'refunded', refundReason: code, httpStatus: status, cost: 1 }),
      ]);
    });

    it('keeps the charge on the errors the operation settles as charged (404 here)', async () => {
      const subject = await account(10);
      const response = await subject.call('not_found');
      await expectError(response, 404, 'resource_not_found');
      expect(response.headers.get('x-credits-remaining')).toBe('9');
      expect(await subject.ledger()).toEqual([
        expect.objectContaining({ status: 'charged', httpStatus: 404 }),
      ]);
    });
  });

  describe('402', () => {
    it('refuses a call the balance cannot cover, with the balance and rate-limit headers, and no ledger entry', async () => {
      const subject = await account(0);
      const response = await subject.call('ok');
      const body = await expectError(response, 402, 'insufficient_credits');
      expect(body.error.retryable).toBe(false);
      expect(response.headers.get('x-credits-remaining')).toBe('0');
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(await subject.ledger()).toEqual([]);
    });
  });

  describe('reconcile', () => {
    it('refunds a call that crashed after its debit, once, and leaves the ledger explaining the balance', async () => {
      const subject = await account(10);
      const { ledger } = harness.repositories;
      expect(await admitAndCrash(subject.account.accountId, 'req_crashed', 3)).toMatchObject({
        outcome: 'admitted',
        balance: 7,
      });
      expect(await subject.balance()).toBe(7);
      expect(await subject.ledger()).toEqual([expect.objectContaining({ status: 'pending', cost: 3 })]);

      expect((await ledger.reconcile(60_000)).settled).toEqual([]);
      clock.advance(61_000);
      const { settled } = await ledger.reconcile(60_000);
      expect(settled.map((entry) => entry.requestId)).toContain('req_crashed');
      expect(await subject.balance()).toBe(10);
      await ledger.reconcile(60_000);
      expect(await subject.balance()).toBe(10);
      expect(await subject.ledger()).toEqual([
        expect.objectContaining({ status: 'refunded', refundReason: 'reconciled' }),
      ]);
    });

    it('gives nothing back for a call whose admission was refused', async () => {
      const subject = await account(2);
      const { ledger } = harness.repositories;
      expect(await admitAndCrash(subject.account.accountId, 'req_refused', 3)).toMatchObject({
        outcome: 'insufficient_credits',
      });
      clock.advance(61_000);
      await ledger.reconcile(60_000);
      const state = await ledger.state(subject.account.accountId);
      // Nothing taken and nothing in flight; the refused call still counted against the rate window.
      expect(state).toEqual({
        balance: 2,
        granted: 2,
        pending: [],
        window: { windowStart: expect.any(Number), windowCount: 1, previousCount: 0 },
      });
      expect(await subject.ledger()).toEqual([]);
    });
  });

  describe('when the store fails', () => {
    it('fails closed for billed calls (503, nothing free) while the key is still cached', async () => {
      const failing = await startHarness({ clock, store: kind });
      const { apiKey } = await failing.provision({ credits: 10 });
      expect((await failing.get(PRICED_PATH, apiKey)).status).toBe(200);
      await failing.close();
      const response = await failing.get(PRICED_PATH, apiKey);
      const body = await expectError(response, 503, 'service_unavailable');
      expect(body.error.retryable).toBe(true);
      expect(response.headers.get('retry-after')).toBe('5');
    });
  });

  describe('an account creation interrupted before its balance item', () => {
    it('can be granted credits, and then bills normally', async () => {
      const account = await harness.repositories.accounts.create(
        {
          name: 'half',
          rateLimit: { limit: 10, windowSeconds: 60 },
        },
        { actor: 'test' },
      );
      const { apiKey } = await harness.repositories.keys.issue(account.accountId);
      await expectError(await harness.get(PRICED_PATH, apiKey), 402, 'insufficient_credits');
      expect((await harness.repositories.ledger.grant(account.accountId, 5, { actor: 'test' })).balance).toBe(
        5,
      );
      const response = await harness.get(PRICED_PATH, apiKey);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-credits-remaining')).toBe('4');
    });
  });
});
