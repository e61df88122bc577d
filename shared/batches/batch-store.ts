/**
 * Bulk lookups (issue 28): what the store keeps of a batch, as a port of the store
 * (shared/store/store.ts); adapters in shared/store/sqlite and shared/store/dynamodb, one contract
 * suite for both (test/integration/batch-store.test.ts).
 *
 * A batch is one operation run over many items, each billed as the single call would be. Its record
 * holds the state, the counts and the credits so far; each item holds its input and, once run, its
 * result. Workers (the local pool of `npm start`, the SQS consumers on AWS) take items under a
 * lease: an item whose lease runs out before it is finished (its worker crashed) is handed out
 * again, and a completion names the attempt it finishes, so a late worker's result is not recorded
 * over a newer attempt's and no item is counted twice.
 *
 * Every write is a single-record conditional change, so the DynamoDB adapter needs no transactions:
 * items are written before their batch record (a batch is visible only when whole), the claim of
 * fresh items moves the batch's `nextIndex` (one conditional update) before the items are marked,
 * and a completion updates the item (conditioned on its attempt) before the batch's counts.
 */

export const batchStates = ['queued', 'running', 'paused', 'completed', 'cancelled', 'failed'] as const;
export type BatchState = (typeof batchStates)[number];

/** States a batch leaves only by an action (cancel, resume) or never. */
export const FINISHED_STATES: readonly BatchState[] = ['completed', 'cancelled', 'failed'];

/** Why a batch paused: it resumes when the reason is gone (credits granted, the cap's day over). */
export type PauseReason = 'insufficient_credits' | 'spend_cap';

/**
 * What came of the items so far: `succeeded` answered 2xx, `failed` answered an error after they ran,
 * `invalid` were refused at creation by the operation's own input rules (marked, never run).
 */
export interface BatchCounts {
  succeeded: number;
  failed: number;
  invalid: number;
}
export type ItemOutcome = keyof BatchCounts;

export interface BatchRecord {
  /** `bat_` and 20 random characters. */
  batchId: string;
  accountId: string;
  /** The key (`key_…`) or OAuth connection (`cnx_…`) that created it: its caps apply to every item. */
  holderId: string;
  /** The catalog operation every item runs. */
  operation: string;
  state: BatchState;
  /** Set while `paused`; null otherwise. */
  pauseReason: PauseReason | null;
  itemCount: number;
  /** Items at index `nextIndex` and after were never handed out: the next claim starts there. */
  nextIndex: number;
  counts: BatchCounts;
  /** Credits the finished items cost, and credits refunded to them, so far. */
  creditsCharged: number;
  creditsRefunded: number;
  /** Where completion, failure and pause are announced (checked by the egress guard); null: nowhere. */
  webhookUrl: string | null;
  /**
   * The key that signs the batch's webhooks (Standard Webhooks: `whsec_` and base64 of 24 random
   * bytes), one per batch, shown to its customer; null when the batch has no `webhookUrl`.
   */
  webhookSecret: string | null;
  createdAt: string;
  updatedAt: string;
  /** When it reached completed, cancelled or failed. */
  finishedAt: string | null;
}

/** One item's answer, as a single call would have answered it. */
export interface ItemResult {
  /** The public HTTP status. */
  status: number;
  /** The public body (the success envelope or the error body), as JSON. */
  body: unknown;
  requestId: string;
  /** Credits the item finally cost (0 when refunded or free). */
  creditCost: number;
  /** Credits debited for it and given back (0 when nothing was refunded). */
  creditsRefunded: number;
}

export type ItemState = 'pending' | 'running' | 'done';

export interface BatchItem {
  batchId: string;
  /** 0-based position in the list the customer sent. */
  index: number;
  /** The item's parameters, by their public names, as the customer sent them. */
  input: Record<string, unknown>;
  state: ItemState;
  /** How many times the item was handed out; a completion names the attempt it finishes. */
  attempt: number;
  /** While `running`: epoch ms after which the item may be handed out again. */
  leaseUntil: number | null;
  /** Once `done`. */
  outcome: ItemOutcome | null;
  result: ItemResult | null;
}

