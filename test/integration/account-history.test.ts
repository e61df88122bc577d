/**
 * What explains an account, on each store adapter: the key behind every ledger entry (from
 * admission through settlement and reconcile), ledger reads by time, credit entries (grants and
 * adjustments) that add up to `granted`, and the audit log of every other change, each with time,
 * actor and reason. Then what each adapter adds: DynamoDB's journal notes a crash leaves, and
 * SQLite's upgrade of a version-4 file.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Attribution, AuditEntry } from '../../shared/accounts/accounts.js';
import { revokeKey } from '../../shared/accounts/provisioning.js';
import type { LedgerPosition } from '../../shared/billing/billing-store.js';
import type { LedgerEntry, LedgerQuery } from '../../shared/billing/credit-ledger.js';
import { createRepositories } from '../../shared/service.js';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { exportSnapshot } from '../../shared/store/dynamodb/export-snapshot.js';
import { itemKeys } from '../../shared/store/dynamodb/keys.js';
import { DatabaseSync } from '../../shared/store/sqlite/node-sqlite.js';
import { insertLedger } from '../../shared/store/sqlite/sqlite-billing.js';
import { createSqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import { type Harness, type StoreKind, startHarness, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { PRICED_PATH } from '../support/priced-operation.js';

const operator: Attribution = { actor: 'cli:alice', reason: 'contract test' };
const rateLimit = { limit: 1000, windowSeconds: 60 };

describe.each(storeKinds)('on the %s store', (kind: StoreKind) => {
  const clock = new ManualClock();
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ clock, store: kind });
  });
  afterAll(() => harness.close());

  const iso = () => new Date(clock.now()).toISOString();

  /** Admits a billed request of `accountId` as the pipeline would, with its key. */
  async function admit(accountId: string, requestId: string, keyId?: string) {
    const admission = await harness.repositories.ledger.admit({
      accountId,
      requestId,
      operation: 'test.priced',
      cost: 1,
      rateLimit,
      keyId,
    });
    if (admission.outcome !== 'admitted' || !admission.entry)
      throw new Error(`${requestId}: ${admission.outcome}`);
    return admission.entry;
  }

  it('records the key behind every call: charged, refunded, free, and after a reconcile', async () => {
    const { account, apiKey, keyId } = await harness.provision({ credits: 10 });
    const { accountId } = account;
    const second = await harness.repositories.keys.issue(accountId);
    const requestIdOf = async (path: string, key: string, status: number) => {
      const response = await harness.get(path, key);
      expect(response.status).toBe(status);
      return response.headers.get('x-request-id') as string;
    };
    const charged = await requestIdOf(`${PRICED_PATH}?outcome=ok`, apiKey, 200);
    const refunded = await requestIdOf(`${PRICED_PATH}?outcome=upstream_error`, second.apiKey, 502);
    const free = await requestIdOf('/v1/emails/disposable?email=a%40b.com', second.apiKey, 200);
    const crashed = await admit(accountId, 'req_crashed', keyId);
    expect(crashed.keyId).toBe(keyId);
    expect(
      (await harness.repositories.ledger.entries(accountId)).find((e) => e.requestId === 'req_crashed'),
    ).toMatchObject({
      status: 'pending',
      keyId,
    });

    clock.advance(10 * 60_000);
    await harness.repositories.ledger.reconcile(60_000);
    const byId = new Map((await harness.repositories.ledger.entries(accountId)).map((e) => [e.requestId, e]));
    expect(byId.get(charged)).toMatchObject({ status: 'charged', keyId });
    expect(byId.get(refunded)).toMatchObject({ status: 'refunded', keyId: second.record.keyId });
    expect(byId.get(free)).toMatchObject({ status: 'charged', cost: 0, keyId: second.record.keyId });
    expect(byId.get('req_crashed')).toMatchObject({ status: 'refunded', refundReason: 'reconciled', keyId });
  });

  it('reads ledger entries by time: since inclusive, until exclusive, pending ones included', async () => {
    const { account } = await harness.provision({ credits: 10 });
    const { accountId } = account;
    const times: string[] = [];
    for (const requestId of ['req_t0', 'req_t1', 'req_t2']) {
      clock.advance(60_000);
      times.push(iso());
      const entry = await admit(accountId, requestId, 'key_range');
      if (requestId !== 'req_t2') await harness.repositories.ledger.charge(entry, 200);
    }
    const [t0, t1, t2] = times as [string, string, string];
    const ids = async (query: { since?: string; until?: string; limit?: number }) =>
      (await harness.repositories.ledger.entries(accountId, query)).map((entry) => entry.requestId);
    expect(await ids({})).toEqual(['req_t2', 'req_t1', 'req_t0']);
    expect(await ids({ since: t1 })).toEqual(['req_t2', 'req_t1']);
    expect(await ids({ until: t1 })).toEqual(['req_t0']);
    expect(await ids({ since: t1, until: t2 })).toEqual(['req_t1']);
    expect(await ids({ since: t0, until: t2, limit: 1 })).toEqual(['req_t1']);
    expect(await ids({ since: new Date(Date.parse(t2) + 1).toISOString() })).toEqual([]);
  });

  it('reads the ledger by request id, by operation and after a position, for paging', async () => {
    const { ledger } = harness.repositories;
    const { account } = await harness.provision({ credits: 10 });
    const { accountId } = account;
    clock.advance(60_000);
    // Two entries at one instant: the position orders them by request id.
    for (const requestId of ['req_p0', 'req_p1']) await ledger.charge(await admit(accountId, requestId), 200);
    clock.advance(1_000);
    await ledger.recordUsage(
      ledger.freeEntry({ requestId: 'req_p2', accountId, operation: 'emails.disposable', transport: 'v2' }),
    );
    clock.advance(1_000);
    await admit(accountId, 'req_p3');
    const ids = async (query: LedgerQuery) =>
      (await ledger.entries(accountId, query)).map((entry) => entry.requestId);
    expect(await ids({})).toEqual(['req_p3', 'req_p2', 'req_p1', 'req_p0']);
    expect(await ids({ requestId: 'req_p1' })).toEqual(['req_p1']);
    expect(await ids({ requestId: 'req_p3' })).toEqual(['req_p3']);
    expect(await ids({ requestId: '__proto__' })).toEqual([]);
    expect(await ids({ operation: 'emails.disposable' })).toEqual(['req_p2']);
    expect(await ids({ operation: 'test.priced', limit: 2 })).toEqual(['req_p3', 'req_p1']);
    const pages: string[][] = [];
    let after: LedgerPosition | undefined;
    for (;;) {
      const page = await ledger.entries(accountId, { limit: 1, ...(after ? { after } : {}) });
      if (page.length === 0) break;
      pages.push(page.map((entry) => entry.requestId));
      const last = page.at(-1) as LedgerEntry;
      after = { createdAt: last.createdAt, requestId: last.requestId };
    }
    expect(pages).toEqual([['req_p3'], ['req_p2'], ['req_p1'], ['req_p0']]);
  });

  it('sums usage by UTC day and operation from the ledger: charged, refunded, in flight, free', async () => {
    const { ledger } = harness.repositories;
    const { account } = await harness.provision({ credits: 10 });
    const { accountId } = account;
    const dayStart = Math.ceil(clock.now() / 86_400_000) * 86_400_000;
    clock.set(dayStart + 3_600_000);
    const day = iso().slice(0, 10);
    await ledger.charge(await admit(accountId, 'req_u0'), 200);
    await ledger.refund(await admit(accountId, 'req_u1'), 'upstream_error', 502);
    await admit(accountId, 'req_u2');
    await ledger.recordUsage(
      ledger.freeEntry({ requestId: 'req_u3', accountId, operation: 'emails.disposable', transport: 'mcp' }),
    );
    clock.advance(86_400_000);
    const nextDay = iso().slice(0, 10);
    await ledger.charge(await admit(accountId, 'req_u4'), 200);
    const range = { since: `${day}T00:00:00.000Z`, until: new Date(dayStart + 2 * 86_400_000).toISOString() };
    const none = { rest: 0, mcp: 0, v2: 0, batch: 0 };
    expect(await ledger.usage(accountId, range)).toEqual([
      {
        date: day,
        operation: 'emails.disposable',
        calls: 1,
        creditsCharged: 0,
        creditsRefunded: 0,
        callsByTransport: { ...none, mcp: 1 },
      },
      {
        date: day,
        operation: 'test.priced',
        calls: 3,
        creditsCharged: 2,
        creditsRefunded: 1,
        callsByTransport: none,
      },
      {
        date: nextDay,
        operation: 'test.priced',
        calls: 1,
        creditsCharged: 1,
        creditsRefunded: 0,
        callsByTransport: none,
      },
    ]);
    expect(
      await ledger.usage(accountId, { since: `${nextDay}T00:00:00.000Z`, until: range.until }),
    ).toHaveLength(1);
  });

  it('counts account reads in a window of their own, exactly under concurrency, apart from lookups', async () => {
    const { account } = await harness.provision({ credits: 10 });
    const { accountId } = account;
    const setting = { limit: 5, windowSeconds: 60 };
    clock.set(Math.ceil(clock.now() / 60_000) * 60_000 + 1_000);
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () =>
        harness.store.billing.admitAccountRead({ accountId, rateLimit: setting, now: clock.now() }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.outcome === 'admitted')).toHaveLength(5);
    // The lookups' window is untouched: state() reads it without counting.
    expect((await harness.repositories.ledger.state(accountId)).window).toBeUndefined();
    await admit(accountId, 'req_w0');
    expect((await harness.repositories.ledger.state(accountId)).window).toMatchObject({ windowCount: 1 });
    expect((await harness.repositories.ledger.state(accountId)).window).toMatchObject({ windowCount: 1 });
    clock.advance(120_000);
    expect(
      (await harness.store.billing.admitAccountRead({ accountId, rateLimit: setting, now: clock.now() }))
        .outcome,
    ).toBe('admitted');
  });

  it('records grants and adjustments with time, actor and reason, and they add up to granted', async () => {
    const { ledger } = harness.repositories;
    const { account, apiKey } = await harness.provision({ credits: 10, by: operator });
    const { accountId } = account;
    const opened = iso();
    clock.advance(1_000);
    const granted = await ledger.grant(accountId, 5, { actor: 'cli:bob', reason: 'top-up' });
    expect(granted).toMatchObject({
      kind: 'grant',
      amount: 5,
      balance: 15,
      actor: 'cli:bob',
      reason: 'top-up',
    });
    clock.advance(1_000);
    expect((await harness.get(`${PRICED_PATH}?outcome=ok`, apiKey)).status).toBe(200);
    const adjusted = await ledger.adjust(accountId, -3, { actor: 'cli:carol', reason: 'duplicate grant' });
    expect(adjusted).toMatchObject({ outcome: 'applied', balance: 11 });
    await admit(accountId, 'req_in_flight');

    const credits = await ledger.credits(accountId);
    expect(credits).toEqual([
      {
        entryId: expect.stringMatching(/^crd_/),
        accountId,
        kind: 'adjustment',
        amount: -3,
        balance: 11,
        actor: 'cli:carol',
        reason: 'duplicate grant',
        createdAt: iso(),
      },
      expect.objectContaining({ kind: 'grant', amount: 5, balance: 15, actor: 'cli:bob', reason: 'top-up' }),
      expect.objectContaining({ kind: 'grant', amount: 10, balance: 10, ...operator, createdAt: opened }),
    ]);
    // The ledger explains the balance: granted = Σ credit entries; granted − charged = balance + held.
    const state = await ledger.state(accountId);
    const charged = (await ledger.entries(accountId))
      .filter((entry) => entry.status === 'charged')
      .reduce((sum, entry) => sum + entry.cost, 0);
    const held = state.pending.reduce((sum, entry) => sum + entry.cost, 0);
    expect(state.granted).toBe(credits.reduce((sum, entry) => sum + entry.amount, 0));
    expect(state.granted - charged).toBe(state.balance + held);
    expect(state).toMatchObject({ balance: 10, granted: 12 });
  });

  it('refuses an adjustment that would take the balance below 0, and changes nothing', async () => {
    const { ledger } = harness.repositories;
    const { account } = await harness.provision({ credits: 4 });
    await admit(account.accountId, 'req_holding');
    const before = {
      state: await ledger.state(account.accountId),
      credits: await ledger.credits(account.accountId),
    };
    expect(await ledger.adjust(account.accountId, -4, operator)).toEqual({
      outcome: 'insufficient_credits',
      balance: 3,
    });
    expect(await ledger.state(account.accountId)).toEqual(before.state);
    expect(await ledger.credits(account.accountId)).toEqual(before.credits);
  });

  it('takes away exactly what the balance holds when adjustments race', async () => {
    const { ledger } = harness.repositories;
    const { account } = await harness.provision({ credits: 10 });
    const outcomes = await Promise.all(
      Array.from({ length: 25 }, () => ledger.adjust(account.accountId, -1, operator)),
    );
    expect(outcomes.filter((outcome) => outcome.outcome === 'applied')).toHaveLength(10);
    expect(await ledger.state(account.accountId)).toMatchObject({ balance: 0, granted: 0 });
    expect(await ledger.credits(account.accountId)).toHaveLength(11);
  });

  it('records each account change with the settings before and after, and no change that changes nothing', async () => {
    const { accounts } = harness.repositories;
    const { account, keyId } = await harness.provision({ name: 'Acme', by: operator });
    const { accountId } = account;
    clock.advance(1_000);
    await accounts.rename(accountId, 'Acme Ltd', { actor: 'cli:bob', reason: 'legal name' });
    await accounts.rename(accountId, 'Acme Ltd', { actor: 'cli:bob' });
    clock.advance(1_000);
    const changed = await accounts.setRateLimit(
      accountId,
      { limit: 5, windowSeconds: 30 },
      { actor: 'cli:bob' },
    );
    expect(changed).toMatchObject({ name: 'Acme Ltd', rateLimit: { limit: 5, windowSeconds: 30 } });
    clock.advance(1_000);
    await accounts.setStatus(accountId, 'suspended', { actor: 'cli:carol', reason: 'unpaid' });
    await accounts.setStatus(accountId, 'suspended', { actor: 'cli:carol' });
    clock.advance(1_000);
    await revokeKey(harness.repositories, accountId, keyId, { actor: 'cli:carol', reason: 'leaked' });
    await revokeKey(harness.repositories, accountId, keyId, { actor: 'cli:carol' });

    expect(await accounts.get(accountId)).toMatchObject({ name: 'Acme Ltd', status: 'suspended' });
    const history = await accounts.history(accountId);
    const entry = (fields: Partial<AuditEntry>) => ({
      auditId: expect.stringMatching(/^aud_/),
      accountId,
      createdAt: expect.any(String),
      ...fields,
    });
    expect(history).toEqual([
      entry({
        action: 'key.revoked',
        actor: 'cli:carol',
        reason: 'leaked',
        details: { keyId },
        createdAt: iso(),
      }),
      entry({
        action: 'account.suspended',
        actor: 'cli:carol',
        reason: 'unpaid',
        details: { from: { status: 'active' }, to: { status: 'suspended' } },
      }),
      entry({
        action: 'account.rate_limit_changed',
        actor: 'cli:bob',
        details: {
          from: { rateLimit: { limit: 1000, windowSeconds: 60 } },
          to: { rateLimit: { limit: 5, windowSeconds: 30 } },
        },
      }),
      entry({
        action: 'account.renamed',
        actor: 'cli:bob',
        reason: 'legal name',
        details: { from: { name: 'Acme' }, to: { name: 'Acme Ltd' } },
      }),
      entry({ action: 'key.issued', ...operator, details: { keyId } }),
      entry({
        action: 'account.created',
        ...operator,
        details: { to: { name: 'Acme', status: 'active', rateLimit: { limit: 1000, windowSeconds: 60 } } },
        createdAt: account.createdAt,
      }),
    ]);
  });

  it('writes nothing when the account changed since it was read', async () => {
    const { account } = await harness.provision({ name: 'Stale' });
    await harness.repositories.accounts.rename(account.accountId, 'Fresh', operator);
    const history = await harness.repositories.accounts.history(account.accountId);
    const audit: AuditEntry = {
      auditId: `aud_${randomUUID().replaceAll('-', '')}`,
      accountId: account.accountId,
      action: 'account.renamed',
      actor: 'cli:late',
      details: { from: { name: 'Stale' }, to: { name: 'Late' } },
      createdAt: iso(),
    };
    expect(await harness.store.accounts.update(account, { ...account, name: 'Late' }, audit)).toBe(false);
    expect(await harness.repositories.accounts.get(account.accountId)).toMatchObject({ name: 'Fresh' });
    expect(await harness.repositories.accounts.history(account.accountId)).toEqual(history);
  });
});

