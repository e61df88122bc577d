/**
 * Batches on DynamoDB (batches/batch-store.ts), with single-item conditional writes only.
 *
 * Layout: the record under `BATCH#<id>` / `BATCH`, its items in the same partition under
 * `ITEM#<zero-padded index>` (one query reads them in order), a listing entry per batch under the
 * account (sort key by creation time: a query reads the newest first), a marker per unfinished batch
 * in one partition, and an item per `Idempotency-Key` with the table's TTL.
 *
 * Why a marker rather than a scan for `unfinished()`: a scan reads the whole table (ledger entries
 * grow without bound) and is granted to the reconcile function only; the marker partition holds as
 * many items as there are unfinished batches. It is written before a batch enters an unfinished
 * state and removed after it enters a finished one, so a crash leaves at worst a marker of a
 * finished batch (skipped, by the record's own state), never an unfinished batch without one.
 *
 * Order of writes, so a crash between two of them loses nothing:
 * - create: the idempotency key (naming the new batch id), the items (BatchWriteItem, 25 at a time),
 *   the listing entry and the marker, then the record, written only if absent: the batch is visible
 *   only when whole, and whoever writes the record created it. A key whose batch never appeared
 *   (its create crashed) is taken over once it is older than any create can take.
 * - claimNext: the record's `nextIndex` moves (conditional on the value read and the state), then
 *   each item is marked running (conditional on still pending). An item left pending below
 *   `nextIndex` by a crash between the two is handed out by `reclaimExpired`; when a live claim and a
 *   reclaim race for it, the item's condition lets only one of them have it.
 * - complete: the item (conditional on its attempt, still running), then ADD on the record's counts
 *   and credits. A crash between the two leaves the item's result recorded and its count missing.
 *
 * - webhook deliveries: the marker of the pending delivery (`WEBHOOKS#PENDING`), then the delivery
 *   under the batch's partition. An attempt is appended to the delivery conditional on its number of
 *   attempts, and once the delivery is delivered or failed its marker is removed; a marker left by a
 *   crash is skipped (no delivery yet) or removed by the next read of due deliveries (finished one).
 *   Due deliveries are found by reading every marker: there are as many as deliveries still pending.
 *
 * Inputs and results are kept as JSON text, as SQLite keeps them, so a round trip gives back exactly
 * what was stored whatever its shape (a DynamoDB map nests 32 levels at most).
 */
import * as z from 'zod';
import {
  type BatchItem,
  type BatchRecord,
  type BatchState,
  type BatchStore,
  type ClaimedItem,
  type CreateOutcome,
  createdRecord,
  type DeliveryAttempt,
  type DeliveryOutcome,
  FINISHED_STATES,
  type IdempotencyClaim,
  type ItemOutcome,
  type ItemResult,
  type NewItem,
  type PauseReason,
  type WebhookDelivery,
} from '../../batches/batch-store.js';
import {
  batchItemRecord,
  batchRecord,
  idempotencyKeyRecord,
  webhookDeliveryRecord,
} from '../records/batches.js';
import { parsedJsonText, recordCodec } from '../records/stored-record.js';
import { type ItemKey, itemKeys, itemName, itemTypes, ttlSeconds } from './keys.js';
import { type DynamoTable, isConditionFailure, queryAll, writtenIfCondition } from './table.js';
import { UpdateExpression } from './update-expression.js';

type Item = Record<string, unknown>;

const batchListing = recordCodec('batch listing', () =>
  z.object({ batchId: z.string(), createdAt: z.string() }),
);
const unfinishedMarker = recordCodec('unfinished batch marker', () => z.object({ batchId: z.string() }));
const pendingDeliveryMarker = recordCodec('pending webhook delivery marker', () =>
  z.object({ batchId: z.string(), deliveryId: z.string() }),
);
/** When a create took the key: a key whose batch never appeared is taken over after a while. */
const keyClaim = recordCodec('batch idempotency key (claim)', () => z.object({ claimedAt: z.number() }));
const claimSeen = recordCodec('batch item (claim)', () =>
  z.object({
    index: z.number().int(),
    state: z.enum(['pending', 'running', 'done']),
    attempt: z.number().int(),
    leaseUntil: z.number().nullable().default(null),
  }),
);
type SeenItem = ReturnType<typeof claimSeen.decode>;
/** What a claim needs to see of an item (the keys for an error naming it). */
const SEEN_PROJECTION = 'pk, sk, #index, #state, attempt, leaseUntil';

