/**
 * The batch resource over HTTP (issue 28), beside the GET-only lookups:
 *
 *   POST /v1/batches?operation=…[&invalidItems=reject|mark][&webhookUrl=…][&itemsUrl=…]
 *                                                       body: the items (unless itemsUrl names them)
 *   GET  /v1/batches[?limit=…&cursor=…]                                       the account's batches
 *   GET  /v1/batches/{id}                                                     state, counts, credits
 *   GET  /v1/batches/{id}/results[?start=…&limit=…]                           JSONL, CSV or paged JSON
 *   GET  /v1/batches/{id}/deliveries                                          webhook attempts
 *   POST /v1/batches/{id}/cancel
 *
 * Same key (bearer), same error bodies and request ids as the lookups. The calls themselves are free
 * and count in the account reads' window (ACCOUNT_RATE_LIMIT); each item is billed when it runs.
 */
import type { Context } from 'hono';
import Negotiator from 'negotiator';
import type { ErrorDetail } from '../../schemas/errors.js';
import type { Principal } from '../auth/authenticator.js';
import type { Config } from '../config.js';
import {
  type ApiError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotAcceptableError,
  RateLimitExceededError,
  toApiError,
} from '../errors.js';
import type { RestEnv } from '../http/api-binding.js';
import { toHttpResponse } from '../http/render.js';
import { baseHeaders, errorResponse, quoteInput } from '../pipeline/public-response.js';
import type { Service } from '../service.js';
import { type ResultsFormat, resultLine, streamResults } from './batch-results.js';
import type { BatchService } from './batch-service.js';
import type { BatchRecord } from './batch-store.js';
import { readUploadedItems, type UploadLimits } from './batch-upload.js';

export interface BatchRoutesOptions {
  batches: BatchService;
  /**
   * Called after a batch is created (not on a replay), so the workers start on it at once; awaited
   * before the answer (on AWS it enqueues the items: a function is frozen once it has answered).
   * It must not throw: the batch exists whatever happens to its start.
   */
  onCreated?: (batch: BatchRecord) => void | Promise<void>;
  /**
   * The webhook URL as it will be called; refuses one the egress guard would not call (an
   * InvalidRequestError on `webhookUrl`).
   */
  checkWebhookUrl: (url: string) => Promise<string>;
  /** The items at an `itemsUrl`, fetched through the egress guard (batch-upload.ts `fetchItems`). */
  fetchItems: (url: string, limits: UploadLimits) => Promise<Record<string, unknown>[]>;
}

const BATCH_ID = /^bat_[A-Za-z0-9]{20}$/;
const LIST_LIMIT = { default: 20, max: 100 };
const RESULTS_LIMIT = { default: 100, max: 1_000 };
/** What GET …/results can answer, in the order preferred when the client accepts several. */
const RESULT_TYPES = ['application/jsonl', 'application/x-ndjson', 'text/csv', 'application/json'] as const;

