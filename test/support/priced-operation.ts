/**
 * A billed operation that exists only in tests, to drive the pipeline through every settlement:
 * its `outcome` parameter picks what the run does.
 */
import * as z from 'zod';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { InternalError, ResourceNotFoundError, UpstreamError } from '../../shared/errors.js';
import type { Runner } from '../../shared/pipeline/operation.js';

export const PRICED_PATH = '/v1/test/priced';

export const pricedOperation = {
  id: 'test.priced',
  family: 'search',
  group: 'test',
  summary: 'Test-only billed operation',
  description: 'Succeeds or fails as its outcome parameter says.',
  variants: [{ path: PRICED_PATH }],
  identifiers: [],
  query: z.object({
    outcome: z.enum(['ok', 'not_found', 'upstream_error', 'crash', 'invalid_data', 'slow']).default('ok'),
  }),
  data: z.object({ answer: z.number() }),
  paging: 'none',
  price: 1,
  examples: { outcome: 'ok' },
  settlement: { chargedErrors: ['resource_not_found'] },
  runtime: { timeoutMs: 300, memoryMb: 128, needs: [] },
  statuses: [200, 400, 401, 402, 403, 404, 405, 406, 415, 429, 500, 502, 503, 504],
} as const satisfies OperationDefinition;

export const pricedRunner: Runner<z.output<typeof pricedOperation.query>> = async (
  { outcome },
  { signal },
) => {
  switch (outcome) {
    case 'ok':
      return { data: { answer: 42, providerSecret: 'never public' } };
    case 'not_found':
      throw new ResourceNotFoundError('No such thing.');
    case 'upstream_error':
      throw new UpstreamError('The data source answered nonsense.');
    case 'crash':
      throw new TypeError('a bug');
    case 'invalid_data':
      return { data: { answer: 'forty-two' } };
    case 'slow':
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 5_000);
        signal.addEventListener('abort', () => clearTimeout(timer));
      });
      throw new InternalError(undefined, { message: 'should have been aborted' });
  }
};
