/**
 * The v1 REST family as a binding of the catalog (api-binding.ts): one route per path variant of
 * each entry, the key as a bearer token, the `{data, meta}` envelope the pipeline answers.
 */
import { successEnvelopeSchema } from '../../schemas/envelope.js';
import { type ApiError, InvalidApiKeyError, misplacedKeyMessages } from '../errors.js';
import type { ApiBinding } from './api-binding.js';
import type { HeaderReader } from './protocol-checks.js';

/** A v1 request whose key came the /api/v2 way (X-API-Key) and not as a bearer token: said so. */
function v2KeyHeaderOnV1(header: HeaderReader): ApiError | undefined {
  if (header('authorization') !== undefined || header('x-api-key') === undefined) return undefined;
  return new InvalidApiKeyError(false, 'bearer', [], misplacedKeyMessages.v2HeaderOnV1);
}

export const v1Api: ApiBinding = {
  transport: 'rest',
  routes: (operations) =>
    operations.flatMap((operation) =>
      operation.variants.map((variant) => ({ path: variant.path, operation, variant })),
    ),
  credential: (header) => ({ scheme: 'bearer', authorization: header('authorization') }),
  refuse: v2KeyHeaderOnV1,
  envelope: (response) => response,
  docs: {
    securityScheme: {
      name: 'bearerAuth',
      definition: {
        type: 'http',
        scheme: 'bearer',
        description: 'API key: a fixed prefix followed by 66 Base64url characters.',
      },
    },
    keyScheme: 'bearer',
    tag: (route) => route.operation.family,
    operationId: ({ operation, variant }) =>
      variant.identifier ? `${operation.id}.by-${variant.identifier}` : operation.id,
    successDescription: 'The result.',
    envelopeSchema: (definition, price) =>
      successEnvelopeSchema(definition.data, definition.paging, price, definition.meta),
    examplePrefix: '',
  },
};