export function mountBatchRoutes(service: Service, options: BatchRoutesOptions): void {
  const { app } = service;
  const { batches } = options;
  const config = service.config;

  const handle =
    (allow: readonly string[], work: (c: Context<RestEnv>, principal: Principal) => Promise<Response>) =>
    async (c: Context<RestEnv>) => {
      const requestId = c.get('requestId');
      try {
        if (!allow.includes(c.req.method))
          throw new MethodNotAllowedError(quoteInput(c.req.method, 16), allow);
        const principal = await service.authenticator.authenticateBearer(c.req.header('authorization'));
        await admitAccountCall(service, config, principal);
        c.set('lookup', { operation: 'batches', accountId: principal.account.accountId, creditCost: 0 });
        return await work(c, principal);
      } catch (error) {
        const apiError = toApiError(error);
        if (apiError.status >= 500)
          service.logger.error({ err: apiError.cause ?? apiError, requestId }, apiError.message);
        return toHttpResponse(errorResponse(apiError, requestId));
      }
    };

  app.all(
    '/v1/batches',
    handle(['GET', 'POST'], async (c, principal) => {
      const query = readQuery(
        c.req.url,
        c.req.method === 'POST'
          ? ['operation', 'invalidItems', 'webhookUrl', 'itemsUrl']
          : ['limit', 'cursor'],
      );
      if (c.req.method === 'GET') {
        const limit = readCount(query, 'limit', LIST_LIMIT);
        const cursor = query.get('cursor');
        if (cursor !== undefined && !BATCH_ID.test(cursor))
          throw InvalidRequestError.single(
            'cursor',
            'invalid_format',
            'The cursor is the nextCursor of the previous page.',
          );
        const page = await batches.list(principal, limit + 1, cursor);
        const shown = page.slice(0, limit);
        const nextCursor = page.length > limit ? (shown.at(-1) as BatchRecord).batchId : null;
        return json(c, 200, {
          data: shown.map((batch) => batches.view(batch)),
          meta: { requestId: c.get('requestId'), nextCursor },
        });
      }
      const operationId = query.get('operation');
      if (operationId === undefined)
        throw InvalidRequestError.single(
          'operation',
          'invalid_value',
          'Name the operation every item runs, e.g. operation=profiles.details.',
        );
      const invalidItems = readChoice(query, 'invalidItems', ['reject', 'mark'] as const, 'reject');
      const sentWebhookUrl = query.get('webhookUrl');
      const webhookUrl =
        sentWebhookUrl === undefined ? undefined : await options.checkWebhookUrl(sentWebhookUrl);
      const limits = { maxItems: config.BATCH_MAX_ITEMS, maxBytes: config.BATCH_MAX_BYTES };
      const itemsUrl = query.get('itemsUrl');
      const { items, body } =
        itemsUrl === undefined
          ? await readUploadedItems(c.req.raw, limits)
          : { items: await options.fetchItems(withoutBody(c.req.raw, itemsUrl), limits), body: '' };
      const idempotencyKey = c.req.header('idempotency-key');
      const { batch, replayed } = await batches.create(
        {
          principal,
          operationId,
          items,
          invalidItems,
          ...(webhookUrl === undefined ? {} : { webhookUrl }),
          ...(idempotencyKey === undefined
            ? {}
            : { idempotency: { key: idempotencyKey, body: `${c.req.url}\n${body}` } }),
          requestId: c.get('requestId'),
        },
        service.authenticator,
      );
      if (!replayed) await options.onCreated?.(batch);
      return json(
        c,
        replayed ? 200 : 201,
        { data: batches.view(batch), meta: { requestId: c.get('requestId') } },
        {
          Location: `/v1/batches/${batch.batchId}`,
          ...(replayed ? { 'Idempotency-Replayed': 'true' } : {}),
        },
      );
    }),
  );

  app.all(
    '/v1/batches/:id',
    handle(['GET'], async (c, principal) => {
      readQuery(c.req.url, []);
      const batch = await batches.get(principal, batchIdOf(c));
      return json(c, 200, { data: batches.view(batch), meta: { requestId: c.get('requestId') } });
    }),
  );

  app.all(
    '/v1/batches/:id/deliveries',
    handle(['GET'], async (c, principal) => {
      readQuery(c.req.url, []);
      const batch = await batches.get(principal, batchIdOf(c));
      const deliveries = await batches.deliveries(batch);
      return json(c, 200, {
        data: deliveries.map(({ deliveryId, type, state, attempts, nextAttemptAt, createdAt }) => ({
          id: deliveryId,
          type,
          state,
          attempts,
          nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(),
          createdAt,
        })),
        meta: { requestId: c.get('requestId') },
      });
    }),
  );

  app.all(
    '/v1/batches/:id/cancel',
    handle(['POST'], async (c, principal) => {
      readQuery(c.req.url, []);
      const batch = await batches.cancel(principal, batchIdOf(c));
      return json(c, 200, { data: batches.view(batch), meta: { requestId: c.get('requestId') } });
    }),
  );

  app.all(
    '/v1/batches/:id/results',
    handle(['GET'], async (c, principal) => {
      const format = resultsFormat(c.req.header('accept'));
      const query = readQuery(c.req.url, format === 'json' ? ['start', 'limit'] : []);
      const batch = await batches.get(principal, batchIdOf(c));
      const parameters = Object.keys(
        service.operations.find((operation) => operation.definition.id === batch.operation)?.definition.query
          .shape ?? {},
      );
      if (format === 'json') {
        const start = readCount(query, 'start', { default: 0, max: Number.MAX_SAFE_INTEGER }, 0);
        const limit = readCount(query, 'limit', RESULTS_LIMIT);
        const items = await batches.items(batch, start, limit);
        const end = start + items.length;
        return json(c, 200, {
          data: items.map(resultLine),
          meta: { requestId: c.get('requestId'), start, nextStart: end < batch.itemCount ? end : null },
        });
      }
      const stream = streamResults(batch, parameters, format, (from, limit) =>
        batches.items(batch, from, limit),
      );
      return new Response(stream, {
        status: 200,
        headers: {
          'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8',
          'Content-Disposition': `attachment; filename="${batch.batchId}.${format}"`,
          'X-Request-Id': c.get('requestId'),
          'Cache-Control': 'no-store',
        },
      });
    }),
  );
}

