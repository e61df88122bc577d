/**
 * The examples of the OpenAPI document's responses, each what the service really answers: 200s
 * from what the sample dataset answers to the operation's example input (recorded into
 * schemas/response-examples.json by `npm run docs`; written by hand for the operations that reach
 * the network), with the price in force; every error from the service's own error classes rendered
 * by its one error renderer, and a 400 from its own validator refusing a bad value of one of the
 * path's real parameters. Cheap enough to build at registration: no lookup runs.
 */

import type { RunMeta } from '../../schemas/envelope.js';
import { type ErrorCode, errorCodes, errorTable } from '../../schemas/errors.js';
import type { OperationDefinition, OperationVariant } from '../../schemas/operation-definition.js';
import { exampleInput, pathParameters } from '../../schemas/operation-definition.js';
import recordedExamples from '../../schemas/response-examples.json' with { type: 'json' };
import {
  type ApiError,
  CapacityExceededError,
  CursorExpiredError,
  EmailUnverifiableError,
  InsufficientCreditsError,
  InsufficientScopeError,
  InternalError,
  InvalidApiKeyError,
  InvalidRequestError,
  type KeyScheme,
  LookupTimeoutError,
  MethodNotAllowedError,
  NotAcceptableError,
  RateLimitExceededError,
  ResourceNotFoundError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  UpstreamError,
} from '../errors.js';
import { errorResponse } from '../pipeline/public-response.js';
import { validateInput } from '../pipeline/validate-input.js';

/** A request id of the shape the service mints (`newRequestId`). */
export const EXAMPLE_REQUEST_ID = 'req_q7Zk2mW9xT4vLp8nRf3sHd1c';

export interface SuccessBody {
  data: unknown;
  meta: RunMeta & { creditCost: number };
}

const recordedAnswers: ReadonlyMap<string, SuccessBody> = new Map(
  Object.entries(recordedExamples as Record<string, SuccessBody>),
);

/**
 * The v1 answer to the operation's example input, charged at `price` (the recorded answers were
 * charged the catalog's price; a refunded answer stays free). None for an operation of no catalog.
 */
export function successExample(definition: OperationDefinition, price: number): SuccessBody | undefined {
  const example = definition.responseExample ?? recordedAnswers.get(definition.id);
  if (!example) return undefined;
  const { creditCost } = example.meta;
  return { data: example.data, meta: { ...example.meta, creditCost: creditCost === 0 ? 0 : price } };
}

/** Named examples of one media type, as OpenAPI's `examples` holds them. */
export type NamedExamples = Record<string, { summary: string; value: unknown }>;

export interface ErrorExampleContext {
  definition: OperationDefinition;
  variant: OperationVariant;
  price: number;
  /** Where the path takes its key: v1's Authorization header, or v2's X-API-Key. */
  scheme: KeyScheme;
  /** A parameter the path names otherwise (a v2 path parameter standing for an identifier). */
  renamed?: { parameter: string; as: string };
}

/** The examples of one error status of an operation: one per code it can answer with that status. */
export function errorExamples(status: number, context: ErrorExampleContext): NamedExamples {
  const examples: NamedExamples = {};
  for (const code of errorCodes) {
    if (errorTable[code].status !== status) continue;
    const error = exampleError(code, context);
    if (!error) continue;
    examples[code] = { summary: error.message, value: errorResponse(error, EXAMPLE_REQUEST_ID).body };
  }
  return examples;
}

/** The error the service raises for `code` on this operation; none where it never does. */
function exampleError(code: ErrorCode, context: ErrorExampleContext): ApiError | undefined {
  const { definition, price, scheme } = context;
  const needs: readonly string[] = definition.runtime.needs;
  switch (code) {
    case 'invalid_request':
      return invalidRequest(context);
    case 'cursor_expired':
      return definition.paging === 'cursor' ? new CursorExpiredError() : undefined;
    case 'invalid_api_key':
      return new InvalidApiKeyError(true, scheme);
    case 'insufficient_credits':
      return new InsufficientCreditsError(price, Math.max(price - 1, 0));
    case 'insufficient_scope':
      return new InsufficientScopeError('The account is suspended; resolve the account first.');
    case 'resource_not_found':
      return new ResourceNotFoundError(
        needs.includes('browser') ? 'The page answered 404: it does not exist.' : undefined,
      );
    case 'method_not_allowed':
      return new MethodNotAllowedError('POST');
    case 'not_acceptable':
      return new NotAcceptableError();
    case 'unsupported_media_type':
      return new UnsupportedMediaTypeError('GET requests take no body; send parameters in the query string.');
    // Batches (issue 28) answer these; no lookup path does.
    case 'idempotency_conflict':
    case 'batch_finished':
    case 'payload_too_large':
      return undefined;
    case 'email_unverifiable':
      return new EmailUnverifiableError('yahoo.com');
    case 'rate_limit_exceeded':
      return new RateLimitExceededError(12);
    case 'internal_error':
      return new InternalError();
    case 'upstream_error':
      return new UpstreamError(
        needs.includes('smtp')
          ? 'No mail server of example.com completed a dialogue; no credits were used.'
          : needs.includes('browser')
            ? 'The page answered HTTP 500.'
            : 'The data source failed (HTTP 500); no credits were used.',
      );
    case 'service_unavailable':
      return new ServiceUnavailableError('Billing is temporarily unavailable; no credits were used.');
    case 'capacity_exceeded':
      return needs.includes('smtp')
        ? new CapacityExceededError('The mail server mx1.example.com is at our concurrency limit.')
        : undefined;
    case 'upstream_timeout':
      return new LookupTimeoutError();
  }
}

/** Values no parameter of the catalog accepts all of: a malformed one, and one far too long. */
const BAD_VALUES = ['not valid!', 'x'.repeat(3_000)];

/**
 * What the validator says when one of the path's own parameters is bad, in the path's example
 * input; an unknown parameter where the path takes none.
 */
function invalidRequest({ definition, variant, renamed }: ErrorExampleContext): InvalidRequestError {
  const examples = exampleInput(definition, variant);
  const attempts = [
    ...pathParameters(definition, variant).flatMap(({ name }) =>
      BAD_VALUES.map((bad) => new Map([...examples, [name, bad]])),
    ),
    new Map([...examples, ['limit', '10']]),
  ];
  for (const attempt of attempts) {
    try {
      validateInput(
        definition,
        { kind: 'query', query: new URLSearchParams([...attempt]).toString() },
        variant,
      );
    } catch (error) {
      if (error instanceof InvalidRequestError && error.details.length === 1) {
        if (!renamed) return error;
        return new InvalidRequestError(
          error.details.map((detail) =>
            detail.field === renamed.parameter ? { ...detail, field: renamed.as } : detail,
          ),
        );
      }
    }
  }
  throw new Error(`No invalid_request example for ${definition.id}.`);
}
