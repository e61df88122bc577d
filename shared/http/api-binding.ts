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
import { checkProtocol, type HeaderReader, type RequestHead } from './protocol-checks.js';
import { toHttpResponse } from './render.js';

/** What the request log line says of a call the pipeline (or a route of its own) answered. */
export interface LookupSummary {
  operation: string;
  accountId?: string;
  keyId?: string;
  creditCost: number;
}

export interface RestEnv {
  Variables: {
    requestId: string;
    /** What the pipeline learned, for the request log. */
    lookup?: LookupSummary;
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
  credential(header: HeaderReader): LookupRequest['credential'];
  /** A refusal of the family's own, before the pipeline (a key sent the other family's way). */
  refuse(header: HeaderReader): ApiError | undefined;
  /** The family's body of a pipeline answer. */
  envelope(response: PublicResponse, operationId: string, requestId: string): PublicResponse;
  docs: ApiDocs;
}

/** `/profiles/{public_identifier}` → `/profiles/:public_identifier`, Hono's spelling. */
function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** A route of a family and the operation it runs: what answers one API call. */
export interface ApiEndpoint {
  api: ApiBinding;
  route: ApiRoute;
  operation: RegisteredOperation;
}

/** Mounts the endpoints on the app, all through the pipeline (api-documentation.ts documents them). */
export function mountApi(
  app: Hono<RestEnv>,
  endpoints: readonly ApiEndpoint[],
  pipeline: LookupPipeline,
): void {
  for (const endpoint of endpoints) {
    app.all(honoPath(endpoint.route.path), async (c) => {
      const head = { method: c.req.method, header: (name: string) => c.req.header(name) };
      const { response, lookup } = await answerApiCall(
        endpoint,
        pipeline,
        head,
        c.req.url,
        c.get('requestId'),
      );
      if (lookup) c.set('lookup', lookup);
      return toHttpResponse(response);
    });
  }
}

/**
 * One API call, whichever server received it (the app's route above, or the embedded server's API
 * lane, api-lane.ts): the protocol checks, the family's own refusal, the pipeline, the family's
 * envelope. `target` is the request's URL, absolute or as its request line gave it. The lookup
 * summary, for the log line, is there when the pipeline ran.
 */
export async function answerApiCall(
  { api, route, operation }: ApiEndpoint,
  pipeline: LookupPipeline,
  head: RequestHead,
  target: string,
  requestId: string,
): Promise<{ response: PublicResponse; lookup?: LookupSummary }> {
  const refusal = checkProtocol(head) ?? api.refuse(head.header);
  if (refusal) return { response: errorResponse(refusal, requestId) };
  const outcome = await pipeline.run({
    operation,
    variant: route.variant,
    credential: api.credential(head.header),
    input: routeInput(route, target),
    requestId,
    transport: api.transport,
  });
  return {
    response: api.envelope(outcome.response, operation.definition.id, requestId),
    lookup: {
      operation: operation.definition.id,
      accountId: outcome.accountId,
      keyId: outcome.keyId,
      creditCost: outcome.creditCost,
    },
  };
}

/** How many parameters a path has. */
const parameterCount = (route: ApiRoute) => route.path.split('{').length - 1;

/**
 * The family's routes of the operations, literal paths before parameterized ones
 * (`/api/v2/profiles/detail` before `/api/v2/profiles/{public_identifier}`): the router answers
 * with the first route that matches, whatever order the catalog lists them in.
 */
export function routesOf(api: ApiBinding, operations: readonly RegisteredOperation[]): ApiEndpoint[] {
  const served = new Map(operations.map((operation) => [operation.definition, operation]));
  return api
    .routes(operations.map((operation) => operation.definition))
    .sort((a, b) => parameterCount(a) - parameterCount(b))
    .flatMap((route) => {
      const operation = served.get(route.operation);
      return operation ? [{ api, route, operation }] : [];
    });
}

/**
 * The query of a request target as WHATWG URL parsing spells it, which is how the app sees it (the
 * Node adaptor parses targets with the same parser). Nearly every query is printable ASCII without
 * the characters that parsing percent-encodes in a query (space, `"`, `#`, `'`, `<`, `>`), and
 * parsing keeps such a query as it is: it is taken as it is, without the cost of parsing a URL
 * (a twentieth of a free call's time).
 */
export function queryOf(target: string): string {
  const start = target.indexOf('?');
  if (start === -1 || target.includes('#')) return parsedTarget(target).search;
  const query = target.slice(start);
  if (!KEPT_QUERY.test(query)) return parsedTarget(target).search;
  return query === '?' ? '' : query;
}

const KEPT_QUERY = /^\?[!$-&(-;=?-~]*$/;

function parsedTarget(target: string): URL {
  return new URL(target, 'http://localhost');
}

/**
 * What the operation validates: the request's query and the identifier its path carries, both as
 * received (still percent-encoded), so that validation decodes them strictly and names the path
 * parameter as the family spells it. The segment is read from the URL's own path rather than from
 * the router's parameters, which are decoded leniently.
 */
function routeInput(route: ApiRoute, target: string): RawInput {
  if (!route.pathParameter || !route.identifier) return { kind: 'query', query: queryOf(target) };
  const { pathname, search } = parsedTarget(target);
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
