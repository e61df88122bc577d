/**
 * The passkey port on both adapters (SQLite, and DynamoDB through dynalite): a passkey is found by
 * its credential id and listed by its account, a credential id registers once, a sign-in's counter
 * only grows (a replayed or cloned authenticator is refused), removal is per account, and a
 * ceremony's challenge signs one ceremony only, never after it expired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PasskeyRecord, PasskeyTakenError } from '../../shared/auth/passkeys.js';
import type { Store } from '../../shared/store/store.js';
import { openTestStore, type StoreKind, storeKinds } from '../support/harness.js';

const passkey = (overrides: Partial<PasskeyRecord> = {}): PasskeyRecord => ({
  credentialId: 'cred-a',
  accountId: 'acct_1',
  publicKey: 'pQECAyYgASFYIA',
  counter: 0,
  transports: ['internal', 'hybrid'],
  label: 'work laptop',
  createdAt: '2026-11-26T10:00:00.000Z',
  lastUsedAt: null,
  ...overrides,
});

describe.each(storeKinds)('passkeys on the %s store', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await openTestStore({ store: kind }));
    await store.passkeys.insert(passkey());
    await store.passkeys.insert(
      passkey({ credentialId: 'cred-b', counter: 7, label: null, createdAt: '2026-11-26T11:00:00.000Z' }),
    );
    await store.passkeys.insert(passkey({ credentialId: 'cred-other', accountId: 'acct_2' }));
  });
  afterAll(() => close());

  it('finds a passkey by its credential id, whole, and lists the account’s oldest first', async () => {
    expect(await store.passkeys.find('cred-a')).toEqual(passkey());
    expect(await store.passkeys.find('cred-missing')).toBeUndefined();
    const listed = await store.passkeys.list('acct_1');
    expect(listed.map((record) => record.credentialId)).toEqual(['cred-a', 'cred-b']);
    expect(listed[1]).toMatchObject({ label: null, counter: 7, lastUsedAt: null });
  });

  it('refuses a credential id registered already, even for another account', async () => {
    await expect(store.passkeys.insert(passkey({ accountId: 'acct_3' }))).rejects.toBeInstanceOf(
      PasskeyTakenError,
    );
    expect(await store.passkeys.list('acct_3')).toEqual([]);
  });

  it('records a sign-in only while the counter grows (0 stays 0 for authenticators that keep none)', async () => {
    expect(await store.passkeys.recordUse('cred-b', 8, '2026-11-26T12:00:00.000Z')).toBe(true);
    expect(await store.passkeys.recordUse('cred-b', 8, '2026-11-26T12:01:00.000Z')).toBe(false);
    expect(await store.passkeys.recordUse('cred-b', 3, '2026-11-26T12:02:00.000Z')).toBe(false);
    expect(await store.passkeys.find('cred-b')).toMatchObject({
      counter: 8,
      lastUsedAt: '2026-11-26T12:00:00.000Z',
    });
    expect(await store.passkeys.recordUse('cred-a', 0, '2026-11-26T12:03:00.000Z')).toBe(true);
    expect(await store.passkeys.recordUse('cred-missing', 1, '2026-11-26T12:03:00.000Z')).toBe(false);
  });

  it('removes a passkey only for its own account', async () => {
    expect(await store.passkeys.remove('acct_1', 'cred-other')).toBe(false);
    expect(await store.passkeys.find('cred-other')).toBeDefined();
    expect(await store.passkeys.remove('acct_2', 'cred-other')).toBe(true);
    expect(await store.passkeys.find('cred-other')).toBeUndefined();
    expect(await store.passkeys.list('acct_2')).toEqual([]);
    expect(await store.passkeys.remove('acct_2', 'cred-other')).toBe(false);
  });

  it('gives a challenge once, and never once it expired', async () => {
    const now = Date.parse('2026-11-26T12:00:00.000Z');
    await store.passkeys.saveChallenge({
      id: 'ch-1',
      challenge: 'c-one',
      purpose: 'register',
      accountId: 'acct_1',
      expiresAt: now + 300_000,
    });
    await store.passkeys.saveChallenge({
      id: 'ch-2',
      challenge: 'c-two',
      purpose: 'sign-in',
      expiresAt: now + 300_000,
    });
    const [first, second] = await Promise.all([
      store.passkeys.takeChallenge('ch-1', now),
      store.passkeys.takeChallenge('ch-1', now),
    ]);
    expect([first, second].filter(Boolean)).toEqual([
      { id: 'ch-1', challenge: 'c-one', purpose: 'register', accountId: 'acct_1', expiresAt: now + 300_000 },
    ]);
    expect(await store.passkeys.takeChallenge('ch-2', now + 300_001)).toBeUndefined();
    expect(await store.passkeys.takeChallenge('ch-2', now)).toBeUndefined();
  });

  it('sweeps expired challenges with the other expired records', async () => {
    const now = Date.parse('2026-11-26T13:00:00.000Z');
    await store.passkeys.saveChallenge({
      id: 'ch-old',
      challenge: 'c',
      purpose: 'sign-in',
      expiresAt: now - 60_000,
    });
    expect(await store.sweepExpired(now)).toBeGreaterThanOrEqual(1);
    expect(await store.passkeys.takeChallenge('ch-old', now - 120_000)).toBeUndefined();
  });
});