/** BatchWriteItem's own limit of items per request. */
const WRITE_CHUNK = 25;
/** Chunks of items written at once: a 10,000-item batch in seconds without hogging the table. */
const WRITE_CONCURRENCY = 4;
/** Unprocessed items (the table throttled) are sent again after a growing pause, this many times. */
const UNPROCESSED_RETRIES = 8;
/** A create's key claimed longer ago than this with no batch record: that create crashed. */
const CREATE_ABANDONED_AFTER_MS = 15 * 60_000;
/** How long a create with a key in use waits for the batch of that key's own create to appear. */
const CREATE_WAIT_MS = 10_000;
const CREATE_POLL_MS = 100;

/**
 * A create with the same `Idempotency-Key` and body is still writing its batch after CREATE_WAIT_MS:
 * nothing of this create was written; like any store failure, it is answered 503 and may be retried.
 */
export class BatchCreateInProgressError extends Error {
  constructor(readonly batchId: string) {
    super(`batch ${batchId} of this Idempotency-Key is still being created`);
    this.name = 'BatchCreateInProgressError';
  }
}

export class DynamoBatchStore implements BatchStore {
  /** DynamoDB's 400 KB item, less the rest of the item record (its input, keys and state). */
  readonly maxResultBytes = 300_000;

  constructor(private readonly table: DynamoTable) {}

  async create(
    batch: BatchRecord,
    items: readonly NewItem[],
    idempotency?: IdempotencyClaim,
    now = Date.now(),
  ): Promise<CreateOutcome> {
    let batchId = batch.batchId;
    if (idempotency) {
      const claim = await this.claimKey(batch, idempotency, now);
      if (claim.kind !== 'claimed') return claim;
      batchId = claim.batchId;
    }
    const record = createdRecord({ ...batch, batchId }, items);
    await this.writeItems(batchId, items);
    await Promise.all([
      this.put({
        ...itemKeys.accountBatch(record.accountId, record.createdAt, batchId),
        type: itemTypes.accountBatch,
        batchId,
        createdAt: record.createdAt,
      }),
      this.put({ ...itemKeys.unfinishedBatch(batchId), type: itemTypes.unfinishedBatch, batchId }),
    ]);
    try {
      await this.put(
        { ...itemKeys.batch(batchId), type: itemTypes.batch, ...recordAttributes(record) },
        'attribute_not_exists(pk)',
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another create of the same key and body took over and finished first: its batch.
      return { kind: 'replayed', batch: await this.mustGet(batchId) };
    }
    return { kind: 'created', batch: record };
  }

  async get(batchId: string): Promise<BatchRecord | undefined> {
    const key = itemKeys.batch(batchId);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    return Item && batchRecord.decode(recordFields(Item), itemName(this.table.table, key));
  }

  async list(accountId: string, limit: number, after?: string): Promise<BatchRecord[]> {
    const pk = itemKeys.account(accountId).pk;
    let startKey: Item | undefined;
    if (after !== undefined) {
      const previous = await this.get(after);
      if (previous?.accountId !== accountId) return [];
      startKey = { ...itemKeys.accountBatch(accountId, previous.createdAt, after) };
    }
    const records: BatchRecord[] = [];
    while (records.length < limit) {
      const page = await this.table.client.query({
        TableName: this.table.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': itemKeys.accountBatchPrefix },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit - records.length,
        ExclusiveStartKey: startKey,
      });
      const listed = await Promise.all(
        (page.Items ?? []).map(async (item) => {
          const entry = batchListing.decode(item, itemName(this.table.table, item));
          const record = await this.get(entry.batchId);
          // An entry whose create crashed before the record, or whose batch a later create of the
          // same key finished under another creation time: the record's own entry shows it.
          return record?.accountId === accountId && record.createdAt === entry.createdAt ? record : undefined;
        }),
      );
      records.push(...listed.filter((record) => record !== undefined));
      startKey = page.LastEvaluatedKey;
      if (!startKey) break;
    }
    return records;
  }

  async unfinished(): Promise<BatchRecord[]> {
    const markers = await queryAll(this.table, itemKeys.unfinishedBatchPartition);
    const records = await Promise.all(
      markers.map((item) =>
        this.get(unfinishedMarker.decode(item, itemName(this.table.table, item)).batchId),
      ),
    );
    return records
      .filter(
        (record): record is BatchRecord => record !== undefined && !FINISHED_STATES.includes(record.state),
      )
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.batchId.localeCompare(b.batchId));
  }