/** Batch calls are account calls: free, counted in the account reads' window. */
export async function admitAccountCall(
  service: Service,
  config: Config,
  principal: Principal,
): Promise<void> {
  const rate = await service.repositories.ledger.admitAccountRead({
    accountId: principal.account.accountId,
    rateLimit: { limit: config.ACCOUNT_RATE_LIMIT, windowSeconds: 60 },
    keyUse: principal.keyUse,
  });
  if (!rate.allowed) throw new RateLimitExceededError(rate.retryAfterSeconds ?? 1);
}

function json(
  c: Context<RestEnv>,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...baseHeaders(c.get('requestId')), 'Cache-Control': 'no-store', ...headers },
  });
}

function batchIdOf(c: Context<RestEnv>): string {
  const id = c.req.param('id') ?? '';
  if (!BATCH_ID.test(id))
    throw InvalidRequestError.single(
      'id',
      'invalid_format',
      `${quoteInput(id, 40)} is not a batch id (bat_ and 20 letters or digits).`,
    );
  return id;
}

/** The query's parameters by name (a Map: names come from the request); unknown and repeated ones refused. */
function readQuery(url: string, known: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  const details: ErrorDetail[] = [];
  for (const [name, value] of new URL(url).searchParams) {
    const field = quoteInput(name, 60).slice(1, -1) || '(empty)';
    if (!known.includes(name))
      details.push({
        field,
        code: 'unknown_parameter',
        message: known.length
          ? `Unknown parameter; this path takes ${known.join(', ')}.`
          : 'This path takes no parameters.',
      });
    else if (values.has(name))
      details.push({ field, code: 'repeated_parameter', message: 'Send this parameter once.' });
    else values.set(name, value);
  }
  if (details.length > 0) throw new InvalidRequestError(details);
  return values;
}

function readCount(
  query: Map<string, string>,
  name: string,
  bounds: { default: number; max: number },
  min = 1,
): number {
  const text = query.get(name);
  if (text === undefined) return bounds.default;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= bounds.max))
    throw InvalidRequestError.single(
      name,
      'invalid_value',
      `${name} is a whole number from ${min} to ${bounds.max}.`,
    );
  return value;
}

function readChoice<const T extends string>(
  query: Map<string, string>,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const value = query.get(name);
  if (value === undefined) return fallback;
  const choice = choices.find((candidate) => candidate === value);
  if (!choice)
    throw InvalidRequestError.single(name, 'invalid_value', `${name} is one of ${choices.join(', ')}.`);
  return choice;
}

/** The items come from `itemsUrl` or from the body, never both. */
function withoutBody(request: Request, itemsUrl: string): string {
  const length = request.headers.get('content-length');
  if (request.headers.has('transfer-encoding') || (length !== null && length.trim() !== '0'))
    throw InvalidRequestError.single(
      'itemsUrl',
      'invalid_value',
      'Send the items in the body or name them with itemsUrl, not both.',
    );
  return itemsUrl;
}

/** JSONL unless the client asks for CSV or paged JSON; 406 when it accepts none of them. */
function resultsFormat(accept: string | undefined): ResultsFormat | 'json' {
  if (accept === undefined || accept.trim() === '') return 'jsonl';
  const chosen = new Negotiator({ headers: { accept } }).mediaType([...RESULT_TYPES]);
  if (chosen === undefined) throw resultsNotAcceptable();
  return chosen === 'text/csv' ? 'csv' : chosen === 'application/json' ? 'json' : 'jsonl';
}

function resultsNotAcceptable(): ApiError {
  return new NotAcceptableError(
    'The Accept header excludes every form of results; ask for application/jsonl, text/csv or application/json.',
  );
}
