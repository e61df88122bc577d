/**
 * The batch resource (issue 28) in the OpenAPI document: its paths, the bodies they take and
 * answer, and every error each can answer, as shared/batches/batch-routes.ts serves them. The
 * schemas here describe the routes' answers (BatchService.view, resultLine, the deliveries list);
 * test/api/openapi-document.test.ts holds real answers against them. The examples are the
 * service's own: errors from its error classes through its one renderer, items from the catalog's
 * example input.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { exampleInput, type OperationDefinition } from '../../schemas/operation-definition.js';
import { batchStates, deliveryStates, type PauseReason, webhookEventTypes } from '../batches/batch-store.js';
import {
  type ApiError,
  BatchFinishedError,
  IdempotencyConflictError,
  InsufficientScopeError,
  InternalError,
  InvalidApiKeyError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotAcceptableError,
  PayloadTooLargeError,
  RateLimitExceededError,
  ResourceNotFoundError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { errorResponse } from '../pipeline/public-response.js';
import { errorResponseOf } from './openapi.js';
import { EXAMPLE_REQUEST_ID, type NamedExamples } from './response-examples.js';
import { v1Api } from './v1-api.js';

const EXAMPLE_BATCH_ID = 'bat_7kQm2Zx9Lp4Rt8Vw3Nc6';
const batchId = z
  .string()
  .regex(/^bat_[A-Za-z0-9]{20}$/)
  .meta({ description: '`bat_` and 20 letters or digits.', example: EXAMPLE_BATCH_ID });
const timestamp = z.iso.datetime();
const requestMeta = z.object({ requestId: z.string() });

export const batchSchema = z
  .object({
    id: batchId,
    operation: z.string().meta({ description: 'The catalog operation every item runs.' }),
    state: z.enum(batchStates),
    pauseReason: z
      .enum(['insufficient_credits', 'spend_cap'] satisfies PauseReason[])
      .nullable()
      .meta({ description: 'Why a paused batch waits; null unless paused. It resumes by itself.' }),
    items: z.object({
      total: z.int().nonnegative(),
      succeeded: z.int().nonnegative().meta({ description: 'Ran and answered 2xx.' }),
      failed: z.int().nonnegative().meta({ description: 'Ran and answered an error.' }),
      invalid: z
        .int()
        .nonnegative()
        .meta({ description: "Refused at creation by the operation's input rules (invalidItems=mark)." }),
      pending: z.int().nonnegative().meta({ description: 'Not finished yet.' }),
    }),
    credits: z.object({
      charged: z.int().nonnegative().meta({ description: 'What the finished items cost, refunds deducted.' }),
      refunded: z.int().nonnegative().meta({ description: 'Credits debited for items and given back.' }),
    }),
    webhook: z
      .object({
        url: z.string(),
        secret: z.string().meta({ description: 'Signs the events (Standard Webhooks); docs/webhooks.md.' }),
      })
      .nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    finishedAt: timestamp.nullable(),
    estimatedCompletionAt: timestamp
      .nullable()
      .meta({ description: 'At the pace so far; null before the first item, while paused, once finished.' }),
  })
  .meta({ id: 'Batch' });

export const batchEnvelopeSchema = z.object({ data: batchSchema, meta: requestMeta });
export const batchListSchema = z.object({
  data: z.array(batchSchema),
  meta: requestMeta.extend({
    nextCursor: batchId.nullable().meta({ description: 'The cursor of the next page; null on the last.' }),
  }),
});

export const batchResultLineSchema = z
  .object({
    index: z.int().nonnegative().meta({ description: '0-based position in the list sent.' }),
    input: z.record(z.string(), z.unknown()),
    outcome: z.enum(['succeeded', 'failed', 'invalid', 'pending']),
    status: z.int().nullable().meta({ description: "The single call's HTTP status; null while pending." }),
    body: z
      .unknown()
      .meta({ description: "The single call's body (success envelope or error body); null while pending." }),
  })
  .meta({ id: 'BatchResultLine' });
export const batchResultsPageSchema = z.object({
  data: z.array(batchResultLineSchema),
  meta: requestMeta.extend({
    start: z.int().nonnegative(),
    nextStart: z
      .int()
      .nonnegative()
      .nullable()
      .meta({ description: 'Where the next page starts; null at the end.' }),
  }),
});

export const webhookDeliverySchema = z
  .object({
    id: z.string().meta({ description: 'The webhook-id header, the same on every attempt.' }),
    type: z.enum(webhookEventTypes),
    state: z.enum(deliveryStates),
    attempts: z.array(
      z.object({
        at: timestamp,
        status: z.int().nullable().meta({ description: "The receiver's status; null when none came." }),
        error: z.string().nullable(),
        durationMs: z.number().nonnegative(),
      }),
    ),
    nextAttemptAt: timestamp.nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });
export const webhookDeliveriesSchema = z.object({ data: z.array(webhookDeliverySchema), meta: requestMeta });

/** A batch as GET /v1/batches/{id} shows it while it runs, for the examples. */
const exampleBatch = (operation: string): z.infer<typeof batchSchema> => ({
  id: EXAMPLE_BATCH_ID,
  operation,
  state: 'running',
  pauseReason: null,
  items: { total: 1000, succeeded: 412, failed: 31, invalid: 2, pending: 555 },
  credits: { charged: 824, refunded: 62 },
  webhook: null,
  createdAt: '2026-11-26T09:00:00.000Z',
  updatedAt: '2026-11-26T09:00:41.512Z',
  finishedAt: null,
  estimatedCompletionAt: '2026-11-26T09:01:32.104Z',
});

