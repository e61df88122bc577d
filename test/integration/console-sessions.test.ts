/**
 * The console-session port on both adapters: a session is found by the hash of its id only, ends at
 * sign-out and at its expiry (decided by time, whether or not the record is still there), and the
 * sweep removes expired records (DynamoDB's TTL does on AWS; dynalite never does).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSessions, hashSessionId } from '../../shared/console/console-sessions.js';
import { type OpenedTestStore, openTestStore, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';

const LIFETIME_MS = 60_000;

describe.each(storeKinds)('console sessions on %s', (kind) => {
  let opened: OpenedTestStore;
  const clock = new ManualClock();
  let sessions: ConsoleSessions;

  beforeAll(async () => {
    opened = await openTestStore({ store: kind });
    sessions = new ConsoleSessions(opened.store.consoleSessions, clock, LIFETIME_MS);
  });
  afterAll(() => opened?.close());

  it('keeps the hash of the id, never the id, and finds the session by the id', async () => {
    const { sessionId, record } = await sessions.start('acct_1', 'api_key', 'a'.repeat(64));
    expect(record.idHash).toBe(hashSessionId(sessionId));
    expect(await opened.store.consoleSessions.get(sessionId)).toBeUndefined();
    expect(await sessions.find(sessionId)).toEqual(record);
    // Another id of the same shape (its last character changed): no session.
    expect(
      await sessions.find(`${sessionId.slice(0, -1)}${sessionId.endsWith('A') ? 'B' : 'A'}`),
    ).toBeUndefined();
    expect(await sessions.find('__proto__')).toBeUndefined();
  });

  it('ends at sign-out', async () => {
    const { sessionId } = await sessions.start('acct_1', 'api_key', 'b'.repeat(64));
    await sessions.end(sessionId);
    expect(await sessions.find(sessionId)).toBeUndefined();
  });

  it('ends at its expiry, and the sweep deletes it', async () => {
    const { sessionId, record } = await sessions.start('acct_1', 'api_key', 'c'.repeat(64));
    clock.advance(LIFETIME_MS - 1_000);
    expect(await sessions.find(sessionId)).toBeDefined();
    clock.advance(1_000);
    expect(await sessions.find(sessionId)).toBeUndefined();
    await opened.store.sweepExpired(clock.now() + 1_000);
    expect(await opened.store.consoleSessions.get(record.idHash)).toBeUndefined();
  });
});
