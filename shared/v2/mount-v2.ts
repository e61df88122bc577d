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
import type { RawInput } from '../pipeline/validate-input.js';
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
        input: routeInput(route, c.req.url),
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
 * What the operation validates: the request's query and the identifier its path carries, both as
 * received (still percent-encoded), so that validation decodes them strictly and names the path
 * parameter as the listing does. The segment is read from the URL's own path rather than from the
 * router's parameters, which are decoded leniently.
 */
function routeInput(route: V2Route, url: string): RawInput {
  const { pathname, search } = new URL(url);
  if (!route.pathParameter || !route.identifier) return { kind: 'query', query: search };
  // Hono matches one segment per parameter, so the segment sits where the template has it.
  const index = route.path.split('/').indexOf(`{${route.pathParameter}}`);
  return {
    kind: 'query',
    query: search,
    pathIdentifier: {
      name: route.pathParameter,
      parameter: route.identifier,
      raw: pathname.split('/')[index] ?? '',
    },
  };
}
