/**
 * An items URL (`POST /v1/batches?itemsUrl=…`) whose name resolves to nothing is refused in the same
 * words as such a webhook URL; other resolver failures keep their code. The resolver is injected, so
 * the machine's own DNS decides nothing. The real fetches are in test/integration/batches.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fetchItems } from '../../shared/batches/batch-upload.js';
import { InvalidRequestError } from '../../shared/errors.js';

const failingWith = (code: string) => async (): Promise<string[]> => {
  throw Object.assign(new Error(`queryA ${code} items.test`), { code });
};

describe('fetchItems when the name does not resolve', () => {
  it.each([
    ['ENOTFOUND', 'The items URL names a host that does not resolve.'],
    ['ENODATA', 'The items URL names a host that does not resolve.'],
    ['EAI_AGAIN', 'The items URL could not be fetched: EAI_AGAIN.'],
  ])('refuses %s on itemsUrl: %s', async (code, message) => {
    const refusal = await fetchItems(
      'https://items.test/items.csv',
      { maxItems: 10, maxBytes: 1024 },
      { allowHosts: new Set(), resolve: failingWith(code) },
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InvalidRequestError);
    expect((refusal as InvalidRequestError).details).toEqual([
      { field: 'itemsUrl', code: 'invalid_value', message },
    ]);
  });
});