describe('on DynamoDB, a change whose record item a crash kept from landing', () => {
  const clock = new ManualClock();
  let harness: Harness;
  let table: DynamoStore['table'];

  beforeAll(async () => {
    harness = await startHarness({ clock, store: 'dynamodb' });
    table = (harness.store as DynamoStore).table;
  });
  afterAll(() => harness.close());

  /** What the first write of a credit or audit change leaves when the process dies right after it. */
  async function noteOnly(owner: { pk: string; sk: string }, id: string, record: Record<string, unknown>) {
    await table.client.update({
      TableName: table.table,
      Key: owner,
      UpdateExpression: 'SET #note = :record',
      ExpressionAttributeNames: { '#note': `journal:${id}` },
      ExpressionAttributeValues: { ':record': record },
    });
  }

  const itemsUnder = async (accountId: string, prefix: string) =>
    (
      await table.client.query({
        TableName: table.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': itemKeys.account(accountId).pk, ':prefix': prefix },
      })
    ).Items ?? [];

  it('is read from its note, and landed by reconcile', async () => {
    const { account } = await harness.provision({ credits: 0 });
    const { accountId } = account;
    clock.advance(1_000);
    const at = new Date(clock.now()).toISOString();
    const credit = {
      entryId: 'crd_crashed',
      accountId,
      kind: 'grant',
      amount: 7,
      actor: 'cli:alice',
      createdAt: at,
    };
    const audit = {
      auditId: 'aud_crashed',
      accountId,
      action: 'account.renamed',
      actor: 'cli:alice',
      details: { from: { name: 'a' }, to: { name: 'b' } },
      createdAt: at,
    };
    await noteOnly(itemKeys.balance(accountId), credit.entryId, { type: 'credit', ...credit });
    await noteOnly(itemKeys.account(accountId), audit.auditId, { type: 'audit', ...audit });

    expect(await harness.repositories.ledger.credits(accountId)).toEqual([credit]);
    expect((await harness.repositories.accounts.history(accountId))[0]).toEqual(audit);
    expect(await itemsUnder(accountId, itemKeys.creditPrefix)).toEqual([]);
    // `admin migrate` copies what is only noted too.
    const snapshot = await exportSnapshot(table);
    expect(snapshot.credits).toContainEqual(credit);
    expect(snapshot.audit).toContainEqual(audit);

    clock.advance(10 * 60_000);
    await harness.repositories.ledger.reconcile(60_000);
    expect(await itemsUnder(accountId, itemKeys.creditPrefix)).toEqual([expect.objectContaining(credit)]);
    expect(await itemsUnder(accountId, 'AUDIT#')).toContainEqual(expect.objectContaining(audit));
    expect(await harness.repositories.ledger.credits(accountId)).toEqual([credit]);
    expect((await harness.repositories.accounts.history(accountId))[0]).toEqual(audit);
    const { Items } = await table.client.query({
      TableName: table.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': itemKeys.account(accountId).pk },
    });
    expect((Items ?? []).flatMap(Object.keys).filter((name) => name.startsWith('journal:'))).toEqual([]);
  });
});

