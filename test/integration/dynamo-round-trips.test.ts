/**
 * Store writes and sequential round trips per request on the DynamoDB adapter, counted at the
 * client (every command sent, with when it started and ended), in steady state (key cached, window
 * known): a billed request at most 3 writes and 2 sequential round trips besides the lookup, a free
 * one at most 2 writes and 1 round trip before the lookup runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallCount,
  countDynamoCalls,
  isRead,
  sequentialRoundTrips,
} from '../../bench/dynamo-call-counter.js';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { type Harness, startHarness } from '../support/harness.js';
import { PRICED_PATH } from '../support/priced-operation.js';

const FREE_PATH = '/v1/emails/disposable?email=someone%40example.com';
let harness: Harness;
let counter: ReturnType<typeof countDynamoCalls>;
/** performance.now() when each lookup began. */
const lookupStarts: number[] = [];

let phase = 'setup';

beforeAll(async () => {
  harness = await startHarness({ store: 'dynamodb' });
  // Each lookup notes when it begins (the operations the app serves, wrapped in place).
  for (const operation of harness.operations) {
    const accept = operation.accept;
    operation.accept = async (input, variant) => {
      const run = await accept(input, variant);
      return (context) => {
        lookupStarts.push(performance.now());
        return run(context);
      };
    };
  }
  counter = countDynamoCalls((harness.store as DynamoStore).table);
});
afterAll(() => harness.close());

function summary(counts: CallCount[]) {
  const writes = counts
    .filter((count) => !isRead(count.command))
    .reduce((sum, count) => sum + count.count, 0);
  const reads = counts.filter((count) => isRead(count.command)).reduce((sum, count) => sum + count.count, 0);
  return { writes, reads, roundTrips: sequentialRoundTrips(counts) };
}

async function measure(path: string, apiKey: string, expectedStatus: number) {
  // Warm: the key cached and the rate window known, as in steady state.
  expect((await harness.get(path, apiKey)).status).toBe(expectedStatus);
  phase = `measured ${path} ${apiKey}`;
  counter.setPhase(phase);
  lookupStarts.length = 0;
  const response = await harness.get(path, apiKey);
  counter.setPhase('after');
  expect(response.status).toBe(expectedStatus);
  const counts = counter.counts(phase);
  // What the lookup waited for: the calls that had ended when it began (the usage record of a free
  // call is sent as it begins, and runs beside it).
  const lookupStart = lookupStarts[0] as number;
  const beforeLookup = summary(
    counts.map((count) => ({ ...count, spansMs: count.spansMs.filter(([, end]) => end <= lookupStart) })),
  );
  return { ...summary(counts), beforeLookup, counts };
}

describe('on the DynamoDB adapter, in steady state', () => {
  it('a billed request that is charged: 2 writes in 2 sequential round trips, no reads', async () => {
    const { apiKey } = await harness.provision({ credits: 100 });
    const { writes, reads, roundTrips } = await measure(PRICED_PATH, apiKey, 200);
    expect({ writes, reads, roundTrips }).toEqual({ writes: 2, reads: 0, roundTrips: 2 });
  });

  it('a billed request that is refunded: 3 writes in 2 sequential round trips, no reads', async () => {
    const { apiKey } = await harness.provision({ credits: 100 });
    const { writes, reads, roundTrips } = await measure(`${PRICED_PATH}?outcome=upstream_error`, apiKey, 502);
    expect({ writes, reads, roundTrips }).toEqual({ writes: 3, reads: 0, roundTrips: 2 });
  });

  it('a free request: 2 writes, 1 round trip before the lookup', async () => {
    const { apiKey } = await harness.provision({ credits: 0 });
    const { writes, reads, beforeLookup } = await measure(FREE_PATH, apiKey, 200);
    expect({ writes, reads }).toEqual({ writes: 2, reads: 0 });
    expect(beforeLookup.roundTrips).toBe(1);
  });

  it("a key's first use is recorded by the admission's write, at no extra write or round trip", async () => {
    const { apiKey, account } = await harness.provision({ credits: 100 });
    counter.setPhase('first use');
    expect((await harness.get(PRICED_PATH, apiKey)).status).toBe(200);
    counter.setPhase('after');
    const writes = summary(counter.counts('first use')).writes;
    expect(writes).toBe(2);
    const [key] = await harness.repositories.keys.list(account.accountId);
    expect(key?.lastUsedAt).not.toBeNull();
  });
});