/** An item handed to a worker: run `input`, then complete `attempt`. */
export interface ClaimedItem {
  index: number;
  input: Record<string, unknown>;
  attempt: number;
}

/** An item as created: to run, or refused up front (`invalid`, with the refusal as its result). */
export interface NewItem {
  input: Record<string, unknown>;
  invalid?: ItemResult;
}

/** What a webhook announces: a batch that finished one way or another, or paused. */
export const webhookEventTypes = [
  'batch.completed',
  'batch.failed',
  'batch.paused',
  'batch.cancelled',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** `pending` until a receiver answers 2xx (`delivered`) or the retry schedule is spent (`failed`). */
export const deliveryStates = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

/** One try at delivering a webhook: the receiver's status, or why there was none. */
export interface DeliveryAttempt {
  /** When the attempt started (ISO). */
  at: string;
  /** The receiver's HTTP status; null when no answer came (refused address, timeout, connection). */
  status: number | null;
  /** Why the attempt failed, when it did: a non-2xx status, a refusal by the egress guard, a timeout. */
  error: string | null;
  durationMs: number;
}

/** One event of a batch to deliver to its `webhookUrl`, with every attempt made so far. */
export interface WebhookDelivery {
  /** `msg_…`: the `webhook-id` header, the same on every attempt, for receivers to drop repeats. */
  deliveryId: string;
  batchId: string;
  accountId: string;
  type: WebhookEventType;
  /** The signed body, as sent on every attempt. */
  payload: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** While pending: epoch ms from which it is due (or its current attempt's lease ends); null after. */
  nextAttemptAt: number | null;
  createdAt: string;
}

/** What an attempt leaves: delivered, failed for good, or pending again from `nextAttemptAt`. */
export type DeliveryOutcome =
  | { state: 'pending'; nextAttemptAt: number }
  | { state: 'delivered' | 'failed'; nextAttemptAt: null };

/** A create's `Idempotency-Key` (kept 24 hours): the same key and body give the same batch. */
export interface IdempotencyClaim {
  key: string;
  /** A digest of the request body: the same key with another body is a conflict. */
  requestHash: string;
  /** Epoch ms from which the key is forgotten. */
  expiresAt: number;
}

export type CreateOutcome =
  | { kind: 'created'; batch: BatchRecord }
  /** The key was used before with the same body: that batch. */
  | { kind: 'replayed'; batch: BatchRecord }
  /** The key was used before with another body. */
  | { kind: 'conflict'; batchId: string };

export interface BatchStore {
  /**
   * The largest item result (its JSON) the store keeps, in bytes; null when it keeps any size. A
   * DynamoDB item is at most 400 KB, so an operation whose answer may be larger cannot be batched
   * there (batch-service.ts refuses it at creation, before anything is charged).
   */
  readonly maxResultBytes: number | null;
  /**
   * Stores the batch (state `queued`, `nextIndex` 0, counts and credits as the invalid items make
   * them) and its items in index order. With `idempotency`, an unexpired use of the same key by the
   * same account answers instead, and nothing is written.
   */
  create(
    batch: BatchRecord,
    items: readonly NewItem[],
    idempotency?: IdempotencyClaim,
    now?: number,
  ): Promise<CreateOutcome>;
  get(batchId: string): Promise<BatchRecord | undefined>;
  /** The account's batches, newest first; `after` is the last batch id of the previous page. */
  list(accountId: string, limit: number, after?: string): Promise<BatchRecord[]>;
  /** Batches not finished (queued, running, paused), for a worker pool starting up. */
  unfinished(): Promise<BatchRecord[]>;
  /**
   * Hands out up to `limit` never-claimed items (from `nextIndex`, skipping invalid ones), each
   * `running` under a lease until `leaseUntil`, and moves `nextIndex` past them. Only while the
   * batch is queued or running; none when it is paused or finished.
   */
  claimNext(batchId: string, limit: number, leaseUntil: number): Promise<ClaimedItem[]>;
  /**
   * Hands out one item by its index (a queue message names it, on AWS): a never-run item (pending),
   * or a running one whose lease ended by `now` with its attempt increased, `running` under a lease
   * until `leaseUntil`. It does not move `nextIndex`; `claimNext` skips the items it took, as it
   * skips every item no longer pending. Undefined when the item is done, leased, invalid, or the
   * batch is not queued or running (or unknown).
   */
  claimItem(
    batchId: string,
    index: number,
    now: number,
    leaseUntil: number,
  ): Promise<ClaimedItem | undefined>;
  /**
   * Hands out again up to `limit` running items whose lease ended by `now` (a crashed worker's, or
   * ones released), each with its attempt increased, under a new lease.
   */
  reclaimExpired(batchId: string, now: number, limit: number, leaseUntil: number): Promise<ClaimedItem[]>;
  /** Keeps a running item's lease longer (a worker waiting out a rate limit); false if not current. */
  extendLease(batchId: string, index: number, attempt: number, leaseUntil: number): Promise<boolean>;
  /** Ends a running item's lease now, so it is handed out again later; false if not current. */
  release(batchId: string, index: number, attempt: number): Promise<boolean>;
  /**
   * Records the result of the item's current attempt and adds it to the batch's counts and credits;
   * false, and nothing changes, when the item is done or `attempt` is not its current one.
   */
  complete(
    batchId: string,
    index: number,
    attempt: number,
    outcome: Exclude<ItemOutcome, 'invalid'>,
    result: ItemResult,
    at: string,
  ): Promise<boolean>;
  /**
   * Moves the batch from one of `from` to `to` (with its pause reason, null unless pausing;
   * `finishedAt` set when `to` is finished); false when its state is not one of `from`.
   */
  transition(
    batchId: string,
    from: readonly BatchState[],
    to: BatchState,
    at: string,
    pauseReason?: PauseReason,
  ): Promise<boolean>;
  /** Items from `fromIndex` on, in index order, at most `limit`. */
  items(batchId: string, fromIndex: number, limit: number): Promise<BatchItem[]>;
  /** Stores a new webhook delivery (pending, no attempts), due from its `nextAttemptAt`. */
  addDelivery(delivery: WebhookDelivery): Promise<void>;
  /** Pending deliveries due by `now` (their `nextAttemptAt` passed), soonest first, at most `limit`. */
  dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Takes a due delivery for one attempt: moves its `nextAttemptAt` to `leaseUntil`, so no other
   * worker sends it meanwhile; false when it is not pending, not due by `now`, or has another number
   * of attempts than `attemptCount` (another worker took or recorded it first).
   */
  leaseDelivery(
    batchId: string,
    deliveryId: string,
    attemptCount: number,
    now: number,
    leaseUntil: number,
  ): Promise<boolean>;
  /**
   * Appends `attempt` as the delivery's attempt number `attemptCount + 1` and sets what follows; false,
   * and nothing changes, when it is not pending or already has another number of attempts.
   */
  recordAttempt(
    batchId: string,
    deliveryId: string,
    attemptCount: number,
    attempt: DeliveryAttempt,
    outcome: DeliveryOutcome,
  ): Promise<boolean>;
  /** The batch's deliveries, oldest first, each with its attempts. */
  deliveries(batchId: string): Promise<WebhookDelivery[]>;
}

/**
 * The batch as `create` stores it, whatever the store: queued, nothing handed out, the invalid items
 * counted and their credits added.
 */
export function createdRecord(batch: BatchRecord, items: readonly NewItem[]): BatchRecord {
  const refused = items.flatMap((item) => (item.invalid ? [item.invalid] : []));
  return {
    ...batch,
    state: 'queued',
    pauseReason: null,
    itemCount: items.length,
    nextIndex: 0,
    counts: { succeeded: 0, failed: 0, invalid: refused.length },
    creditsCharged: refused.reduce((sum, result) => sum + result.creditCost, 0),
    creditsRefunded: refused.reduce((sum, result) => sum + result.creditsRefunded, 0),
    finishedAt: null,
  };
}
