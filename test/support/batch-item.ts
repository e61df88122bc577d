/**
 * An item of a bulk lookup run as the batch worker runs it: the real billed pipeline, with transport
 * `batch` and the item's batch id and index, for tests of what the ledger and its readers show.
 */
import type { BatchItemRef } from '../../shared/billing/billing-store.js';
import { newRequestId } from '../../shared/pipeline/public-response.js';
import type { Harness } from './harness.js';

export async function runBatchItem(
  harness: Pick<Harness, 'operations' | 'pipeline'>,
  apiKey: string,
  operationId: string,
  values: Record<string, unknown>,
  batchItem: BatchItemRef,
): Promise<{ status: number; requestId: string; batchItem: BatchItemRef }> {
  const operation = harness.operations.find(({ definition }) => definition.id === operationId);
  if (!operation) throw new Error(`No operation ${operationId} is served.`);
  const requestId = newRequestId();
  const { response } = await harness.pipeline.run({
    operation,
    credential: { scheme: 'bearer', authorization: `Bearer ${apiKey}` },
    input: { kind: 'arguments', values },
    requestId,
    transport: 'batch',
    batchItem,
  });
  return { status: response.status, requestId, batchItem };
}