  async claimNext(batchId: string, limit: number, leaseUntil: number): Promise<ClaimedItem[]> {
    for (;;) {
      const record = await this.get(batchId);
      if (!record || !CLAIMABLE_STATES.includes(record.state) || limit <= 0) return [];
      if (record.nextIndex >= record.itemCount) return [];
      const { pending, nextIndex } = await this.pendingFrom(batchId, record.nextIndex, limit);
      const moved = new UpdateExpression();
      const state = moved.name('state');
      moved
        .set(`nextIndex = ${moved.value(nextIndex)}`)
        .when(
          `nextIndex = ${moved.value(record.nextIndex)}`,
          `${state} IN (${CLAIMABLE_STATES.map((value) => moved.value(value)).join(', ')})`,
        );
      try {
        await this.table.client.update(moved.input(this.table.table, itemKeys.batch(batchId)));
      } catch (error) {
        // Another claim moved it first, or the batch left the claimable states: read it again.
        if (isConditionFailure(error)) continue;
        throw error;
      }
      const claimed = await Promise.all(
        pending.map((index) => this.handOut(batchId, { index, state: 'pending', attempt: 0 }, leaseUntil)),
      );
      return claimed.filter((item): item is ClaimedItem => item !== undefined);
    }
  }

  async reclaimExpired(
    batchId: string,
    now: number,
    limit: number,
    leaseUntil: number,
  ): Promise<ClaimedItem[]> {
    const record = await this.get(batchId);
    if (!record || record.nextIndex === 0 || limit <= 0) return [];
    const range = itemKeys.batchItemRange(batchId, 0);
    const candidates: SeenItem[] = [];
    let startKey: Item | undefined;
    do {
      // Only items handed out already (below nextIndex) can be running or left pending by a crash.
      const page = await this.table.client.query({
        TableName: this.table.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        FilterExpression: '(#state = :running AND leaseUntil <= :now) OR #state = :pending',
        ProjectionExpression: SEEN_PROJECTION,
        ExpressionAttributeNames: { '#state': 'state', '#index': 'index' },
        ExpressionAttributeValues: {
          ':pk': range.pk,
          ':from': range.from,
          ':to': itemKeys.batchItem(batchId, record.nextIndex - 1).sk,
          ':running': 'running',
          ':pending': 'pending',
          ':now': now,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      });
      for (const item of page.Items ?? [])
        candidates.push(claimSeen.decode(item, itemName(this.table.table, item)));
      startKey = page.LastEvaluatedKey;
    } while (startKey && candidates.length < limit);
    const reclaimed = await Promise.all(
      candidates.slice(0, limit).map((seen) => this.handOut(batchId, seen, leaseUntil, now)),
    );
    return reclaimed.filter((item): item is ClaimedItem => item !== undefined);
  }

  async claimItem(
    batchId: string,
    index: number,
    now: number,
    leaseUntil: number,
  ): Promise<ClaimedItem | undefined> {
    const record = await this.get(batchId);
    if (!record || !CLAIMABLE_STATES.includes(record.state)) return undefined;
    const key = itemKeys.batchItem(batchId, index);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ProjectionExpression: SEEN_PROJECTION,
      ExpressionAttributeNames: { '#state': 'state', '#index': 'index' },
      ConsistentRead: true,
    });
    if (!Item) return undefined;
    const seen = claimSeen.decode(Item, itemName(this.table.table, key));
    // The conditional hand-out settles races with claimNext, reclaims and duplicate messages.
    if (seen.state === 'pending') return this.handOut(batchId, seen, leaseUntil);
    if (seen.state === 'running' && (seen.leaseUntil ?? 0) <= now)
      return this.handOut(batchId, seen, leaseUntil, now);
    return undefined;
  }

  async extendLease(batchId: string, index: number, attempt: number, leaseUntil: number): Promise<boolean> {
    const update = new UpdateExpression();
    update.set(`leaseUntil = ${update.value(leaseUntil)}`);
    return this.updateCurrent(update, batchId, index, attempt);
  }

  async release(batchId: string, index: number, attempt: number): Promise<boolean> {
    const update = new UpdateExpression();
    // Ended at the dawn of time: any reclaim's `now` is past it.
    update.set(`leaseUntil = ${update.value(0)}`);
    return this.updateCurrent(update, batchId, index, attempt);
  }

  async complete(
    batchId: string,
    index: number,
    attempt: number,
    outcome: Exclude<ItemOutcome, 'invalid'>,
    result: ItemResult,
    at: string,
  ): Promise<boolean> {
    const done = new UpdateExpression();
    done.set(
      `${done.name('state')} = ${done.value('done')}`,
      `outcome = ${done.value(outcome)}`,
      `${done.name('result')} = ${done.value(JSON.stringify(result))}`,
      `leaseUntil = ${done.value(null)}`,
    );
    if (!(await this.updateCurrent(done, batchId, index, attempt))) return false;
    const counted = new UpdateExpression();
    counted
      .add(
        `${counted.name(countAttribute[outcome])} ${counted.value(1)}`,
        `creditsCharged ${counted.value(result.creditCost)}`,
        `creditsRefunded ${counted.value(result.creditsRefunded)}`,
      )
      .set(`updatedAt = ${counted.value(at)}`)
      .when('attribute_exists(pk)');
    await this.table.client.update(counted.input(this.table.table, itemKeys.batch(batchId)));
    return true;
  }

  async transition(
    batchId: string,
    from: readonly BatchState[],
    to: BatchState,
    at: string,
    pauseReason?: PauseReason,
  ): Promise<boolean> {
    if (from.length === 0) return false;
    const finished = FINISHED_STATES.includes(to);
    const marker = itemKeys.unfinishedBatch(batchId);
    if (!finished) await this.put({ ...marker, type: itemTypes.unfinishedBatch, batchId });
    const update = new UpdateExpression();
    const state = update.name('state');
    update
      .set(
        `${state} = ${update.value(to)}`,
        `pauseReason = ${update.value(to === 'paused' ? (pauseReason ?? null) : null)}`,
        `updatedAt = ${update.value(at)}`,
        `finishedAt = ${update.value(finished ? at : null)}`,
      )
      .when('attribute_exists(pk)', `${state} IN (${from.map((value) => update.value(value)).join(', ')})`);
    const moved = await writtenIfCondition(
      this.table.client.update(update.input(this.table.table, itemKeys.batch(batchId))),
    );
    if (!moved) return false;
    if (finished) await this.table.client.delete({ TableName: this.table.table, Key: marker });
    return true;
  }

  async items(batchId: string, fromIndex: number, limit: number): Promise<BatchItem[]> {
    const range = itemKeys.batchItemRange(batchId, Math.max(0, fromIndex));
    const items: BatchItem[] = [];
    let startKey: Item | undefined;
    while (items.length < limit) {
      const page = await this.table.client.query({
        TableName: this.table.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
        ConsistentRead: true,
        Limit: limit - items.length,
        ExclusiveStartKey: startKey,
      });
      for (const item of page.Items ?? [])
        items.push(batchItemRecord.decode(itemFields(item), itemName(this.table.table, item)));
      startKey = page.LastEvaluatedKey;
      if (!startKey) break;
    }
    return items;
  }

  async addDelivery(delivery: WebhookDelivery): Promise<void> {
    const { batchId, deliveryId } = delivery;
    await this.put({
      ...itemKeys.pendingWebhookDelivery(batchId, deliveryId),
      type: itemTypes.pendingWebhookDelivery,
      batchId,
      deliveryId,
    });
    await this.put(deliveryAttributes(delivery), 'attribute_not_exists(pk)');
  }

  async dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]> {
    const markers = await queryAll(this.table, itemKeys.pendingWebhookDeliveryPartition);
    const read = await Promise.all(
      markers.map(async (item) => {
        const { batchId, deliveryId } = pendingDeliveryMarker.decode(item, itemName(this.table.table, item));
        const delivery = await this.delivery(batchId, deliveryId);
        // A crash after the delivery finished, before its marker went: the marker goes now.
        if (delivery && delivery.state !== 'pending') await this.dropMarker(batchId, deliveryId);
        return delivery;
      }),
    );
    return read
      .filter(
        (delivery): delivery is WebhookDelivery =>
          delivery?.state === 'pending' && delivery.nextAttemptAt !== null && delivery.nextAttemptAt <= now,
      )
      .sort(
        (a, b) =>
          (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0) ||
          a.createdAt.localeCompare(b.createdAt) ||
          a.deliveryId.localeCompare(b.deliveryId),
      )
      .slice(0, Math.max(0, limit));
  }

  async leaseDelivery(
    batchId: string,
    deliveryId: string,
    attemptCount: number,
    now: number,
    leaseUntil: number,
  ): Promise<boolean> {
    const update = new UpdateExpression();
    update.set(`nextAttemptAt = ${update.value(leaseUntil)}`).when(`nextAttemptAt <= ${update.value(now)}`);
    return this.updatePendingDelivery(update, batchId, deliveryId, attemptCount);
  }

  async recordAttempt(
    batchId: string,
    deliveryId: string,
    attemptCount: number,
    attempt: DeliveryAttempt,
    outcome: DeliveryOutcome,
  ): Promise<boolean> {
    const update = new UpdateExpression();
    update.set(
      `attempts = list_append(attempts, ${update.value([attempt])})`,
      `${update.name('state')} = ${update.value(outcome.state)}`,
      `nextAttemptAt = ${update.value(outcome.nextAttemptAt)}`,
    );
    if (!(await this.updatePendingDelivery(update, batchId, deliveryId, attemptCount))) return false;
    if (outcome.state !== 'pending') await this.dropMarker(batchId, deliveryId);
    return true;
  }

  async deliveries(batchId: string): Promise<WebhookDelivery[]> {
    const items = await queryAll(this.table, itemKeys.batch(batchId).pk, itemKeys.webhookDeliveryPrefix);
    return items
      .map((item) => toDelivery(item, itemName(this.table.table, item)))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.deliveryId.localeCompare(b.deliveryId));
  }

  private async delivery(batchId: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
    const key = itemKeys.webhookDelivery(batchId, deliveryId);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ConsistentRead: true,
    });
    return Item && toDelivery(Item, itemName(this.table.table, key));
  }

  private async dropMarker(batchId: string, deliveryId: string): Promise<void> {
    await this.table.client.delete({
      TableName: this.table.table,
      Key: itemKeys.pendingWebhookDelivery(batchId, deliveryId),
    });
  }

  /** Applies `update` to the delivery while it is pending with `attemptCount` attempts. */
  private async updatePendingDelivery(
    update: UpdateExpression,
    batchId: string,
    deliveryId: string,
    attemptCount: number,
  ): Promise<boolean> {
    update.when(
      'attribute_exists(pk)',
      `${update.name('state')} = ${update.value('pending')}`,
      `size(attempts) = ${update.value(attemptCount)}`,
    );
    return writtenIfCondition(
      this.table.client.update(update.input(this.table.table, itemKeys.webhookDelivery(batchId, deliveryId))),
    );
  }

  /**
   * Takes the key for this create, or says what an earlier use of it answers: the same body gives
   * its batch (once whole), another body a conflict.
   */
  private async claimKey(
    batch: BatchRecord,
    idempotency: IdempotencyClaim,
    now: number,
  ): Promise<CreateOutcome | { kind: 'claimed'; batchId: string }> {
    const key = itemKeys.batchIdempotency(batch.accountId, idempotency.key);
    const entry = {
      ...key,
      type: itemTypes.batchIdempotency,
      accountId: batch.accountId,
      key: idempotency.key,
      batchId: batch.batchId,
      requestHash: idempotency.requestHash,
      claimedAt: now,
      expiresAt: ttlSeconds(idempotency.expiresAt),
      expiresAtMs: idempotency.expiresAt,
    };
    for (;;) {
      try {
        // TTL deletion is lazy: a key still there from its expiry on is free to take.
        await this.put(entry, 'attribute_not_exists(pk) OR expiresAtMs <= :now', { ':now': now });
        return { kind: 'claimed', batchId: batch.batchId };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const { Item } = await this.table.client.get({
        TableName: this.table.table,
        Key: key,
        ConsistentRead: true,
      });
      // Expired or removed since the put: take it again.
      if (!Item) continue;
      const where = itemName(this.table.table, key);
      // The TTL attribute counts seconds: the key's own time is kept to the millisecond beside it.
      const earlier = {
        ...idempotencyKeyRecord.decode({ ...Item, expiresAt: Item.expiresAtMs }, where),
        ...keyClaim.decode(Item, where),
      };
      if (earlier.expiresAt <= now) continue;
      if (earlier.requestHash !== idempotency.requestHash)
        return { kind: 'conflict', batchId: earlier.batchId };
      const existing = await this.get(earlier.batchId);
      if (existing) return { kind: 'replayed', batch: existing };
      if (now - earlier.claimedAt < CREATE_ABANDONED_AFTER_MS) {
        const finished = await this.awaitRecord(earlier.batchId);
        if (finished) return { kind: 'replayed', batch: finished };
        throw new BatchCreateInProgressError(earlier.batchId);
      }
      // The create that took the key crashed before its record: this one creates the batch instead,
      // under the id the key names (its items, if written, are the same items: the body is the same).
      if (await this.takeOver(key, earlier, now)) return { kind: 'claimed', batchId: earlier.batchId };
    }
  }

  /** Moves an abandoned key's claim to this create; false when another create moved it first. */
  private async takeOver(key: ItemKey, earlier: { batchId: string; claimedAt: number }, now: number) {
    const update = new UpdateExpression();
    update
      .set(`claimedAt = ${update.value(now)}`)
      .when(`batchId = ${update.value(earlier.batchId)}`, `claimedAt = ${update.value(earlier.claimedAt)}`);
    return writtenIfCondition(this.table.client.update(update.input(this.table.table, key)));
  }

  /** The batch once its create has written the record, or undefined after CREATE_WAIT_MS. */
  private async awaitRecord(batchId: string): Promise<BatchRecord | undefined> {
    const deadline = Date.now() + CREATE_WAIT_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, CREATE_POLL_MS));
      const record = await this.get(batchId);
      if (record) return record;
    }
    return undefined;
  }

  /** The items, 25 to a request and a few requests at a time, sending unprocessed ones again. */
  private async writeItems(batchId: string, items: readonly NewItem[]): Promise<void> {
    const chunks: Item[][] = [];
    for (let start = 0; start < items.length; start += WRITE_CHUNK)
      chunks.push(
        items
          .slice(start, start + WRITE_CHUNK)
          .map((item, offset) => newItemAttributes(batchId, start + offset, item)),
      );
    let next = 0;
    const writer = async () => {
      while (next < chunks.length) await this.writeChunk(chunks[next++] as Item[]);
    };
    await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, chunks.length) }, writer));
  }

  private async writeChunk(chunk: Item[]): Promise<void> {
    let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let retry = 0; ; retry++) {
      const { UnprocessedItems } = await this.table.client.batchWrite({
        RequestItems: { [this.table.table]: requests },
      });
      const left = UnprocessedItems?.[this.table.table] ?? [];
      if (left.length === 0) return;
      if (retry >= UNPROCESSED_RETRIES)
        throw new Error(
          `${left.length} batch items stayed unprocessed after ${retry} retries (table throttled)`,
        );
      requests = left as typeof requests;
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** retry));
    }
  }

  /** The first `limit` pending items from `from`, and the index after the last item looked at. */
  private async pendingFrom(batchId: string, from: number, limit: number) {
    const range = itemKeys.batchItemRange(batchId, from);
    const pending: number[] = [];
    let nextIndex = from;
    let startKey: Item | undefined;
    do {
      const page = await this.table.client.query({
        TableName: this.table.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ProjectionExpression: SEEN_PROJECTION,
        ExpressionAttributeNames: { '#state': 'state', '#index': 'index' },
        ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        // Invalid items in the way take further pages.
        Limit: limit - pending.length,
      });
      for (const item of page.Items ?? []) {
        const seen = claimSeen.decode(item, itemName(this.table.table, item));
        nextIndex = seen.index + 1;
        if (seen.state === 'pending') pending.push(seen.index);
        if (pending.length === limit) return { pending, nextIndex };
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { pending, nextIndex };
  }

  /**
   * Marks an item running under a new lease with its attempt increased, if it is still as `seen`
   * (pending, or running under the same attempt with its lease ended by `now`); the claimed item.
   */
  private async handOut(
    batchId: string,
    seen: { index: number; state: string; attempt: number },
    leaseUntil: number,
    now?: number,
  ): Promise<ClaimedItem | undefined> {
    const update = new UpdateExpression();
    const state = update.name('state');
    update
      .set(
        `${state} = ${update.value('running')}`,
        `attempt = attempt + ${update.value(1)}`,
        `leaseUntil = ${update.value(leaseUntil)}`,
      )
      .when(`${state} = ${update.value(seen.state)}`, `attempt = ${update.value(seen.attempt)}`);
    if (seen.state === 'running' && now !== undefined) update.when(`leaseUntil <= ${update.value(now)}`);
    const key = itemKeys.batchItem(batchId, seen.index);
    try {
      const { Attributes = {} } = await this.table.client.update(
        update.input(this.table.table, key, 'ALL_NEW'),
      );
      const item = batchItemRecord.decode(itemFields(Attributes), itemName(this.table.table, key));
      return { index: item.index, input: item.input, attempt: item.attempt };
    } catch (error) {
      // Handed out by another claim or reclaim in the meantime.
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Applies `update` to the item while `attempt` is its current running attempt. */
  private async updateCurrent(
    update: UpdateExpression,
    batchId: string,
    index: number,
    attempt: number,
  ): Promise<boolean> {
    const state = update.name('state');
    update.when(`${state} = ${update.value('running')}`, `attempt = ${update.value(attempt)}`);
    return writtenIfCondition(
      this.table.client.update(update.input(this.table.table, itemKeys.batchItem(batchId, index))),
    );
  }

  private async mustGet(batchId: string): Promise<BatchRecord> {
    const record = await this.get(batchId);
    if (!record) throw new Error(`batch ${batchId} was written and is not there`);
    return record;
  }

  private async put(item: Item, condition?: string, values?: Record<string, unknown>): Promise<void> {
    await this.table.client.put({
      TableName: this.table.table,
      Item: item,
      ...(condition ? { ConditionExpression: condition } : {}),
      ...(values ? { ExpressionAttributeValues: values } : {}),
    });
  }
}

/** States in which fresh items are handed out. */
const CLAIMABLE_STATES: readonly BatchState[] = ['queued', 'running'];

/** The record's counts are top-level attributes: DynamoDB's ADD takes no nested path. */
const countAttribute: Record<ItemOutcome, string> = {
  succeeded: 'succeededCount',
  failed: 'failedCount',
  invalid: 'invalidCount',
};

function recordAttributes({ counts, ...record }: BatchRecord): Item {
  return {
    ...record,
    [countAttribute.succeeded]: counts.succeeded,
    [countAttribute.failed]: counts.failed,
    [countAttribute.invalid]: counts.invalid,
  };
}

/** The record's fields by the port's names, from its item. */
function recordFields(item: Item): Item {
  return {
    ...item,
    counts: {
      succeeded: item[countAttribute.succeeded],
      failed: item[countAttribute.failed],
      invalid: item[countAttribute.invalid],
    },
  };
}

function newItemAttributes(batchId: string, index: number, item: NewItem): Item {
  return {
    ...itemKeys.batchItem(batchId, index),
    type: itemTypes.batchItem,
    batchId,
    index,
    input: JSON.stringify(item.input),
    state: item.invalid ? 'done' : 'pending',
    attempt: 0,
    leaseUntil: null,
    outcome: item.invalid ? 'invalid' : null,
    result: item.invalid ? JSON.stringify(item.invalid) : null,
  };
}

/** An item's fields by the port's names, its input and result parsed from their JSON text. */
function itemFields(item: Item): Item {
  return { ...item, input: parsedJsonText(item.input), result: parsedJsonText(item.result) };
}

/** The event type is kept as `eventType`: `type` names the kind of item, as on every item of the table. */
function deliveryAttributes({ type, ...delivery }: WebhookDelivery): Item {
  return {
    ...itemKeys.webhookDelivery(delivery.batchId, delivery.deliveryId),
    type: itemTypes.webhookDelivery,
    eventType: type,
    ...delivery,
  };
}

function toDelivery(item: Item, where: string): WebhookDelivery {
  return webhookDeliveryRecord.decode({ ...item, type: item.eventType }, where);
}
