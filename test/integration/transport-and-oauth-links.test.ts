/**
 * What the MCP endpoint and bulk lookups keep in the store, on each adapter: the transport a call
 * came through and the batch item it ran for, on its ledger entry whether it is charged, refunded,
 * free or still in flight (and so after a reconcile, also of a refund whose ledger write was lost,
 * and after `admin migrate` from DynamoDB to SQLite), and the OAuth subject → account bindings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthSubjectTakenError } from '../../shared/auth/oauth-links.js';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { exportSnapshot } from '../../shared/store/dynamodb/export-snapshot.js';
import { importSnapshot } from '../../shared/store/sqlite/import-snapshot.js';
import type { SqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import { type Harness, openTestStore, type StoreKind, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { CrashedWrite, injectWriteFaults, type WriteFaults } from '../support/write-faults.js';

describe.each(storeKinds)('on the %s store', (kind: StoreKind) => {
  const clock = new ManualClock();
  let harness: Harness;
  let faults: WriteFaults;

  beforeAll(async () => {
    harness = await startHarness({ clock, store: kind });
    faults = injectWriteFaults(harness.store);
  });
  afterAll(() => harness.close());

  const rateLimit = { limit: 1000, windowSeconds: 60 };

  it('keeps the transport on charged, refunded, free and reconciled entries', async () => {
    const { account } = await harness.provision({ credits: 10 });
    const { accountId } = account;
    const { ledger } = harness.repositories;
    const admit = async (requestId: string) => {
      const admission = await ledger.admit({
        accountId,
        requestId,
        operation: 'test.priced',
        cost: 1,
        rateLimit,
        transport: 'mcp',
      });
      if (admission.outcome !== 'admitted' || !admission.entry) throw new Error(`${requestId} not admitted`);
      return admission.entry;
    };

    const charged = await admit('req_charged');
    const refunded = await admit('req_refunded');
    await admit('req_crashed');
    expect(charged.transport).toBe('mcp');
    await ledger.charge(charged, 200);
    await ledger.refund(refunded, 'upstream_error', 502);
    await ledger.recordUsage(
      ledger.freeEntry({ accountId, requestId: 'req_free', operation: 'emails.disposable', transport: 'v2' }),
    );
    expect(
      (await ledger.entries(accountId)).find((entry) => entry.requestId === 'req_crashed'),
    ).toMatchObject({ status: 'pending', transport: 'mcp' });

    clock.advance(10 * 60_000);
    await ledger.reconcile(60_000);
    const byId = new Map((await ledger.entries(accountId)).map((entry) => [entry.requestId, entry]));
    expect(byId.get('req_charged')).toMatchObject({ status: 'charged', transport: 'mcp' });
    expect(byId.get('req_refunded')).toMatchObject({ status: 'refunded', transport: 'mcp' });
    expect(byId.get('req_crashed')).toMatchObject({
      status: 'refunded',
      refundReason: 'reconciled',
      transport: 'mcp',
    });
    expect(byId.get('req_free')).toMatchObject({ status: 'charged', cost: 0, transport: 'v2' });
  });

  it('keeps the batch item on charged, refunded, free, pending and reconciled entries', async () => {
    const { account } = await harness.provision({ credits: 10 });
    const { accountId } = account;
    const { ledger } = harness.repositories;
    const batchId = `bat_${kind}`;
    const itemOf = (index: number) => ({ batchId, index });
    const admit = async (requestId: string, index: number) => {
      const admission = await ledger.admit({
        accountId,
        requestId,
        operation: 'test.priced',
        cost: 1,
        rateLimit,
        transport: 'batch',
        batchItem: itemOf(index),
      });
      if (admission.outcome !== 'admitted' || !admission.entry) throw new Error(`${requestId} not admitted`);
      return admission.entry;
    };

    const charged = await admit('req_item_charged', 0);
    const refunded = await admit('req_item_refunded', 1);
    await admit('req_item_crashed', 2);
    const halfRefunded = await admit('req_item_half_refunded', 3);
    expect(charged).toMatchObject({ transport: 'batch', batchItem: itemOf(0) });
    await ledger.charge(charged, 200);
    await ledger.refund(refunded, 'upstream_error', 502);
    // A refund whose first write (DynamoDB: the ledger item; SQLite: all of it) did not land: the
    // entry must carry its batch item on to what reconcile writes.
    faults.arm(new Set([1]));
    await expect(ledger.refund(halfRefunded, 'upstream_error', 502)).rejects.toBeInstanceOf(CrashedWrite);
    faults.arm();
    await ledger.recordUsage(
      ledger.freeEntry({
        accountId,
        requestId: 'req_item_free',
        operation: 'emails.disposable',
        transport: 'batch',
        batchItem: itemOf(4),
      }),
    );
    const pending = (await ledger.entries(accountId)).find((entry) => entry.requestId === 'req_item_crashed');
    expect(pending).toMatchObject({ status: 'pending', transport: 'batch', batchItem: itemOf(2) });
    expect((await ledger.state(accountId)).pending).toContainEqual(
      expect.objectContaining({ requestId: 'req_item_crashed', batchItem: itemOf(2) }),
    );
    if (kind === 'dynamodb') {
      // `admin migrate` copies them into SQLite as they stand, in flight and half refunded included.
      const copy = await openTestStore({ store: 'sqlite' });
      try {
        const snapshot = await exportSnapshot((harness.store as DynamoStore).table);
        importSnapshot(copy.store as SqliteStore, snapshot, new Date(clock.now()).toISOString());
        expect(await copy.store.billing.entries(accountId)).toEqual(await ledger.entries(accountId));
      } finally {
        await copy.close();
      }
    }

    clock.advance(10 * 60_000);
    await ledger.reconcile(60_000);
    const byId = new Map((await ledger.entries(accountId)).map((entry) => [entry.requestId, entry]));
    expect(byId.get('req_item_charged')).toMatchObject({ status: 'charged', batchItem: itemOf(0) });
    expect(byId.get('req_item_refunded')).toMatchObject({ status: 'refunded', batchItem: itemOf(1) });
    expect(byId.get('req_item_crashed')).toMatchObject({
      status: 'refunded',
      refundReason: 'reconciled',
      transport: 'batch',
      batchItem: itemOf(2),
    });
    // DynamoDB rebuilt the ledger item from the refund noted on the entry; SQLite had nothing of it.
    expect(byId.get('req_item_half_refunded')).toMatchObject({
      status: 'refunded',
      refundReason: kind === 'dynamodb' ? 'upstream_error' : 'reconciled',
      batchItem: itemOf(3),
    });
    expect(byId.get('req_item_free')).toMatchObject({ status: 'charged', cost: 0, batchItem: itemOf(4) });
    expect((await ledger.state(accountId)).balance).toBe(9);
    const usage = await ledger.usage(accountId, { since: '2000-01-01', until: '3000-01-01' });
    expect(usage.map((row) => [row.operation, row.callsByTransport])).toEqual([
      ['emails.disposable', { rest: 0, mcp: 0, v2: 0, batch: 1 }],
      ['test.priced', { rest: 0, mcp: 0, v2: 0, batch: 4 }],
    ]);
  });

  it('binds an OAuth subject to one account, refuses a second account, and unlinks it', async () => {
    const { oauthLinks } = harness.repositories;
    const [first, second] = [await harness.provision(), await harness.provision()];
    const subject = `subject-${kind}`;
    expect(await oauthLinks.find(subject)).toBeUndefined();
    await oauthLinks.link(subject, first.account.accountId);
    await oauthLinks.link(subject, first.account.accountId);
    await expect(oauthLinks.link(subject, second.account.accountId)).rejects.toBeInstanceOf(
      OAuthSubjectTakenError,
    );
    expect(await oauthLinks.find(subject)).toBe(first.account.accountId);
    expect(await oauthLinks.unlink(subject)).toBe(true);
    expect(await oauthLinks.unlink(subject)).toBe(false);
    expect(await oauthLinks.find(subject)).toBeUndefined();
  });
});
