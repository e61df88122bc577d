/**
 * A crash (or a lost write) between any two writes of a billed request, on each store adapter: every
 * subset of the request's writes is let through, the process is then taken for dead (a new service
 * opens the same state, as after a restart), and `reconcile` must leave the ledger explaining the
 * balance: granted − Σ charged = balance, nothing in flight, at most one refund.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { PRICED_PATH } from '../support/priced-operation.js';
import { injectWriteFaults, type WriteFaults } from '../support/write-faults.js';

/** Every subset of {0 … n−1}. */
function subsets(n: number): Set<number>[] {
  return Array.from(
    { length: 2 ** n },
    (_, mask) => new Set([...Array(n).keys()].filter((i) => mask & (1 << i))),
  );
}

describe.each(storeKinds)('on the %s store', (kind) => {
  const clock = new ManualClock();
  const table = `crash-${randomUUID()}`;
  let harness: Harness;
  let faults: WriteFaults;

  beforeAll(async () => {
    harness = await startHarness({ clock, store: kind, table });
    faults = injectWriteFaults(harness.store);
  });
  afterAll(() => harness.close());

  /** The writes a request with this outcome sends when nothing fails. */
  async function writesOf(outcome: string): Promise<number> {
    const { apiKey } = await harness.provision({ credits: 10 });
    await harness.get(`${PRICED_PATH}?outcome=${outcome}`, apiKey);
    faults.arm();
    await harness.get(`${PRICED_PATH}?outcome=${outcome}`, apiKey);
    return faults.sent;
  }

  describe.each(['ok', 'upstream_error'])('a request that ends %s', (outcome) => {
    it('is recovered by reconcile whichever of its writes landed', async () => {
      const writes = await writesOf(outcome);
      expect(writes).toBeGreaterThanOrEqual(kind === 'sqlite' ? 2 : outcome === 'ok' ? 2 : 3);
      for (const landing of subsets(writes)) {
        const { account, apiKey } = await harness.provision({ credits: 10 });
        // A first request, so the crashed one finds the key cached and the window known.
        expect((await harness.get(PRICED_PATH, apiKey)).status).toBe(200);
        faults.arm(landing);
        const response = await harness.get(`${PRICED_PATH}?outcome=${outcome}`, apiKey);
        faults.arm();

        // The process is gone: a new one on the same state reconciles once the deadline passed.
        const restarted = await startHarness({ clock, store: kind, endpoint: harness.endpoint, table });
        try {
          clock.advance(61_000);
          await restarted.repositories.ledger.reconcile(60_000);
          const { ledger } = restarted.repositories;
          const state = await ledger.state(account.accountId);
          const entries = await ledger.entries(account.accountId);
          const context = `landing ${[...landing]} of ${writes}, answered ${response.status}`;
          expect(state.pending, context).toEqual([]);
          expect(entries.map((entry) => entry.status).sort(), context).not.toContain('pending');
          // The first write is the admission: without it nothing was taken, and nothing is ledgered.
          expect(entries, context).toHaveLength(landing.has(0) ? 2 : 1);
          if (!landing.has(0)) expect(response.status, context).toBe(503);
          const charged = entries.filter((entry) => entry.status === 'charged');
          expect(state.granted - charged.reduce((sum, entry) => sum + entry.cost, 0), context).toBe(
            state.balance,
          );
          expect(state.balance, context).toBeGreaterThanOrEqual(8);
          // Reconciling again changes nothing (a refund happens at most once).
          expect((await ledger.reconcile(60_000)).settled, context).toEqual([]);
          expect((await ledger.state(account.accountId)).balance, context).toBe(state.balance);
        } finally {
          await restarted.close();
        }
      }
    });
  });
});
