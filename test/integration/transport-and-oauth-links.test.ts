/**
 * What the MCP endpoint keeps in the store, on each adapter: the transport a call came through, on
 * its ledger entry whether it is charged, refunded, free or still in flight (and so after a
 * reconcile), and the OAuth subject → account bindings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthSubjectTakenError } from '../../shared/auth/oauth-links.js';
import { type Harness, type StoreKind, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';

describe.each(storeKinds)('on the %s store', (kind: StoreKind) => {
  const clock = new ManualClock();
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ clock, store: kind });
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
