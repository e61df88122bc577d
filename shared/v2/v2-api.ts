/**
 * The /api/v2 family as a binding of the catalog (api-binding.ts): the routes of schemas/v2-routes.ts,
 * each running its catalog operation through the same billed pipeline as v1 (same account, prices,
 * rate window and ledger, recorded as transport `v2`). What differs is only the transport: the key
 * comes in `X-API-Key`, the identifier may come in the path, successes use the v2 envelope, and the
 * document tags its paths `v2`, marks extensions `x-extension: true` and names the v1 operation
 * each route mirrors.
 */
import { v2EnvelopeSchema } from '../../schemas/envelope.js';
import { type V2Route, v2RoutesOf, variantOf } from '../../schemas/v2-routes.js';
import { type ApiError, InvalidApiKeyError, misplacedKeyMessages } from '../errors.js';
import type { ApiBinding, ApiRoute } from '../http/api-binding.js';
import type { HeaderReader } from '../http/protocol-checks.js';
import { toV2Response } from './v2-envelope.js';

export const V2_TAG = 'v2';
export const V2_SECURITY_SCHEME = 'apiKeyHeader';

/** v2 takes its key in X-API-Key only; a bearer token sent here is refused, never tried. */
function authorizationRefused(header: HeaderReader): ApiError | undefined {
  if (header('authorization') === undefined) return undefined;
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
    misplacedKeyMessages.authorizationOnV2(header('x-api-key') !== undefined),
  );
}

function toApiRoute(route: V2Route): ApiRoute {
  return {
    path: route.path,
    operation: route.operation,
    variant: variantOf(route),
    ...(route.identifier ? { identifier: route.identifier } : {}),
    ...(route.pathParameter ? { pathParameter: route.pathParameter } : {}),
    extension: route.extension,
  };
}

/** Which v1 operation a route mirrors, or that it has none. */
function relationToV1({ operation, variant, extension }: ApiRoute): string {
  if (operation.variants.length === 0)
    return `Operation ${operation.id}, of the v2 listing only: v1 has no path for it.`;
  const mirrored =
    `Mirrors v1 \`${variant.path}\` (operation ${operation.id}): the same data, price, ` +
    'account and rate limit, in the v2 envelope.';
  return extension ? `${mirrored} An extension: the v2 listing has no endpoint for this lookup.` : mirrored;
}

export const v2Api: ApiBinding = {
  transport: 'v2',
  routes: (operations) => v2RoutesOf(operations).map(toApiRoute),
  credential: (header) => ({ scheme: 'apiKey', apiKey: header('x-api-key') }),
  refuse: authorizationRefused,
  envelope: toV2Response,
  docs: {
    securityScheme: {
      name: V2_SECURITY_SCHEME,
      definition: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description:
          'The same API key as v1, sent as X-API-Key; an Authorization header is refused on /api/v2.',
      },
    },
    keyScheme: 'header',
    tag: () => V2_TAG,
    operationId: ({ operation, identifier }) =>
      `v2.${operation.id}${identifier && operation.identifiers.length > 1 ? `.by-${identifier}` : ''}`,
    relation: relationToV1,
    successDescription: 'The result, in the v2 envelope.',
    envelopeSchema: (definition, price) =>
      v2EnvelopeSchema(definition.data, definition.paging, price, definition.meta),
    examplePrefix: 'v2.',
  },
};
