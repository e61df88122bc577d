/**
 * One HTTP binding of the catalog: what an API family (v1, /api/v2, any next one) is, and the one
 * mount loop every family goes through (its OpenAPI registrar is api-documentation.ts, loaded only
 * where the document is made). A family says only what differs: its
 * routes of an operation, where the credential comes from, what it refuses before the pipeline, its
 * envelope, and how its paths are documented. Validation, billing, the deadline and the error body
 * are the pipeline's, the same for every family, MCP included.
 */
import type { Hono } from 'hono';
import type * as z from 'zod';
import type { OperationDefinition, OperationVariant } from '../../schemas/operation-definition.js';
import type { Transport } from '../billing/credit-ledger.js';
import type { ApiError, KeyScheme } from '../errors.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { errorResponse, type PublicResponse } from '../pipeline/public-response.js';
import type { LookupPipeline, LookupRequest } from '../pipeline/run-lookup.js';
import type { RawInput } from '../pipeline/validate-input.js';
import { checkProtocol } from './protocol-checks.js';
import { toHttpResponse } from './render.js';

export interface RestEnv {
  Variables: {
    requestId: string;
    /** What the pipeline learned, for the request log. */
    lookup?: { operation: string; accountId?: string; keyId?: string; creditCost: number };
  };
}

/** One route of a family: a path that runs an operation. */
export interface ApiRoute {
  /** OpenAPI style: `/api/v2/profiles/{public_identifier}`. */
  path: string;
  operation: OperationDefinition;
  /** The v1 path whose identifier rules the route follows. */
  variant: OperationVariant;
  /** The path parameter that carries the identifier `identifier`, when the path carries one. */
  pathParameter?: string;
  identifier?: string;
  /** A route beyond the family's own listing (v2's /api/v2/ext/). */
  extension?: boolean;
}

/** The OpenAPI security schemes a family may take its key by. */
export type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; description: string }
  | { type: 'apiKey'; in: 'header'; name: string; description: string };

/** How a family's paths appear in the OpenAPI document. */
export interface ApiDocs {
  securityScheme: { name: string; definition: SecurityScheme };
  /** Which scheme its key errors name (their examples are rendered for it). */
  keyScheme: KeyScheme;
  tag(route: ApiRoute): string;
  operationId(route: ApiRoute): string;
  /** A paragraph of the description between the operation's own and its price, if any. */
  relation?(route: ApiRoute): string;
  successDescription: string;
  envelopeSchema(definition: OperationDefinition, price: number): z.ZodType;
  /** Prefix of its 200 example components, so families' examples keep apart. */
  examplePrefix: string;
}

export interface ApiBinding {
  /** What the ledger records the call as. */
  transport: Transport;
  routes(operations: readonly OperationDefinition[]): ApiRoute[];
  credential(headers: Headers): LookupRequest['credential'];
  /** A refusal of the family's own, before the pipeline (a key sent the other family's way). */
  refuse(headers: Headers): ApiError | undefined;
  /** The family's body of a pipeline answer. */
  envelope(response: PublicResponse, operationId: string, requestId: string): PublicResponse;
  docs: ApiDocs;
}

/** `/profiles/{public_identifier}` → `/profiles/:public_identifier`, Hono's spelling. */
function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** Mounts the family's routes of the given operations, all through the pipeline (api-documentation.ts documents them). */
export function mountApi(
  app: Hono<RestEnv>,
  api: ApiBinding,
  operations: readonly RegisteredOperation[],
  pipeline: LookupPipeline,
): void {
  for (const { route, operation } of routesOf(api, operations)) {
    app.all(honoPath(route.path), async (c) => {
      const requestId = c.get('requestId');
      const headers = c.req.raw.headers;
      const refusal = checkProtocol(c.req.raw) ?? api.refuse(headers);
      if (refusal) return toHttpResponse(errorResponse(refusal, requestId));
      const outcome = await pipeline.run({
        operation,
        variant: route.variant,
        credential: api.credential(headers),
        input: routeInput(route, c.req.url),
        requestId,
        transport: api.transport,
      });
      c.set('lookup', {
        operation: operation.definition.id,
        accountId: outcome.accountId,
        keyId: outcome.keyId,
        creditCost: outcome.creditCost,
      });
      return toHttpResponse(api.envelope(outcome.response, operation.definition.id, requestId));
    });
  }
}

/** How many parameters a path has. */
const parameterCount = (route: ApiRoute) => route.path.split('{').length - 1;

/**
 * The family's routes of the operations, literal paths before parameterized ones
 * (`/api/v2/profiles/detail` before `/api/v2/profiles/{public_identifier}`): the router answers
 * with the first route that matches, whatever order the catalog lists them in.
 */
export function routesOf(api: ApiBinding, operations: readonly RegisteredOperation[]) {
  const served = new Map(operations.map((operation) => [operation.definition, operation]));
  return api
    .routes(operations.map((operation) => operation.definition))
    .sort((a, b) => parameterCount(a) - parameterCount(b))
    .flatMap((route) => {
      const operation = served.get(route.operation);
      return operation ? [{ route, operation }] : [];
    });
}

/**
 * What the operation validates: the request's query and the identifier its path carries, both as
 * received (still percent-encoded), so that validation decodes them strictly and names the path
 * parameter as the family spells it. The segment is read from the URL's own path rather than from
 * the router's parameters, which are decoded leniently.
 */
function routeInput(route: ApiRoute, url: string): RawInput {
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
