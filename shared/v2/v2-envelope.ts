/**
 * Turns the pipeline's v1-shaped answer into the /api/v2 envelope (schemas/envelope.ts
 * `v2EnvelopeSchema`): successes move `meta.paging` to a top-level `paging` and gain the request id
 * and operation in `meta`; errors keep the spec's error body unchanged, so v1 and v2 refuse alike.
 */
import type { RunMeta } from '../../schemas/envelope.js';
import type { PublicResponse } from '../pipeline/public-response.js';

interface V1Success {
  data: unknown;
  meta: RunMeta & { creditCost: number };
}

export function toV2Response(response: PublicResponse, operation: string, requestId: string): PublicResponse {
  if (response.status !== 200) return response;
  const { data, meta } = response.body as V1Success;
  const { paging, ...rest } = meta;
  return {
    ...response,
    body: { data, paging: paging ?? null, meta: { requestId, operation, ...rest } },
  };
}
