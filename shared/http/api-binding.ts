/**
 * One HTTP binding of the catalog: what an API family (v1, /api/v2, any next one) is, and the one
 * mount loop and OpenAPI registrar every family goes through. A family says only what differs: its
 * routes of an operation, where the credential comes from, what it refuses before the pipeline, its
 * envelope, and how its paths are documented. Validation, billing, the deadline and the error body
 * are the pipeline's, the same for every family, MCP included.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { z } from 'zod';
import type { OperationDefinition, OperationVariant } from '../../schemas/operation-definition.js';
import type { Transport } from '../billing/credit-ledger.js';
import type { ApiError, KeyScheme } from '../errors.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { errorResponse, type PublicResponse } from '../pipeline/public-response.js';
import type { LookupPipeline, LookupRequest } from '../pipeline/run-lookup.js';
import type { RawInput } from '../pipeline/validate-input.js';
import {
  documentedParameters,
  errorResponses,
  priceText,
  successExamples,
  successHeaders,
} from './openapi.js';
import { checkProtocol } from './protocol-checks.js';
import { toHttpResponse } from './render.js';
import { EXAMPLE_REQUEST_ID, successExample } from './response-examples.js';

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

/** Mounts and documents the family's routes of the given operations, all through the pipeline. */
export function mountApi(
  app: OpenAPIHono<RestEnv>,
  api: ApiBinding,
  operations: readonly RegisteredOperation[],
  pipeline: LookupPipeline,
): void {
  for (const { route, operation } of routesOf(api, operations)) {
    documentRoute(app, api, operation, route);
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

/** Documents the family's routes of operations another function runs (the pages function). */
export function documentApi<E extends Env>(
  app: OpenAPIHono<E>,
  api: ApiBinding,
  operations: readonly RegisteredOperation[],
): void {
  for (const { route, operation } of routesOf(api, operations)) documentRoute(app, api, operation, route);
}

/** How many parameters a path has. */
const parameterCount = (route: ApiRoute) => route.path.split('{').length - 1;

/**
 * The family's routes of the operations, literal paths before parameterized ones
 * (`/api/v2/profiles/detail` before `/api/v2/profiles/{public_identifier}`): the router answers
 * with the first route that matches, whatever order the catalog lists them in.
 */
function routesOf(api: ApiBinding, operations: readonly RegisteredOperation[]) {
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

const securitySchemesRegistered = new WeakMap<object, Set<string>>();

/** The route's path in the OpenAPI document: its parameters, examples, price and every answer. */
function documentRoute<E extends Env>(
  app: OpenAPIHono<E>,
  api: ApiBinding,
  operation: RegisteredOperation,
  route: ApiRoute,
): void {
  const registry = app.openAPIRegistry;
  const { docs } = api;
  const registered = securitySchemesRegistered.get(registry) ?? new Set<string>();
  securitySchemesRegistered.set(registry, registered);
  if (!registered.has(docs.securityScheme.name)) {
    registered.add(docs.securityScheme.name);
    registry.registerComponent('securitySchemes', docs.securityScheme.name, docs.securityScheme.definition);
  }
  const { definition, price } = operation;
  const parameters = documentedParameters(definition, route.variant);
  const inPath = parameters.filter(
    ([name]) => route.pathParameter !== undefined && name === route.identifier,
  );
  const inQuery = parameters.filter((entry) => !inPath.includes(entry));
  const v1Example = successExample(definition, price);
  const example =
    v1Example &&
    api.envelope({ status: 200, headers: {}, body: v1Example }, definition.id, EXAMPLE_REQUEST_ID).body;
  const relation = docs.relation?.(route);
  registry.registerPath({
    method: 'get',
    path: route.path,
    operationId: docs.operationId(route),
    tags: [docs.tag(route)],
    summary: definition.summary,
    description: [definition.description, relation, priceText(price)].filter(Boolean).join('\n\n'),
    security: [{ [docs.securityScheme.name]: [] }],
    request: {
      ...(route.pathParameter
        ? { params: z.object(Object.fromEntries(inPath.map(([, schema]) => [route.pathParameter, schema]))) }
        : {}),
      query: z.object(Object.fromEntries(inQuery)),
    },
    responses: {
      200: {
        description: docs.successDescription,
        headers: successHeaders(price > 0),
        content: {
          'application/json': {
            schema: docs.envelopeSchema(definition, price),
            examples: successExamples(registry, definition, example, docs.examplePrefix),
          },
        },
      },
      ...errorResponses(registry, {
        definition,
        variant: route.variant,
        price,
        scheme: docs.keyScheme,
        ...(route.pathParameter && route.identifier
          ? { renamed: { parameter: route.identifier, as: route.pathParameter } }
          : {}),
      }),
    },
    ...(route.extension ? { 'x-extension': true } : {}),
  });
}
