/**
 * A batch whose answers the store could not keep is refused at creation, before anything is charged:
 * on DynamoDB (an item holds at most 400 KB) a page's HTML or text (up to 2,097,152 characters) cannot
 * be a batch result; on SQLite it can. The real app on each store, batches created over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchWorkerPool } from '../../shared/batches/batch-worker.js';
import { mountBatches } from '../../shared/batches/mount-batches.js';
import { type Harness, type StoreKind, startHarness, storeKinds } from '../support/harness.js';

describe.each(storeKinds)('batch results on %s', (kind: StoreKind) => {
  let harness: Harness;
  let workers: BatchWorkerPool;
  let apiKey: string;

  beforeAll(async () => {
    harness = await startHarness({ store: kind });
    workers = mountBatches(harness, harness.store).pool;
    ({ apiKey } = await harness.provision({ credits: 1_000 }));
  });
  afterAll(async () => {
    await workers?.stop();
    await harness?.close();
  });

  const create = (operation: string, items: unknown[]) =>
    harness.get(`/v1/batches?operation=${operation}`, apiKey, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(items),
    });

  it.each(['websites.content', 'websites.text'])(
    '%s: refused where results are bounded',
    async (operation) => {
      const response = await create(operation, [{ url: 'https://example.com/' }]);
      if (kind === 'sqlite') {
        expect(response.status).toBe(201);
        // Not run here: the test has no page to load; cancelled so the pool leaves it.
        const { id } = ((await response.json()) as { data: { id: string } }).data;
        expect((await harness.get(`/v1/batches/${id}/cancel`, apiKey, { method: 'POST' })).status).toBe(200);
        return;
      }
      expect(response.status).toBe(400);
      const error = ((await response.json()) as { error: { details: { field: string; message: string }[] } })
        .error;
      expect(error.details[0]).toMatchObject({ field: 'operation' });
      expect(error.details[0]?.message).toContain('call it one by one');
      const listed = (await (await harness.get('/v1/batches', apiKey)).json()) as {
        data: { operation: string }[];
      };
      expect(listed.data.map((batch) => batch.operation)).not.toContain(operation);
    },
  );

  it('takes operations whose answers fit', async () => {
    for (const operation of ['websites.emails', 'profiles.details']) {
      const item =
        operation === 'profiles.details' ? { username: 'wei-zhang' } : { url: 'https://example.com/' };
      const response = await create(operation, [item]);
      expect(response.status, operation).toBe(201);
      const { id } = ((await response.json()) as { data: { id: string } }).data;
      await harness.get(`/v1/batches/${id}/cancel`, apiKey, { method: 'POST' });
    }
  });
});
