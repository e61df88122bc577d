/**
 * The /api/v2 adapter: one route per entry of schemas/v2-routes.ts, each running its catalog
 * operation through the same billed pipeline as v1 (same account, prices, rate window and ledger,
 * recorded as transport `v2`). What differs is only the transport: the key comes in `X-API-Key`,
 * the identifier may come in the path, and successes use the v2 envelope. Entry points that serve
 * v2 call this after building the service, as they do for MCP.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { type V2Route, v2Routes, variantOf } from '../../schemas/v2-routes.js';
import { type ApiError, InvalidApiKeyError, misplacedKeyMessages } from '../errors.js';
import type { RestEnv } from '../http/create-app.js';
import { checkProtocol } from '../http/protocol-checks.js';
import { toHttpResponse } from '../http/render.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { errorResponse } from '../pipeline/public-response.js';
import type { LookupPipeline } from '../pipeline/run-lookup.js';
import { toV2Response } from './v2-envelope.js';
import { registerV2Docs } from './v2-openapi.js';

export interface V2Service {
  app: OpenAPIHono<RestEnv>;
  pipeline: LookupPipeline;
  operations: readonly RegisteredOperation[];
}

/** v2 takes its key in X-API-Key only; a bearer token sent here is refused, never tried. */
function authorizationRefused(apiKeySent: boolean): ApiError {
  return new InvalidApiKeyError(
    false,
    'header',
    [
      {
        field: 'Authorization',
        code: 'unknown_parameter',
        message: '/api/v2 does not accept an Authorization header; send the key as X-API-Key: <API_KEY>.',
      },
    ],
    misplacedKeyMessages.authorizationOnV2(apiKeySent),
  );
}

/** `/profiles/{public_identifier}` → `/profiles/:public_identifier`, Hono's spelling. */
function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** Mounts the v2 routes of the operations this service serves. */
export function mountV2(service: V2Service): void {
  const { app, pipeline } = service;
  const served = new Map(service.operations.map((operation) => [operation.definition.id, operation]));
  for (const route of v2Routes) {
    const operation = served.get(route.operation);
    if (!operation) continue;
    registerV2Docs(app, operation, route);
    app.all(honoPath(route.path), async (c) => {
      const requestId = c.get('requestId');
      const refusal =
        checkProtocol(c.req.raw) ??
        (c.req.header('authorization') === undefined
          ? undefined
          : authorizationRefused(c.req.header('x-api-key') !== undefined));
      if (refusal) return toHttpResponse(errorResponse(refusal, requestId));
      const outcome = await pipeline.run({
        operation,
        variant: variantOf(route),
        credential: { scheme: 'apiKey', apiKey: c.req.header('x-api-key') },
        input: { kind: 'query', params: routeParameters(route, c.req.url, c.req.param()) },
        requestId,
        transport: 'v2',
      });
      c.set('lookup', {
        operation: operation.definition.id,
        accountId: outcome.accountId,
        keyId: outcome.keyId,
        creditCost: outcome.creditCost,
      });
      return toHttpResponse(toV2Response(outcome.response, operation.definition.id, requestId));
    });
  }
}

/**
 * The query the operation validates: the request's own, plus the identifier taken from the path
 * under its v1 name, so validation answers with the same details as v1.
 */
function routeParameters(route: V2Route, url: string, pathValues: Record<string, string>): URLSearchParams {
  const params = new URL(url).searchParams;
  if (route.pathParameter && route.identifier) {
    const value = pathValues[route.pathParameter];
    if (value !== undefined) params.append(route.identifier, value);
  }
  return params;
}