describe('on SQLite, a file written before schema version 5', () => {
  const path = join(tmpdir(), `lookup-v3-${randomUUID()}.sqlite`);
  afterAll(() => Promise.all(['', '-wal', '-shm'].map((end) => rm(`${path}${end}`, { force: true }))));

  it('is upgraded in place: its ledger entries stay readable without a key, new ones carry theirs', async () => {
    const old: LedgerEntry = {
      requestId: 'req_old',
      accountId: 'acct_old',
      operation: 'test.priced',
      cost: 1,
      status: 'charged',
      httpStatus: 200,
      createdAt: '2025-01-01T00:00:00.000Z',
      settledAt: '2025-01-01T00:00:01.000Z',
    };
    // A version-4 file: today's schema without what later versions added, holding an entry of its time.
    await createSqliteStore(path).close();
    const raw = new DatabaseSync(path);
    raw.exec(`ALTER TABLE inflight DROP COLUMN batch_id; ALTER TABLE inflight DROP COLUMN item_index;
      ALTER TABLE ledger DROP COLUMN batch_id; ALTER TABLE ledger DROP COLUMN item_index;
      DROP TABLE key_spend; ALTER TABLE inflight DROP COLUMN capped;
      ALTER TABLE api_keys DROP COLUMN daily_credit_cap; ALTER TABLE api_keys DROP COLUMN monthly_credit_cap;
      DROP TABLE credit_entries; DROP TABLE account_audit; DROP TABLE rate_windows;
      DROP TABLE console_sessions; DROP TABLE passkeys; DROP TABLE passkey_challenges;
      DROP TABLE oauth_state; DROP TABLE oauth_connections;
      DROP TABLE webhook_deliveries; DROP TABLE batch_items; DROP TABLE batches; DROP TABLE batch_idempotency;
      ALTER TABLE inflight DROP COLUMN key_id; ALTER TABLE ledger DROP COLUMN key_id;
      INSERT INTO balances (account_id, balance, granted) VALUES ('acct_old', 9, 10);
      INSERT INTO api_keys (key_hash, key_id, account_id, preview, created_at)
        VALUES ('hash_old', 'key_old', 'acct_old', 'lk_live_abcd…', '2025-01-01T00:00:00.000Z');
      PRAGMA user_version = 4;`);
    raw
      .prepare(
        `INSERT INTO ledger (account_id, request_id, operation, cost, status, http_status, created_at, settled_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        old.accountId,
        old.requestId,
        old.operation,
        old.cost,
        old.status,
        200,
        old.createdAt,
        old.settledAt as string,
      );
    raw.close();

    const store = createSqliteStore(path);
    try {
      insertLedger(
        store.database,
        {
          ...old,
          requestId: 'req_new',
          createdAt: '2025-01-02T00:00:00.000Z',
          keyId: 'key_new',
          batchItem: { batchId: 'bat_new', index: 7 },
        },
        'IGNORE',
      );
      const ledger = createRepositories(store).ledger;
      expect(await ledger.entries('acct_old')).toEqual([
        expect.objectContaining({
          requestId: 'req_new',
          keyId: 'key_new',
          batchItem: { batchId: 'bat_new', index: 7 },
        }),
        old,
      ]);
      expect(await ledger.credits('acct_old')).toEqual([]);
      expect(await ledger.state('acct_old')).toMatchObject({ balance: 9, granted: 10 });
      // A key issued before spend caps existed has none.
      expect(await createRepositories(store).keys.list('acct_old')).toEqual([
        expect.objectContaining({ keyId: 'key_old', dailyCreditCap: null, monthlyCreditCap: null }),
      ]);
    } finally {
      await store.close();
    }
  });
});
