/**
 * The OpenAPI registrar every API family goes through: each route of an operation, with its
 * parameters, examples, price and every answer. Apart from mounting (api-binding.ts), so that a
 * function that serves routes without documenting them loads neither this nor the recorded examples.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { type ApiBinding, type ApiRoute, routesOf } from './api-binding.js';
import {
  documentedParameters,
  errorResponses,
  priceText,
  successExamples,
  successHeaders,
} from './openapi.js';
import { EXAMPLE_REQUEST_ID, successExample } from './response-examples.js';

/** Documents the family's routes of the given operations in `registry`. */
export function documentApi(
  registry: OpenAPIRegistry,
  api: ApiBinding,
  operations: readonly RegisteredOperation[],
): void {
  for (const { route, operation } of routesOf(api, operations))
    documentRoute(registry, api, operation, route);
}

const securitySchemesRegistered = new WeakMap<object, Set<string>>();

/** The route's path in the OpenAPI document: its parameters, examples, price and every answer. */
function documentRoute(
  registry: OpenAPIRegistry,
  api: ApiBinding,
  operation: RegisteredOperation,
  route: ApiRoute,
): void {
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
