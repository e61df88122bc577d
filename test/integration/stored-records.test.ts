/**
 * Stored records that do not decode, on each store adapter: a row or item planted corrupt through
 * the real database (SQLite's file, dynalite's table) fails the read with StoredRecordError naming
 * the record's kind and the item, instead of turning up later as `undefined`; a request that meets
 * one answers 500 `internal_error` (waiting will not mend it) and the log names the item.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../shared/auth/api-keys.js';
import { createLogger } from '../../shared/logger.js';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { exportSnapshot } from '../../shared/store/dynamodb/export-snapshot.js';
import { type ItemKey, itemKeys } from '../../shared/store/dynamodb/keys.js';
import { StoredRecordError } from '../../shared/store/records/stored-record.js';
import type { SqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import { type Harness, openTestStore, type StoreKind, startHarness, storeKinds } from '../support/harness.js';
import { PRICED_PATH } from '../support/priced-operation.js';

/** One corruption per adapter: an SQL statement, or an attribute set on an item. */
interface Corruption {
  sql: string;
  params: (string | number)[];
  key: ItemKey;
  attribute: string;
  value: unknown;
}

describe.each(storeKinds)('on the %s store', (kind: StoreKind) => {
  const lines: string[] = [];
  let harness: Harness;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    harness = await startHarness({ store: kind, logger: createLogger('error', sink) });
  });
  afterAll(() => harness.close());

  async function corrupt({ sql, params, key, attribute, value }: Corruption): Promise<void> {
    if (kind === 'sqlite') {
      const { changes } = (harness.store as SqliteStore).database.db.prepare(sql).run(...params);
      expect(Number(changes)).toBe(1);
      return;
    }
    const { table } = harness.store as DynamoStore;
    await table.client.update({
      TableName: table.table,
      Key: key,
      UpdateExpression: 'SET #attribute = :value',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#attribute': attribute },
      ExpressionAttributeValues: { ':value': value },
    });
  }

  async function expectNamedFailure(read: Promise<unknown>, record: string, item: string) {
    const error = await read.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(StoredRecordError);
    expect((error as StoredRecordError).record).toBe(record);
    expect((error as Error).message).toContain(item);
  }

  it('reads records back as written: optional fields absent, not undefined', async () => {
    const { account } = await harness.provision();
    const bare = {
      requestId: 'req_bare',
      accountId: account.accountId,
      operation: 'test.priced',
      cost: 0,
      status: 'charged' as const,
      createdAt: '2026-01-01T00:00:02.000Z',
    };
    const full = {
      ...bare,
      requestId: 'req_full',
      transport: 'mcp' as const,
      keyId: 'key_1',
      status: 'refunded' as const,
      httpStatus: 502,
      refundReason: 'upstream_error',
      createdAt: '2026-01-01T00:00:01.000Z',
      settledAt: '2026-01-01T00:00:03.000Z',
    };
    await harness.store.billing.recordUsage(bare);
    await harness.store.billing.recordUsage(full);
    // In flight, read from its own row or from the balance item's short names.
    // Admitted against a key's spend caps: the mark stays with the in-flight entry, not the ledger's.
    const admission = await harness.store.billing.admit({
      accountId: account.accountId,
      requestId: 'req_pending',
      operation: 'test.priced',
      cost: 1,
      rateLimit: { limit: 10, windowSeconds: 60 },
      now: Date.parse('2026-01-01T00:00:04.000Z'),
      caps: { keyId: 'key_capped', dailyCreditCap: 5, monthlyCreditCap: null },
    });
    expect(admission.outcome).toBe('admitted');
    expect((await harness.store.billing.state(account.accountId)).pending).toStrictEqual([
      {
        requestId: 'req_pending',
        accountId: account.accountId,
        operation: 'test.priced',
        cost: 1,
        capped: true,
        createdAt: '2026-01-01T00:00:04.000Z',
      },
    ]);
    expect(await harness.store.billing.entries(account.accountId)).toStrictEqual([
      {
        requestId: 'req_pending',
        accountId: account.accountId,
        operation: 'test.priced',
        cost: 1,
        status: 'pending',
        createdAt: '2026-01-01T00:00:04.000Z',
      },
      bare,
      full,
    ]);
    const cursor = {
      id: `cursor-${kind}`,
      operation: 'profiles.posts',
      accountId: account.accountId,
      subject: 'amelia',
      position: '20',
      issuedAt: 1_000,
      expiresAt: 901_000,
    };
    await harness.store.cursors.insert(cursor);
    expect(await harness.store.cursors.get(cursor.id)).toStrictEqual(cursor);
  });

  it('names an account whose status is not one the service knows', async () => {
    const { account } = await harness.provision();
    await corrupt({
      sql: "UPDATE accounts SET status = 'frozen' WHERE account_id = ?",
      params: [account.accountId],
      key: itemKeys.account(account.accountId),
      attribute: 'status',
      value: 'frozen',
    });
    await expectNamedFailure(harness.store.accounts.get(account.accountId), 'account', account.accountId);
    await expectNamedFailure(harness.store.accounts.list(), 'account', account.accountId);
  });

  it('names an API key whose scopes are not operation families', async () => {
    const { apiKey } = await harness.provision();
    const keyHash = hashApiKey(apiKey);
    await corrupt({
      sql: `UPDATE api_keys SET scopes = '["crystal-balls"]' WHERE key_hash = ?`,
      params: [keyHash],
      key: itemKeys.apiKeyByHash(keyHash),
      attribute: 'scopes',
      value: ['crystal-balls'],
    });
    await expectNamedFailure(harness.store.keys.findByHash(keyHash), 'API key', keyHash);
  });

  it('names an API key whose daily credit cap is not a positive whole number', async () => {
    const { apiKey } = await harness.provision();
    const keyHash = hashApiKey(apiKey);
    await corrupt({
      sql: 'UPDATE api_keys SET daily_credit_cap = 0 WHERE key_hash = ?',
      params: [keyHash],
      key: itemKeys.apiKeyByHash(keyHash),
      attribute: 'dailyCreditCap',
      value: 0,
    });
    await expectNamedFailure(harness.store.keys.findByHash(keyHash), 'API key', keyHash);
  });

  it('names a ledger entry with a status no settlement writes', async () => {
    const { account } = await harness.provision();
    const entry = {
      requestId: 'req_corrupt_ledger',
      accountId: account.accountId,
      operation: 'test.priced',
      cost: 0,
      status: 'charged' as const,
      createdAt: '2026-01-01T00:00:00.000Z',
      settledAt: '2026-01-01T00:00:01.000Z',
    };
    await harness.store.billing.recordUsage(entry);
    await corrupt({
      sql: "UPDATE ledger SET status = 'lost' WHERE request_id = ?",
      params: [entry.requestId],
      key: itemKeys.ledger(entry.accountId, entry.createdAt, entry.requestId),
      attribute: 'status',
      value: 'lost',
    });
    await expectNamedFailure(
      harness.store.billing.entries(account.accountId),
      'ledger entry',
      entry.requestId,
    );
  });

  it('names a credit entry of a kind no operator command makes', async () => {
    const { account } = await harness.provision({ credits: 5 });
    const [grant] = await harness.store.billing.credits(account.accountId);
    if (!grant) throw new Error('provisioning granted no credits');
    await corrupt({
      sql: "UPDATE credit_entries SET kind = 'gift' WHERE entry_id = ?",
      params: [grant.entryId],
      key: itemKeys.credit(account.accountId, grant.createdAt, grant.entryId),
      attribute: 'kind',
      value: 'gift',
    });
    await expectNamedFailure(harness.store.billing.credits(account.accountId), 'credit entry', grant.entryId);
  });

  it('names an audit entry whose details are not an object', async () => {
    const { account } = await harness.provision();
    const [created] = await harness.store.accounts.audit(account.accountId);
    if (!created) throw new Error('provisioning audited nothing');
    await corrupt({
      sql: "UPDATE account_audit SET details = 'not json' WHERE audit_id = ?",
      params: [created.auditId],
      key: itemKeys.audit(account.accountId, created.createdAt, created.auditId),
      attribute: 'details',
      value: 'not json',
    });
    await expectNamedFailure(harness.store.accounts.audit(account.accountId), 'audit entry', created.auditId);
  });

  it('names email-domain facts whose catch-all flag is not a boolean', async () => {
    const domain = `corrupt-${kind}.example`;
    await harness.store.domains.put(domain, {
      catchAll: true,
      mx: null,
      pattern: null,
      probe: null,
      learnedAt: 1,
      expiresAt: Date.now() + 60_000,
    });
    await corrupt({
      sql: 'UPDATE email_domains SET catch_all = 7 WHERE domain = ?',
      params: [domain],
      key: itemKeys.emailDomain(domain),
      attribute: 'catchAll',
      value: 'yes',
    });
    await expectNamedFailure(harness.store.domains.get(domain), 'email-domain facts', domain);
  });

  it('names an OAuth connection whose scopes are not operation families', async () => {
    const { account } = await harness.provision();
    const connectionId = `grant-corrupt-${kind}`;
    await harness.store.connections.insert({
      connectionId,
      accountId: account.accountId,
      clientId: 'https://client.example/metadata.json',
      clientName: null,
      scopes: ['profiles'],
      dailyCreditCap: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
      revokedReason: null,
    });
    await corrupt({
      sql: `UPDATE oauth_connections SET scopes = '["crystal-balls"]' WHERE connection_id = ?`,
      params: [connectionId],
      key: itemKeys.connection(connectionId),
      attribute: 'scopes',
      value: ['crystal-balls'],
    });
    await expectNamedFailure(harness.store.connections.get(connectionId), 'OAuth connection', connectionId);
    await expectNamedFailure(
      harness.store.connections.list(account.accountId),
      'OAuth connection',
      connectionId,
    );
  });

  it('names an OAuth state record whose payload is not a JSON object', async () => {
    const id = `sess-corrupt-${kind}`;
    await harness.store.oauthState.put('Session', id, {
      payload: { jti: id },
      expiresAt: Date.now() + 60_000,
    });
    await corrupt({
      sql: "UPDATE oauth_state SET payload = 'not json' WHERE model = 'Session' AND id = ?",
      params: [id],
      key: itemKeys.oauthState('Session', id),
      attribute: 'payload',
      value: 'not json',
    });
    await expectNamedFailure(harness.store.oauthState.find('Session', id, Date.now()), 'OAuth state', id);
  });

  it('answers 500 internal_error when the caller’s account does not decode, and logs the item', async () => {
    const { account, apiKey } = await harness.provision({ credits: 3 });
    await corrupt({
      sql: "UPDATE accounts SET status = 'frozen' WHERE account_id = ?",
      params: [account.accountId],
      key: itemKeys.account(account.accountId),
      attribute: 'status',
      value: 'frozen',
    });
    const response = await harness.get(PRICED_PATH, apiKey);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('internal_error');
    // The body says nothing of the store; the log says which item.
    expect(body.error.message).not.toContain(account.accountId);
    const logged = lines.find((line) => line.includes('StoredRecordError'));
    expect(logged).toContain(account.accountId);
  });
});

describe('the snapshot export of a DynamoDB table (admin migrate)', () => {
  it('stops at an item that does not decode, naming it, instead of copying it wrong', async () => {
    const opened = await openTestStore({ store: 'dynamodb' });
    try {
      const { store } = opened;
      const { table } = store as DynamoStore;
      await store.billing.open('acct_export', {
        entryId: 'crd_1',
        accountId: 'acct_export',
        kind: 'grant',
        amount: 5,
        actor: 'cli:alice',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      expect((await exportSnapshot(table)).balances).toEqual([
        { accountId: 'acct_export', balance: 5, granted: 5 },
      ]);
      await table.client.update({
        TableName: table.table,
        Key: itemKeys.balance('acct_export'),
        UpdateExpression: 'SET balance = :value',
        ExpressionAttributeValues: { ':value': 'plenty' },
      });
      const failure = await exportSnapshot(table).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoredRecordError);
      expect((failure as Error).message).toContain(`ACCOUNT#acct_export / BALANCE of table ${table.table}`);
    } finally {
      await opened.close();
    }
  });
});
