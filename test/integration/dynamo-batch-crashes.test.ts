/**
 * The DynamoDB batch adapter between its writes: without transactions, a create, a claim and a
 * transition are several single-item writes, and a crash may land any prefix of them. Whatever
 * landed, nothing is lost: a crashed create's key ends with one whole batch (listed once, among the
 * unfinished), a crashed claim's items are handed out again exactly once, and `unfinished()` follows
 * the batch's own state. (SQLite does each of these in one transaction: the contract suite,
 * batch-store.test.ts, covers both adapters when nothing crashes.)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  BatchRecord,
  ClaimedItem,
  IdempotencyClaim,
  NewItem,
} from '../../shared/batches/batch-store.js';
import type { Store } from '../../shared/store/store.js';
import { batchRecord as newBatchRecord } from '../support/batch-records.js';
import { openTestStore } from '../support/harness.js';
import { CrashedWrite, injectWriteFaults, type WriteFaults } from '../support/write-faults.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const AT = new Date(NOW).toISOString();
const LEASE = NOW + 30_000;
/** Past any create's own duration: a key claimed this long ago with no batch was abandoned. */
const RETRY_AFTER_CRASH = NOW + 16 * 60_000;

const batchRecord = (overrides: Partial<BatchRecord> = {}) =>
  newBatchRecord(AT, { accountId: `acct_${randomUUID().slice(0, 8)}`, itemCount: 3, ...overrides });

const newItems = (count: number): NewItem[] =>
  Array.from({ length: count }, (_, index) => ({ input: { email: `person${index}@example.com` } }));

/** Every set of the first `count` writes: the prefixes a crash lands, and the subsets a lost write does. */
function subsets(count: number): Set<number>[] {
  return Array.from(
    { length: 2 ** count },
    (_, mask) => new Set([...Array(count).keys()].filter((i) => mask & (1 << i))),
  );
}

/** Runs `work` with only `landing` of its writes let through; a simulated crash is swallowed. */
async function crashing<T>(faults: WriteFaults, landing: Set<number>, work: () => Promise<T>) {
  faults.arm(landing);
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof CrashedWrite)) throw error;
    return undefined;
  } finally {
    faults.arm();
  }
}

describe('batches on the dynamodb store, crashed between writes', () => {
  let store: Store;
  let close: () => Promise<void>;
  let faults: WriteFaults;

  beforeAll(async () => {
    ({ store, close } = await openTestStore({ store: 'dynamodb' }));
    faults = injectWriteFaults(store);
  });
  afterAll(() => close());

  it('ends a crashed create’s key with one whole batch, listed once, once the key was abandoned', async () => {
    // The create's writes besides its items: the key, the listing entry and the marker, the record.
    faults.arm();
    await store.batches.create(batchRecord(), newItems(3), {
      key: 'k',
      requestHash: 'h',
      expiresAt: NOW + 1,
    });
    expect(faults.sent).toBe(4);

    for (const landing of subsets(4)) {
      const claim: IdempotencyClaim = {
        key: `idem-${randomUUID()}`,
        requestHash: 'h',
        expiresAt: NOW + 86_400_000,
      };
      const first = batchRecord();
      await crashing(faults, landing, () => store.batches.create(first, newItems(3), claim, NOW));

      // The retry has its own id and creation time, as a new request would.
      const retry = batchRecord({
        accountId: first.accountId,
        createdAt: new Date(RETRY_AFTER_CRASH).toISOString(),
      });
      const outcome = await store.batches.create(retry, newItems(3), claim, RETRY_AFTER_CRASH);
      const batchId = outcome.kind === 'conflict' ? outcome.batchId : outcome.batch.batchId;
      const label = `writes landed: ${[...landing].join(',') || 'none'}`;
      expect(outcome.kind, label).not.toBe('conflict');
      expect([first.batchId, retry.batchId], label).toContain(batchId);

      expect(await store.batches.get(batchId), label).toMatchObject({ state: 'queued', itemCount: 3 });
      expect(
        (await store.batches.items(batchId, 0, 10)).map((item) => item.index),
        label,
      ).toStrictEqual([0, 1, 2]);
      const listed = await store.batches.list(first.accountId, 10);
      expect(
        listed.map((batch) => batch.batchId),
        label,
      ).toStrictEqual([batchId]);
      expect(
        (await store.batches.unfinished()).map((batch) => batch.batchId),
        label,
      ).toContain(batchId);
      // And the key answers that batch from now on.
      const again = await store.batches.create(
        batchRecord({ accountId: first.accountId }),
        newItems(3),
        claim,
        RETRY_AFTER_CRASH + 1,
      );
      expect(again, label).toMatchObject({ kind: 'replayed', batch: { batchId } });
    }
  });

  it('hands out a crashed claim’s item again exactly once, and counts it once', async () => {
    // A claim of one item writes the batch's nextIndex, then the item.
    for (const landing of subsets(2)) {
      const label = `writes landed: ${[...landing].join(',') || 'none'}`;
      const batch = batchRecord({ itemCount: 2 });
      await store.batches.create(batch, newItems(2));
      await crashing(faults, landing, () => store.batches.claimNext(batch.batchId, 1, LEASE));

      // The crashed worker's lease is over: whatever it held or left is handed out again.
      const handedOut: ClaimedItem[] = [
        ...(await store.batches.reclaimExpired(batch.batchId, LEASE, 10, LEASE + 30_000)),
        ...(await store.batches.claimNext(batch.batchId, 10, LEASE + 30_000)),
        ...(await store.batches.reclaimExpired(batch.batchId, LEASE, 10, LEASE + 30_000)),
      ];
      expect(handedOut.map((item) => item.index).sort(), label).toStrictEqual([0, 1]);
      for (const item of handedOut) {
        const result = {
          status: 200,
          body: {},
          requestId: `req_${item.index}`,
          creditCost: 1,
          creditsRefunded: 0,
        };
        expect(
          await store.batches.complete(batch.batchId, item.index, item.attempt, 'succeeded', result, AT),
        ).toBe(true);
      }
      expect(await store.batches.get(batch.batchId), label).toMatchObject({
        nextIndex: 2,
        counts: { succeeded: 2, failed: 0, invalid: 0 },
        creditsCharged: 2,
      });
    }
  });

  it('lists among the unfinished exactly the batches whose record is unfinished, whichever writes landed', async () => {
    // Finishing writes the record, then removes the marker; resuming writes the marker, then the record.
    for (const landing of subsets(2)) {
      const label = `writes landed: ${[...landing].join(',') || 'none'}`;
      const finishing = batchRecord({ itemCount: 1 });
      await store.batches.create(finishing, newItems(1));
      await crashing(faults, landing, () =>
        store.batches.transition(finishing.batchId, ['queued'], 'completed', AT),
      );

      const resuming = batchRecord({ itemCount: 1 });
      await store.batches.create(resuming, newItems(1));
      await store.batches.transition(resuming.batchId, ['queued'], 'failed', AT);
      await crashing(faults, landing, () =>
        store.batches.transition(resuming.batchId, ['failed'], 'queued', AT),
      );

      const unfinished = new Set((await store.batches.unfinished()).map((batch) => batch.batchId));
      for (const { batchId } of [finishing, resuming]) {
        const state = (await store.batches.get(batchId))?.state;
        expect(unfinished.has(batchId), `${label}: ${state}`).toBe(state === 'queued');
      }
    }
  });
});