const successHeaders = {
  'X-Request-Id': { description: 'Request id; equals meta.requestId.', schema: { type: 'string' as const } },
};

/** The error answers of a path, by status, each status with the codes the path answers with it. */
function errors(registry: OpenAPIRegistry, answered: readonly ApiError[]) {
  const byStatus = new Map<number, NamedExamples>();
  for (const error of answered) {
    const examples = byStatus.get(error.status) ?? {};
    examples[error.code] = { summary: error.message, value: errorResponse(error, EXAMPLE_REQUEST_ID).body };
    byStatus.set(error.status, examples);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, examples]) => [String(status), errorResponseOf(registry, status, examples)]),
  );
}

/** What every batch call can answer: a refused key, a suspended account, the reads' window, a failure. */
const everyCall = (allow: readonly string[]) => [
  new InvalidApiKeyError(true, 'bearer'),
  new InsufficientScopeError('The account is suspended; resolve the account first.'),
  new MethodNotAllowedError('PUT', allow),
  new RateLimitExceededError(12),
  new InternalError(),
];
const unknownBatch = () => new ResourceNotFoundError(`No batch "${EXAMPLE_BATCH_ID}" in this account.`);
const badId = () =>
  InvalidRequestError.single(
    'id',
    'invalid_format',
    '"bat_1" is not a batch id (bat_ and 20 letters or digits).',
  );
const pathId = { params: z.object({ id: batchId }) };

const FREE =
  'Free: batch calls cost no credits and count in the account reads\u2019 window (ACCOUNT_RATE_LIMIT). ' +
  'Each item is billed when it runs, as its single call.';

/**
 * Registers the batch paths on the document. `operations`: the catalog, for the example items (of
 * profiles.details, or the first operation a batch can run).
 */
