/**
 * Bulk lookups as the customer sees them (issue 28): create a batch of one operation's items, read
 * its state, its results, cancel it, list the account's batches. Every item is checked up front with
 * the operation's own rules (the same `accept` a single call passes), so a batch never runs an item
 * a single call would refuse; the running itself is the worker's (batch-worker.ts), billed item by
 * item through the pipeline. Transports (batch-routes.ts, the MCP batches toolset) authenticate the
 * caller and render what this module returns.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { ErrorDetail } from '../../schemas/errors.js';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import type { Clock } from '../clock.js';
import {
  type ApiError,
  BatchFinishedError,
  IdempotencyConflictError,
  InsufficientScopeError,
  InvalidRequestError,
  ResourceNotFoundError,
} from '../errors.js';
import { variantFor } from '../mcp/tool-catalog.js';
import { connectionCallerId } from '../oauth/oauth-store.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { errorResponse } from '../pipeline/public-response.js';
import type {
  BatchItem,
  BatchRecord,
  BatchStore,
  ItemResult,
  NewItem,
  WebhookDelivery,
  WebhookEventType,
} from './batch-store.js';
import { FINISHED_STATES } from './batch-store.js';
import { newWebhookSecret } from './webhooks.js';

/** How long a create's `Idempotency-Key` is remembered. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What to do with items the operation's rules refuse: refuse the batch, or run the others. */
export type InvalidItemsPolicy = 'reject' | 'mark';

export interface CreateBatchRequest {
  principal: Principal;
  operationId: string;
  items: readonly Record<string, unknown>[];
  invalidItems: InvalidItemsPolicy;
  webhookUrl?: string;
  /** The `Idempotency-Key` header, and the body it came with (whose digest a retry must match). */
  idempotency?: { key: string; body: string };
  requestId: string;
}

/** The batch as the API shows it. */
export interface BatchView {
  id: string;
  operation: string;
  state: BatchRecord['state'];
  pauseReason: BatchRecord['pauseReason'];
  items: {
    total: number;
    succeeded: number;
    failed: number;
    invalid: number;
    /** Not finished yet (never run, running, or handed back to run again). */
    pending: number;
  };
  credits: { charged: number; refunded: number };
  /** Where events are sent, and the secret their signatures are made with (docs/webhooks.md). */
  webhook: { url: string; secret: string } | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** While it runs: when it should finish at the pace so far; null before the first item or once finished. */
  estimatedCompletionAt: string | null;
}

export class BatchService {
  private readonly byId: ReadonlyMap<string, RegisteredOperation>;

  constructor(
    private readonly store: BatchStore,
    operations: readonly RegisteredOperation[],
    private readonly clock: Clock,
    /** Tells the batch's webhook of a state it moved to (webhooks.ts); never throws. */
    private readonly announce?: (batch: BatchRecord, event: WebhookEventType) => Promise<void>,
  ) {
    // Account reads answer about the caller and cost nothing: there is nothing to batch.
    this.byId = new Map(
      operations
        .filter((operation) => operation.definition.metering !== 'account')
        .map((operation) => [operation.definition.id, operation]),
    );
  }

  /** The operations a batch may run, for the refusal that names them. */
  operationIds(): string[] {
    return [...this.byId.keys()];
  }

