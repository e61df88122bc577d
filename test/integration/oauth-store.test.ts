/**
 * The OAuth authorization server's store ports on both adapters (SQLite, and DynamoDB through
 * dynalite). oidc-provider's records are kept whole by model and id, read as absent from the
 * millisecond they expire (TTL deletion is lazy), found by their uid, used once (the first use
 * stays, so a second is detected), and removed one by one or a whole grant at a time; the sweep
 * removes expired ones. Connections register once, list per account newest first, record their
 * last use, and keep the first revocation's time and reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectionRecord,
  ConnectionTakenError,
  type OAuthStateRecord,
} from '../../shared/oauth/oauth-store.js';
import type { Store } from '../../shared/store/store.js';
import { openTestStore, type StoreKind, storeKinds } from '../support/harness.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');

const record = (payload: Record<string, unknown>, overrides: Partial<OAuthStateRecord> = {}) => ({
  payload,
  expiresAt: NOW + 600_000,
  ...overrides,
});

const connection = (overrides: Partial<ConnectionRecord> = {}): ConnectionRecord => ({
  connectionId: 'grant-conn-a',
  accountId: 'acct_1',
  clientId: 'https://client.example/metadata.json',
  clientName: 'Example agent',
  scopes: ['profiles', 'emails'],
  dailyCreditCap: 50,
  createdAt: '2026-11-26T10:00:00.000Z',
  lastUsedAt: null,
  revokedAt: null,
  revokedReason: null,
  ...overrides,
});

describe.each(storeKinds)('OAuth state and connections on the %s store', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await openTestStore({ store: kind }));
  });
  afterAll(() => close());

  describe('oidc-provider records', () => {
    it('keeps a record whole by model and id, and a put replaces it', async () => {
      const payload = {
        jti: 'code-1',
        kind: 'AuthorizationCode',
        grantId: 'grant-keep',
        scope: 'profiles emails',
        resource: 'https://lookup.example/mcp',
        claims: { nested: { list: [1, 'two', null, true] }, empty: '' },
        exp: 1_795_000_000,
        note: 'naïve ✓',
      };
      await store.oauthState.put('AuthorizationCode', 'code-1', record(payload));
      expect(await store.oauthState.find('AuthorizationCode', 'code-1', NOW)).toStrictEqual(record(payload));
      expect(await store.oauthState.find('RefreshToken', 'code-1', NOW)).toBeUndefined();
      expect(await store.oauthState.find('AuthorizationCode', 'code-missing', NOW)).toBeUndefined();

      const replaced = record({ jti: 'code-1', kind: 'AuthorizationCode' }, { expiresAt: NOW + 5_000 });
      await store.oauthState.put('AuthorizationCode', 'code-1', replaced);
      expect(await store.oauthState.find('AuthorizationCode', 'code-1', NOW)).toStrictEqual(replaced);
    });

    it('reads a record as absent from the millisecond its expiry passes', async () => {
      // Not on a whole second: DynamoDB's TTL counts seconds, the port milliseconds.
      const expiresAt = NOW + 1_500;
      await store.oauthState.put(
        'Interaction',
        'int-1',
        record({ jti: 'int-1', uid: 'uid-int' }, { expiresAt }),
      );
      expect(await store.oauthState.find('Interaction', 'int-1', expiresAt - 1)).toBeDefined();
      expect(await store.oauthState.find('Interaction', 'int-1', expiresAt)).toBeUndefined();
      expect(await store.oauthState.findByUid('Interaction', 'uid-int', expiresAt - 1)).toBeDefined();
      expect(await store.oauthState.findByUid('Interaction', 'uid-int', expiresAt)).toBeUndefined();
    });

    it('finds a record by its uid within its own model, and only by its current uid', async () => {
      const session = record({ jti: 'sess-1', uid: 'uid-1', accountId: 'acct_1' });
      await store.oauthState.put('Session', 'sess-1', session);
      expect(await store.oauthState.findByUid('Session', 'uid-1', NOW)).toStrictEqual(session);
      expect(await store.oauthState.findByUid('Interaction', 'uid-1', NOW)).toBeUndefined();
      expect(await store.oauthState.findByUid('Session', 'uid-missing', NOW)).toBeUndefined();

      const renewed = record({ jti: 'sess-1', uid: 'uid-2', accountId: 'acct_1' });
      await store.oauthState.put('Session', 'sess-1', renewed);
      expect(await store.oauthState.findByUid('Session', 'uid-2', NOW)).toStrictEqual(renewed);
      expect(await store.oauthState.findByUid('Session', 'uid-1', NOW)).toBeUndefined();
    });

    it('marks a record used once: a second use keeps the first time', async () => {
      await store.oauthState.put('AuthorizationCode', 'code-once', record({ jti: 'code-once' }));
      await store.oauthState.consume('AuthorizationCode', 'code-once', NOW + 1_000);
      await store.oauthState.consume('AuthorizationCode', 'code-once', NOW + 2_000);
      expect(await store.oauthState.find('AuthorizationCode', 'code-once', NOW)).toStrictEqual(
        record({ jti: 'code-once' }, { consumedAt: NOW + 1_000 }),
      );

      await store.oauthState.put('RefreshToken', 'rt-race', record({ jti: 'rt-race' }));
      await Promise.all([
        store.oauthState.consume('RefreshToken', 'rt-race', NOW + 3_000),
        store.oauthState.consume('RefreshToken', 'rt-race', NOW + 4_000),
      ]);
      const raced = await store.oauthState.find('RefreshToken', 'rt-race', NOW);
      expect([NOW + 3_000, NOW + 4_000]).toContain(raced?.consumedAt);

      // Using a record that is not there leaves nothing behind.
      await store.oauthState.consume('AuthorizationCode', 'code-never', NOW);
      expect(await store.oauthState.find('AuthorizationCode', 'code-never', 0)).toBeUndefined();
    });

    it('deletes a record, and it is found neither by id nor by uid', async () => {
      await store.oauthState.put('Session', 'sess-gone', record({ jti: 'sess-gone', uid: 'uid-gone' }));
      await store.oauthState.delete('Session', 'sess-gone');
      expect(await store.oauthState.find('Session', 'sess-gone', NOW)).toBeUndefined();
      expect(await store.oauthState.findByUid('Session', 'uid-gone', NOW)).toBeUndefined();
      await store.oauthState.delete('Session', 'sess-gone');
    });

    it('deletes every record of a grant, the grant included, and nothing of another grant', async () => {
      const ofGrant = (grantId: string, jti: string) => record({ jti, grantId });
      await store.oauthState.put('Grant', 'grant-a', record({ jti: 'grant-a', accountId: 'acct_1' }));
      await store.oauthState.put('AuthorizationCode', 'code-a', ofGrant('grant-a', 'code-a'));
      await store.oauthState.put('RefreshToken', 'rt-a1', ofGrant('grant-a', 'rt-a1'));
      await store.oauthState.put('RefreshToken', 'rt-a2', ofGrant('grant-a', 'rt-a2'));
      await store.oauthState.put('AccessToken', 'at-a', ofGrant('grant-a', 'at-a'));
      await store.oauthState.put('Grant', 'grant-b', record({ jti: 'grant-b', accountId: 'acct_1' }));
      await store.oauthState.put('RefreshToken', 'rt-b', ofGrant('grant-b', 'rt-b'));
      // Once bound to grant-a, now to grant-b: it goes with grant-b, not grant-a.
      await store.oauthState.put('AccessToken', 'at-moved', ofGrant('grant-a', 'at-moved'));
      await store.oauthState.put('AccessToken', 'at-moved', ofGrant('grant-b', 'at-moved'));

      await store.oauthState.deleteGrant('grant-a');

      for (const [model, id] of [
        ['Grant', 'grant-a'],
        ['AuthorizationCode', 'code-a'],
        ['RefreshToken', 'rt-a1'],
        ['RefreshToken', 'rt-a2'],
        ['AccessToken', 'at-a'],
      ] as const)
        expect(await store.oauthState.find(model, id, NOW), `${model} ${id}`).toBeUndefined();
      expect(await store.oauthState.find('Grant', 'grant-b', NOW)).toBeDefined();
      expect(await store.oauthState.find('RefreshToken', 'rt-b', NOW)).toBeDefined();
      expect(await store.oauthState.find('AccessToken', 'at-moved', NOW)).toStrictEqual(
        ofGrant('grant-b', 'at-moved'),
      );

      await store.oauthState.deleteGrant('grant-b');
      expect(await store.oauthState.find('AccessToken', 'at-moved', NOW)).toBeUndefined();
      await store.oauthState.deleteGrant('grant-none');
    });

    it('sweeps expired records with the other expired records, and keeps the live ones', async () => {
      const now = Date.parse('2026-11-26T13:00:00.000Z');
      await store.oauthState.put(
        'Session',
        'sess-old',
        record({ jti: 'sess-old', uid: 'uid-old', grantId: 'grant-old' }, { expiresAt: now - 60_000 }),
      );
      await store.oauthState.put(
        'Session',
        'sess-live',
        record({ jti: 'sess-live' }, { expiresAt: now + 60_000 }),
      );
      expect(await store.sweepExpired(now)).toBeGreaterThanOrEqual(1);
      // Read as of before it expired: only its absence from the store can hide it now.
      expect(await store.oauthState.find('Session', 'sess-old', now - 120_000)).toBeUndefined();
      expect(await store.oauthState.findByUid('Session', 'uid-old', now - 120_000)).toBeUndefined();
      expect(await store.oauthState.find('Session', 'sess-live', now)).toBeDefined();
    });
  });

  describe('connections', () => {
    beforeAll(async () => {
      await store.connections.insert(connection());
      await store.connections.insert(
        connection({
          connectionId: 'grant-conn-b',
          clientName: null,
          scopes: ['account'],
          dailyCreditCap: null,
          createdAt: '2026-11-26T11:00:00.000Z',
        }),
      );
      // Same time as b: the id breaks the tie, as it does on both stores.
      await store.connections.insert(
        connection({ connectionId: 'grant-conn-c', createdAt: '2026-11-26T11:00:00.000Z' }),
      );
      await store.connections.insert(connection({ connectionId: 'grant-conn-other', accountId: 'acct_2' }));
    });

    it('gives a connection back whole, and nothing for an unknown id', async () => {
      expect(await store.connections.get('grant-conn-a')).toStrictEqual(connection());
      expect(await store.connections.get('grant-conn-b')).toMatchObject({
        clientName: null,
        dailyCreditCap: null,
        scopes: ['account'],
      });
      expect(await store.connections.get('grant-conn-missing')).toBeUndefined();
    });

    it('refuses an id taken already, even for another account, and lists nothing for that account', async () => {
      await expect(
        store.connections.insert(connection({ accountId: 'acct_3', clientName: 'Intruder' })),
      ).rejects.toBeInstanceOf(ConnectionTakenError);
      await expect(store.connections.insert(connection())).rejects.toBeInstanceOf(ConnectionTakenError);
      expect(await store.connections.list('acct_3')).toEqual([]);
      expect(await store.connections.get('grant-conn-a')).toStrictEqual(connection());
    });

    it('lists the account’s own connections, newest first', async () => {
      const listed = await store.connections.list('acct_1');
      expect(listed.map((entry) => entry.connectionId)).toEqual([
        'grant-conn-c',
        'grant-conn-b',
        'grant-conn-a',
      ]);
      expect(listed[2]).toStrictEqual(connection());
      expect((await store.connections.list('acct_2')).map((entry) => entry.connectionId)).toEqual([
        'grant-conn-other',
      ]);
      expect(await store.connections.list('acct_none')).toEqual([]);
    });

    it('records the last use, and creates nothing for an unknown id', async () => {
      await store.connections.recordUse('grant-conn-b', '2026-11-26T12:00:00.000Z');
      await store.connections.recordUse('grant-conn-b', '2026-11-26T12:05:00.000Z');
      expect(await store.connections.get('grant-conn-b')).toMatchObject({
        lastUsedAt: '2026-11-26T12:05:00.000Z',
      });
      await store.connections.recordUse('grant-conn-missing', '2026-11-26T12:00:00.000Z');
      expect(await store.connections.get('grant-conn-missing')).toBeUndefined();
    });

    it('revokes once: the first time and reason stay; false for an unknown id', async () => {
      expect(await store.connections.revoke('grant-conn-a', '2026-11-26T13:00:00.000Z', 'customer')).toBe(
        true,
      );
      expect(await store.connections.revoke('grant-conn-a', '2026-11-26T13:05:00.000Z', 'client')).toBe(true);
      expect(await store.connections.get('grant-conn-a')).toStrictEqual(
        connection({ revokedAt: '2026-11-26T13:00:00.000Z', revokedReason: 'customer' }),
      );

      const raced = await Promise.all([
        store.connections.revoke('grant-conn-c', '2026-11-26T14:00:00.000Z', 'token_reused'),
        store.connections.revoke('grant-conn-c', '2026-11-26T14:00:01.000Z', 'client'),
      ]);
      expect(raced).toEqual([true, true]);
      const revoked = await store.connections.get('grant-conn-c');
      expect([
        { revokedAt: '2026-11-26T14:00:00.000Z', revokedReason: 'token_reused' },
        { revokedAt: '2026-11-26T14:00:01.000Z', revokedReason: 'client' },
      ]).toContainEqual({ revokedAt: revoked?.revokedAt, revokedReason: revoked?.revokedReason });

      expect(
        await store.connections.revoke('grant-conn-missing', '2026-11-26T13:00:00.000Z', 'customer'),
      ).toBe(false);
      expect(await store.connections.get('grant-conn-missing')).toBeUndefined();
      // Still listed: the console shows revoked connections too.
      expect((await store.connections.list('acct_1')).map((entry) => entry.revokedReason)).toEqual([
        revoked?.revokedReason,
        null,
        'customer',
      ]);
    });
  });
});