export function documentBatchPaths(
  registry: OpenAPIRegistry,
  operations: readonly OperationDefinition[],
): void {
  const batchable = operations.filter((operation) => operation.metering !== 'account');
  const sample = batchable.find((operation) => operation.id === 'profiles.details') ?? batchable[0];
  const variant = sample?.variants[0];
  if (!sample || !variant) return;
  const item = Object.fromEntries(exampleInput(sample, variant));
  const security = [{ [v1Api.docs.securityScheme.name]: [] }];
  const tags = ['batches'];
  const one = (description: string) => ({
    description,
    headers: successHeaders,
    content: {
      'application/json': {
        schema: batchEnvelopeSchema,
        example: { data: exampleBatch(sample.id), meta: { requestId: EXAMPLE_REQUEST_ID } },
      },
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/v1/batches',
    operationId: 'batches.create',
    tags,
    security,
    summary: 'Create a batch: one operation run over many items',
    description: [
      "Every item is one call's parameters by their public names, checked up front with the operation's own rules. " +
        'The body is a JSON array of objects (application/json), one object per line (application/jsonl or application/x-ndjson), ' +
        'or CSV (text/csv: a header row of parameter names, an empty cell leaving its parameter out); or, with no body, ' +
        'itemsUrl names such a list for the service to fetch. At most BATCH_MAX_ITEMS items (10,000) and BATCH_MAX_BYTES (10 MB). ' +
        'With an Idempotency-Key, a retry with the same query and body within 24 hours answers the same batch ' +
        '(200, Idempotency-Replayed: true); another request with that key is 409.',
      FREE,
    ].join('\n\n'),
    request: {
      query: z.object({
        operation: z.string().meta({ description: 'The operation every item runs.', example: sample.id }),
        invalidItems: z.enum(['reject', 'mark']).optional().meta({
          description:
            'reject (default): a batch with invalid items is refused, 400 naming them by index. mark: they are recorded as invalid and the others run.',
        }),
        webhookUrl: z.string().optional().meta({
          description: 'Public http(s) URL told of completion, failure, pause and cancel (docs/webhooks.md).',
        }),
        itemsUrl: z.string().optional().meta({
          description:
            'Instead of a body: a public http(s) URL of the items (JSON, JSONL or CSV by its media type or extension), fetched once through the egress guard within 30 s.',
        }),
      }),
      headers: z.object({
        'Idempotency-Key': z
          .string()
          .min(1)
          .max(255)
          .optional()
          .meta({ description: '1 to 255 printable ASCII characters without spaces; remembered 24 hours.' }),
      }),
      body: {
        description: 'The items; none when itemsUrl names them.',
        required: false,
        content: {
          'application/json': {
            schema: z.array(z.record(z.string(), z.unknown())).min(1),
            example: [item, item],
          },
          'application/jsonl': {
            schema: z.string().meta({ description: 'One JSON object per line.' }),
            example: `${JSON.stringify(item)}\n${JSON.stringify(item)}\n`,
          },
          'text/csv': {
            schema: z
              .string()
              .meta({ description: 'A header row of parameter names, then one row per item.' }),
            example: `${Object.keys(item).join(',')}\r\n${Object.values(item).join(',')}\r\n${Object.values(item).join(',')}\r\n`,
          },
        },
      },
    },
    responses: {
      201: {
        ...one('Created; Location names it.'),
        headers: {
          ...successHeaders,
          Location: { description: 'The batch: /v1/batches/{id}.', schema: { type: 'string' } },
        },
      },
      200: {
        ...one('The batch an earlier request with the same Idempotency-Key and body created.'),
        headers: {
          ...successHeaders,
          'Idempotency-Replayed': { description: 'true', schema: { type: 'string' } },
        },
      },
      ...errors(registry, [
        InvalidRequestError.single(
          'operation',
          'invalid_value',
          'Name the operation every item runs, e.g. operation=profiles.details.',
        ),
        ...everyCall(['GET', 'POST']),
        new IdempotencyConflictError(EXAMPLE_BATCH_ID),
        new PayloadTooLargeError(
          'The batch has 12000 items; a batch holds at most 10000. Split it into several batches.',
        ),
        new UnsupportedMediaTypeError(
          'Media type "text/plain" is not supported; send the items as application/json (an array of objects), application/jsonl (one object per line) or text/csv, or name them with itemsUrl.',
        ),
      ]),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/v1/batches',
    operationId: 'batches.list',
    tags,
    security,
    summary: "The account's batches, newest first",
    description: FREE,
    request: {
      query: z.object({
        limit: z
          .int()
          .min(1)
          .max(100)
          .optional()
          .meta({ description: 'Batches per page (default 20).', example: 20 }),
        cursor: batchId.optional().meta({ description: 'The nextCursor of the previous page.' }),
      }),
    },
    responses: {
      200: {
        description: 'A page of batches.',
        headers: successHeaders,
        content: {
          'application/json': {
            schema: batchListSchema,
            example: {
              data: [exampleBatch(sample.id)],
              meta: { requestId: EXAMPLE_REQUEST_ID, nextCursor: null },
            },
          },
        },
      },
      ...errors(registry, [
        InvalidRequestError.single('limit', 'invalid_value', 'limit is a whole number from 1 to 100.'),
        ...everyCall(['GET', 'POST']),
      ]),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/v1/batches/{id}',
    operationId: 'batches.get',
    tags,
    security,
    summary: 'A batch: state, counts per outcome, credits so far',
    description: FREE,
    request: pathId,
    responses: {
      200: one('The batch.'),
      ...errors(registry, [badId(), ...everyCall(['GET']), unknownBatch()]),
    },
  });

  const resultLine = {
    index: 0,
    input: item,
    outcome: 'succeeded',
    status: 200,
    body: {
      data: { '…': 'what the single call answers' },
      meta: { creditCost: sample.price },
    },
  };
  registry.registerPath({
    method: 'get',
    path: '/v1/batches/{id}/results',
    operationId: 'batches.results',
    tags,
    security,
    summary: 'The items and their answers, in index order',
    description: [
      'By Accept: JSON Lines (the default; application/jsonl or application/x-ndjson), CSV (text/csv), or pages of JSON ' +
        '(application/json, with start and limit). JSONL and CSV stream the whole batch; an item not run yet is pending. ' +
        "CSV columns: index, outcome, status, the operation's parameters, error_code, credit_cost, body (JSON text); " +
        "a cell starting with =, +, -, @, tab or carriage return is prefixed with ' so no spreadsheet runs it.",
      FREE,
    ].join('\n\n'),
    request: {
      ...pathId,
      query: z.object({
        start: z
          .int()
          .min(0)
          .optional()
          .meta({ description: 'application/json only: the first index (default 0).', example: 0 }),
        limit: z
          .int()
          .min(1)
          .max(1000)
          .optional()
          .meta({ description: 'application/json only: items per page (default 100).', example: 100 }),
      }),
    },
    responses: {
      200: {
        description: 'The results.',
        headers: successHeaders,
        content: {
          'application/jsonl': {
            schema: z.string().meta({ description: 'One BatchResultLine per line.' }),
            example: `${JSON.stringify(resultLine)}\n`,
          },
          'text/csv': {
            schema: z.string(),
            example: `${['index', 'outcome', 'status', ...Object.keys(sample.query.shape), 'error_code', 'credit_cost', 'body'].join(',')}\r\n`,
          },
          'application/json': {
            schema: batchResultsPageSchema,
            example: { data: [resultLine], meta: { requestId: EXAMPLE_REQUEST_ID, start: 0, nextStart: 1 } },
          },
        },
      },
      ...errors(registry, [
        badId(),
        ...everyCall(['GET']),
        unknownBatch(),
        new NotAcceptableError(
          'The Accept header excludes every form of results; ask for application/jsonl, text/csv or application/json.',
        ),
      ]),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/v1/batches/{id}/deliveries',
    operationId: 'batches.deliveries',
    tags,
    security,
    summary: "Every attempt to deliver the batch's webhook events, oldest first",
    description: FREE,
    request: pathId,
    responses: {
      200: {
        description: 'The deliveries.',
        headers: successHeaders,
        content: { 'application/json': { schema: webhookDeliveriesSchema } },
      },
      ...errors(registry, [badId(), ...everyCall(['GET']), unknownBatch()]),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/v1/batches/{id}/cancel',
    operationId: 'batches.cancel',
    tags,
    security,
    summary: 'Cancel a batch: no more items are handed out',
    description: [
      'Items already running finish and are billed as they end. Cancelling a cancelled batch answers it again; a completed or failed one is 409.',
      FREE,
    ].join('\n\n'),
    request: pathId,
    responses: {
      200: one('The batch, cancelled.'),
      ...errors(registry, [
        badId(),
        ...everyCall(['POST']),
        unknownBatch(),
        new BatchFinishedError(EXAMPLE_BATCH_ID, 'completed'),
      ]),
    },
  });
}
