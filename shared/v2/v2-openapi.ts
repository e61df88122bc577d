/**
 * The /api/v2 paths of the one OpenAPI document, beside v1: tag `v2`, the `apiKeyHeader` security
 * scheme, the v2 envelope, and the parameters, price and errors of the catalog operation each route
 * runs (read through the same helpers as v1, so the two cannot disagree). Extensions carry
 * `x-extension: true`; every description names the v1 operation the route mirrors.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { z } from 'zod';
import { v2EnvelopeSchema } from '../../schemas/envelope.js';
import { isExtension, operationOf, type V2Route, variantOf } from '../../schemas/v2-routes.js';
import {
  documentedParameters,
  errorResponses,
  priceText,
  successExamples,
  successHeaders,
} from '../http/openapi.js';
import { EXAMPLE_REQUEST_ID, type SuccessBody, successExample } from '../http/response-examples.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { toV2Response } from './v2-envelope.js';

export const V2_TAG = 'v2';
export const V2_SECURITY_SCHEME = 'apiKeyHeader';

const registered = new WeakSet<object>();

export function registerV2Docs<E extends Env>(
  app: OpenAPIHono<E>,
  operation: RegisteredOperation,
  route: V2Route,
): void {
  if (!registered.has(app.openAPIRegistry)) {
    registered.add(app.openAPIRegistry);
    app.openAPIRegistry.registerComponent('securitySchemes', V2_SECURITY_SCHEME, {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description:
        'The same API key as v1, sent as X-API-Key; an Authorization header is refused on /api/v2.',
    });
  }
  const { definition, price } = operation;
  const variant = variantOf(route);
  const parameters = documentedParameters(definition, variant);
  const inPath = parameters.filter(
    ([name]) => route.pathParameter !== undefined && name === route.identifier,
  );
  const inQuery = parameters.filter((entry) => !inPath.includes(entry));
  const extension = isExtension(route);
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: route.path,
    operationId: `v2.${definition.id}${route.identifier && definition.identifiers.length > 1 ? `.by-${route.identifier}` : ''}`,
    tags: [V2_TAG],
    summary: definition.summary,
    description: `${definition.description}\n\n${relationToV1(route)}\n\n${priceText(price)}`,
    security: [{ [V2_SECURITY_SCHEME]: [] }],
    request: {
      ...(route.pathParameter
        ? { params: z.object(Object.fromEntries(inPath.map(([, schema]) => [route.pathParameter, schema]))) }
        : {}),
      query: z.object(Object.fromEntries(inQuery)),
    },
    responses: {
      200: {
        description: 'The result, in the v2 envelope.',
        headers: successHeaders(price > 0),
        content: {
          'application/json': {
            schema: v2EnvelopeSchema(definition.data, definition.paging, price, definition.meta),
            examples: successExamples(
              app.openAPIRegistry,
              definition,
              v2Example(definition.id, successExample(definition, price)),
              'v2.',
            ),
          },
        },
      },
      ...errorResponses(app.openAPIRegistry, {
        definition,
        variant,
        price,
        scheme: 'header',
        ...(route.pathParameter && route.identifier
          ? { renamed: { parameter: route.identifier, as: route.pathParameter } }
          : {}),
      }),
    },
    ...(extension ? { 'x-extension': true } : {}),
  });
}

/** Which v1 operation a route mirrors, or that it has none. */
function relationToV1(route: V2Route): string {
  const definition = operationOf(route);
  if (definition.variants.length === 0)
    return `Operation ${definition.id}, of the v2 listing only: v1 has no path for it.`;
  const mirrored =
    `Mirrors v1 \`${variantOf(route).path}\` (operation ${definition.id}): the same data, price, ` +
    'account and rate limit, in the v2 envelope.';
  return isExtension(route)
    ? `${mirrored} An extension: the v2 listing has no endpoint for this lookup.`
    : mirrored;
}

/** A v1 answer as the v2 route answers it. */
function v2Example(operation: string, v1: SuccessBody | undefined): unknown {
  if (v1 === undefined) return undefined;
  return toV2Response({ status: 200, headers: {}, body: v1 }, operation, EXAMPLE_REQUEST_ID).body;
}