  async create(
    request: CreateBatchRequest,
    authenticator: Authenticator,
  ): Promise<{ batch: BatchRecord; replayed: boolean }> {
    const operation = this.byId.get(request.operationId);
    if (!operation)
      throw InvalidRequestError.single(
        'operation',
        'invalid_value',
        `No batchable operation ${JSON.stringify(request.operationId).slice(0, 80)}; use an operation id such as profiles.details (GET /openapi.json lists them).`,
      );
    authenticator.authorize(request.principal, operation.definition);
    this.refuseOversizedAnswers(operation);
    if (request.idempotency && !IDEMPOTENCY_KEY_PATTERN.test(request.idempotency.key))
      throw InvalidRequestError.single(
        'Idempotency-Key',
        'invalid_format',
        'The Idempotency-Key header is 1 to 255 printable ASCII characters without spaces.',
      );

    // One at a time: a batch may hold a million items, and each check may wait (for what it loads).
    const items: NewItem[] = [];
    for (const input of request.items) items.push(await this.checkItem(operation, input, request.requestId));
    if (request.invalidItems === 'reject') refuseInvalid(items);

    const now = this.clock.now();
    const at = new Date(now).toISOString();
    const { principal } = request;
    const batch: BatchRecord = {
      batchId: `bat_${randomBytes(15).toString('base64url').replace(/[-_]/g, '0').slice(0, 20)}`,
      accountId: principal.account.accountId,
      holderId: holderOf(principal),
      operation: operation.definition.id,
      state: 'queued',
      pauseReason: null,
      itemCount: items.length,
      nextIndex: 0,
      counts: { succeeded: 0, failed: 0, invalid: 0 },
      creditsCharged: 0,
      creditsRefunded: 0,
      webhookUrl: request.webhookUrl ?? null,
      webhookSecret: request.webhookUrl === undefined ? null : newWebhookSecret(),
      createdAt: at,
      updatedAt: at,
      finishedAt: null,
    };
    const claim = request.idempotency && {
      key: request.idempotency.key,
      requestHash: createHash('sha256').update(request.idempotency.body).digest('base64url'),
      expiresAt: now + IDEMPOTENCY_KEY_TTL_MS,
    };
    const outcome = await this.store.create(batch, items, claim, now);
    if (outcome.kind === 'conflict') throw new IdempotencyConflictError(outcome.batchId);
    return { batch: outcome.batch, replayed: outcome.kind === 'replayed' };
  }

  /**
   * Refuses an operation whose answer may hold a text longer than this store keeps per item (a page's
   * HTML or text on DynamoDB): its items would be charged for results that could not be kept.
   */
  private refuseOversizedAnswers(operation: RegisteredOperation): void {
    const { maxResultBytes } = this.store;
    if (maxResultBytes === null) return;
    // UTF-8 takes up to 3 bytes for a UTF-16 unit, and JSON escapes may take 6.
    if (longestDeclaredText(operation.definition) * 3 <= maxResultBytes) return;
    throw InvalidRequestError.single(
      'operation',
      'invalid_value',
      `${operation.definition.id} answers can be larger than a batch result holds in this deployment (${maxResultBytes} bytes); call it one by one.`,
    );
  }

  /** The caller's batch; 404 for another account's, as for one that does not exist. */
  async get(principal: Principal, batchId: string): Promise<BatchRecord> {
    const batch = await this.store.get(batchId);
    if (!batch || batch.accountId !== principal.account.accountId)
      throw new ResourceNotFoundError(`No batch ${JSON.stringify(batchId).slice(0, 80)} in this account.`);
    return batch;
  }

  list(principal: Principal, limit: number, after?: string): Promise<BatchRecord[]> {
    return this.store.list(principal.account.accountId, limit, after);
  }

  items(batch: BatchRecord, fromIndex: number, limit: number): Promise<BatchItem[]> {
    return this.store.items(batch.batchId, fromIndex, limit);
  }

  /**
   * Stops handing out items; items already running finish and are billed as they end. Cancelling a
   * cancelled batch answers it again; a completed or failed one cannot be.
   */
  async cancel(principal: Principal, batchId: string): Promise<BatchRecord> {
    const batch = await this.get(principal, batchId);
    if (batch.state === 'cancelled') return batch;
    const at = new Date(this.clock.now()).toISOString();
    const moved = await this.store.transition(batchId, ['queued', 'running', 'paused'], 'cancelled', at);
    const after = await this.get(principal, batchId);
    if (!moved && after.state !== 'cancelled') throw new BatchFinishedError(batchId, after.state);
    if (moved) await this.announce?.(after, 'batch.cancelled');
    return after;
  }

