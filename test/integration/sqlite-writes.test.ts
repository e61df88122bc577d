/**
 * Store writes per request on the SQLite adapter, counted at `Database.write` (each one a savepoint
 * of the next group commit), in steady state (key cached, rate window known): a free request writes
 * once, its admission and its usage record together, so it touches the store once before it is
 * answered; a billed one twice, its admission and its settlement.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import { type Harness, startHarness } from '../support/harness.js';
import { PRICED_PATH } from '../support/priced-operation.js';

const FREE_PATH = '/v1/emails/disposable?email=someone%40example.com';
let harness: Harness;
let apiKey: string;
let accountId: string;

beforeAll(async () => {
  harness = await startHarness({ store: 'sqlite' });
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ credits: 10 }));
});
afterAll(() => harness.close());

/** The writes one request queued, once warm; and its response. */
async function writesOf(path: string) {
  expect((await harness.get(path, apiKey)).status).toBe(200);
  const write = vi.spyOn((harness.store as SqliteStore).database, 'write');
  try {
    const response = await harness.get(path, apiKey);
    return { writes: write.mock.calls.length, response };
  } finally {
    write.mockRestore();
  }
}

describe('writes per request on SQLite', () => {
  it('a free request: 1 write, which ledgers it', async () => {
    const { writes, response } = await writesOf(FREE_PATH);
    expect(response.status).toBe(200);
    expect(writes).toBe(1);
    const requestId = response.headers.get('x-request-id') as string;
    const [entry] = await harness.repositories.ledger.entries(accountId, { requestId });
    expect(entry).toMatchObject({ requestId, cost: 0, status: 'charged', httpStatus: 200 });
  });

  it('a billed request: 2 writes (admission, settlement)', async () => {
    const { writes, response } = await writesOf(PRICED_PATH);
    expect(response.status).toBe(200);
    expect(writes).toBe(2);
  });
});
