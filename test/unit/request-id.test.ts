/**
 * Request ids: `req_` and 20 base64url characters, unique, and ordered by the time they were minted
 * (the ledger's index by account and request id then grows at its end: docs/benchmarks.md).
 */
import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../shared/pipeline/public-response.js';

describe('newRequestId', () => {
  it('mints unique ids of the documented shape', () => {
    const ids = Array.from({ length: 5_000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts an id minted in a later millisecond after an earlier one', async () => {
    const earlier = Array.from({ length: 50 }, () => newRequestId());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = Array.from({ length: 50 }, () => newRequestId());
    for (const before of earlier) for (const after of later) expect(before < after).toBe(true);
  });
});