  /** Every attempt to deliver the batch's events to its webhook, oldest first. */
  deliveries(batch: BatchRecord): Promise<WebhookDelivery[]> {
    return this.store.deliveries(batch.batchId);
  }

  view(batch: BatchRecord): BatchView {
    const { counts } = batch;
    const done = counts.succeeded + counts.failed + counts.invalid;
    return {
      id: batch.batchId,
      operation: batch.operation,
      state: batch.state,
      pauseReason: batch.pauseReason,
      items: { total: batch.itemCount, ...counts, pending: batch.itemCount - done },
      credits: { charged: batch.creditsCharged, refunded: batch.creditsRefunded },
      webhook:
        batch.webhookUrl === null || batch.webhookSecret === null
          ? null
          : { url: batch.webhookUrl, secret: batch.webhookSecret },
      createdAt: batch.createdAt,
      updatedAt: batch.updatedAt,
      finishedAt: batch.finishedAt,
      estimatedCompletionAt: this.estimate(batch, done - counts.invalid),
    };
  }

  /** At the pace of the items run so far, since the batch was created. */
  private estimate(batch: BatchRecord, ran: number): string | null {
    if (FINISHED_STATES.includes(batch.state) || batch.state === 'paused' || ran === 0) return null;
    const started = Date.parse(batch.createdAt);
    const now = this.clock.now();
    const remaining = batch.itemCount - ran - batch.counts.invalid;
    return new Date(now + ((now - started) / ran) * remaining).toISOString();
  }

  /** The item to store: its input, and the single call's refusal when its input is refused. */
  private async checkItem(
    operation: RegisteredOperation,
    input: Record<string, unknown>,
    requestId: string,
  ): Promise<NewItem> {
    try {
      await operation.accept({ kind: 'arguments', values: input }, variantFor(operation, input));
      return { input };
    } catch (error) {
      if (!(error instanceof InvalidRequestError)) throw error;
      return { input, invalid: refusalOf(error, requestId) };
    }
  }
}

function refusalOf(error: ApiError, requestId: string): ItemResult {
  return {
    status: error.status,
    body: errorResponse(error, requestId).body,
    requestId,
    creditCost: 0,
    creditsRefunded: 0,
  };
}

/** 400 naming the refused items by index (at most 16 details, as every error). */
function refuseInvalid(items: readonly NewItem[]): void {
  const details: ErrorDetail[] = [];
  let invalid = 0;
  items.forEach((item, index) => {
    if (!item.invalid) return;
    invalid += 1;
    const body = item.invalid.body as { error: { details: ErrorDetail[]; message: string } };
    const first = body.error.details[0];
    details.push({
      field: `items[${index}]${first ? `.${first.field}` : ''}`.slice(0, 128),
      code: first?.code ?? 'invalid_value',
      message: (first?.message ?? body.error.message).slice(0, 512),
    });
  });
  if (invalid > 0)
    throw new InvalidRequestError(
      details,
      `${invalid} of ${items.length} items are invalid; see error.details (the first 16), or send invalidItems=mark to run the others.`,
    );
}

/** The longest `maxLength` any text of the operation's answer declares (0: none declares one). */
function longestDeclaredText(definition: RegisteredOperation['definition']): number {
  let longest = 0;
  const visit = (node: unknown): void => {
    // Arrays too: their entries are the items.
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'maxLength' && typeof value === 'number') longest = Math.max(longest, value);
      else visit(value);
    }
  };
  visit(z.toJSONSchema(definition.data, { unrepresentable: 'any', io: 'output' }));
  return longest;
}

/** Who holds the batch: its key, or the OAuth connection (`cnx_…`); caps and revocation follow it. */
function holderOf(principal: Principal): string {
  if (principal.key) return principal.key.keyId;
  if (principal.connection) return connectionCallerId(principal.connection.connectionId);
  // An outside issuer's token is checked only when presented: nothing could re-check it per item.
  throw new InsufficientScopeError(
    "Batches run on an API key or a connection of this service's own authorization server; this token is neither.",
  );
}
