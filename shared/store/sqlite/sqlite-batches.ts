/**
 * Bulk lookups in SQLite (batches/batch-store.ts): `batches` (one row per batch, its counts in
 * columns), `batch_items` (one row per item, input and result as JSON text), `batch_idempotency`,
 * and `webhook_deliveries` (one row per event to announce, its attempts as JSON text).
 * Each method that changes anything is one queued write (database.ts), so what DynamoDB decides by
 * conditional writes is decided here by one transaction: a create stores the batch, its items and
 * its key together; a claim marks its items and moves `next_index` together; a completion records the
 * item and adds to the batch's counts together, only if the item is still on the attempt it names.
 */
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
import type { Database } from './database.js';
import { jsonColumn, rowName } from './rows.js';

type Row = Record<string, unknown>;

export class SqliteBatchStore implements BatchStore {
  readonly maxResultBytes = null;

  constructor(private readonly database: Database) {}

  async create(
    batch: BatchRecord,
    items: readonly NewItem[],
    idempotency?: IdempotencyClaim,
    now = Date.now(),
  ): Promise<CreateOutcome> {
    const stored = createdRecord(batch, items);
    return this.database.write((): CreateOutcome => {
      const used = idempotency && this.usedKey(batch.accountId, idempotency.key, now);
      if (used) {
        if (used.requestHash !== idempotency?.requestHash) return { kind: 'conflict', batchId: used.batchId };
        // A key outlives nothing it names today; were its batch ever removed, the key is void.
        const replayed = this.read(used.batchId);
        if (replayed) return { kind: 'replayed', batch: replayed };
      }
      this.insertBatch(stored);
      const insertItem = this.database.statement(
        `INSERT INTO batch_items (batch_id, item_index, input, state, attempt, lease_until, outcome, result)
         VALUES (?, ?, ?, ?, 0, NULL, ?, ?)`,
      );
      items.forEach((item, index) => {
        insertItem.run(
          stored.batchId,
          index,
          JSON.stringify(item.input),
          item.invalid ? 'done' : 'pending',
          item.invalid ? 'invalid' : null,
          item.invalid ? JSON.stringify(item.invalid) : null,
        );
      });
      if (idempotency)
        this.database
          .statement(
            `INSERT OR REPLACE INTO batch_idempotency (account_id, key, request_hash, batch_id, expires_at)
             VALUES (?, ?, ?, ?, ?)`,
          )
          .run(
            batch.accountId,
            idempotency.key,
            idempotency.requestHash,
            stored.batchId,
            idempotency.expiresAt,
          );
      return { kind: 'created', batch: stored };
    });
  }

  async get(batchId: string): Promise<BatchRecord | undefined> {
    return this.read(batchId);
  }

  async list(accountId: string, limit: number, after?: string): Promise<BatchRecord[]> {
    const rows =
      after === undefined
        ? this.database
            .statement(
              `SELECT * FROM batches WHERE account_id = ?
               ORDER BY created_at DESC, batch_id DESC LIMIT ?`,
            )
            .all(accountId, limit)
        : // After a batch that is not the account's, no page: the comparison with no row is NULL.
          this.database
            .statement(
              `SELECT * FROM batches WHERE account_id = ?1
                 AND (created_at, batch_id) <
                   (SELECT created_at, batch_id FROM batches WHERE batch_id = ?2 AND account_id = ?1)
               ORDER BY created_at DESC, batch_id DESC LIMIT ?3`,
            )
            .all(accountId, after, limit);
    return rows.map(toBatch);
  }

  async unfinished(): Promise<BatchRecord[]> {
    return this.database
      .statement(
        `SELECT * FROM batches WHERE state IN ('queued', 'running', 'paused') ORDER BY created_at, batch_id`,
      )
      .all()
      .map(toBatch);
  }

  async claimNext(batchId: string, limit: number, leaseUntil: number): Promise<ClaimedItem[]> {
    return this.database.write(() => {
      const batch = this.database
        .statement(`SELECT next_index FROM batches WHERE batch_id = ? AND state IN ('queued', 'running')`)
        .get(batchId);
      if (!batch) return [];
      // Invalid items are done from the start, so `pending` from `next_index` on is exactly the
      // never-claimed items.
      const claimed = this.database
        .statement(
          `UPDATE batch_items SET state = 'running', attempt = attempt + 1, lease_until = ?1
           WHERE batch_id = ?2 AND item_index IN (
             SELECT item_index FROM batch_items
             WHERE batch_id = ?2 AND item_index >= ?3 AND state = 'pending'
             ORDER BY item_index LIMIT ?4)
           RETURNING item_index, input, attempt`,
        )
        .all(leaseUntil, batchId, Number(batch.next_index), limit)
        .map((row) => toClaimed(batchId, row))
        .sort(byIndex);
      const last = claimed.at(-1);
      if (last)
        this.database
          .statement('UPDATE batches SET next_index = ? WHERE batch_id = ?')
          .run(last.index + 1, batchId);
      return claimed;
    });
  }

  async reclaimExpired(
    batchId: string,
    now: number,
    limit: number,
    leaseUntil: number,
  ): Promise<ClaimedItem[]> {
    const rows = await this.database.write(() =>
      this.database
        .statement(
          `UPDATE batch_items SET attempt = attempt + 1, lease_until = ?1
           WHERE batch_id = ?2 AND item_index IN (
             SELECT item_index FROM batch_items
             WHERE batch_id = ?2 AND state = 'running' AND lease_until <= ?3
             ORDER BY lease_until, item_index LIMIT ?4)
           RETURNING item_index, input, attempt`,
        )
        .all(leaseUntil, batchId, now, limit),
    );
    return rows.map((row) => toClaimed(batchId, row)).sort(byIndex);
  }

  async claimItem(
    batchId: string,
    index: number,
    now: number,
    leaseUntil: number,
  ): Promise<ClaimedItem | undefined> {
    const row = await this.database.write(() =>
      this.database
        .statement(
          `UPDATE batch_items SET state = 'running', attempt = attempt + 1, lease_until = ?1
           WHERE batch_id = ?2 AND item_index = ?3
             AND (state = 'pending' OR (state = 'running' AND lease_until <= ?4))
             AND EXISTS (SELECT 1 FROM batches WHERE batch_id = ?2 AND state IN ('queued', 'running'))
           RETURNING item_index, input, attempt`,
        )
        .get(leaseUntil, batchId, index, now),
    );
    return row ? toClaimed(batchId, row) : undefined;
  }

  async extendLease(batchId: string, index: number, attempt: number, leaseUntil: number): Promise<boolean> {
    return this.setLease(batchId, index, attempt, leaseUntil);
  }

  async release(batchId: string, index: number, attempt: number): Promise<boolean> {
    // Ended at the epoch: any `now` finds it reclaimable, whatever clock the caller keeps.
    return this.setLease(batchId, index, attempt, 0);
  }

  async complete(
    batchId: string,
    index: number,
    attempt: number,
    outcome: Exclude<ItemOutcome, 'invalid'>,
    result: ItemResult,
    at: string,
  ): Promise<boolean> {
    return this.database.write(() => {
      const { changes } = this.database
        .statement(
          `UPDATE batch_items SET state = 'done', lease_until = NULL, outcome = ?, result = ?
           WHERE batch_id = ? AND item_index = ? AND attempt = ? AND state = 'running'`,
        )
        .run(outcome, JSON.stringify(result), batchId, index, attempt);
      if (Number(changes) === 0) return false;
      this.database
        .statement(
          `UPDATE batches SET
             succeeded = succeeded + (?1 = 'succeeded'), failed = failed + (?1 = 'failed'),
             credits_charged = credits_charged + ?2, credits_refunded = credits_refunded + ?3,
             updated_at = ?4
           WHERE batch_id = ?5`,
        )
        .run(outcome, result.creditCost, result.creditsRefunded, at, batchId);
      return true;
    });
  }

  async transition(
    batchId: string,
    from: readonly BatchState[],
    to: BatchState,
    at: string,
    pauseReason?: PauseReason,
  ): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `UPDATE batches SET state = ?, pause_reason = ?, updated_at = ?, finished_at = ?
           WHERE batch_id = ? AND state IN (SELECT value FROM json_each(?))`,
        )
        .run(
          to,
          to === 'paused' ? (pauseReason ?? null) : null,
          at,
          FINISHED_STATES.includes(to) ? at : null,
          batchId,
          JSON.stringify(from),
        ),
    );
    return Number(changes) === 1;
  }

  async items(batchId: string, fromIndex: number, limit: number): Promise<BatchItem[]> {
    return this.database
      .statement(
        'SELECT * FROM batch_items WHERE batch_id = ? AND item_index >= ? ORDER BY item_index LIMIT ?',
      )
      .all(batchId, fromIndex, limit)
      .map(toItem);
  }

  async addDelivery(delivery: WebhookDelivery): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement(
          `INSERT INTO webhook_deliveries (delivery_id, batch_id, account_id, type, payload, state, attempts,
             next_attempt_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          delivery.deliveryId,
          delivery.batchId,
          delivery.accountId,
          delivery.type,
          delivery.payload,
          delivery.state,
          JSON.stringify(delivery.attempts),
          delivery.nextAttemptAt,
          delivery.createdAt,
        ),
    );
  }

  async dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]> {
    return this.database
      .statement(
        `SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ?
         ORDER BY next_attempt_at, created_at, delivery_id LIMIT ?`,
      )
      .all(now, limit)
      .map(toDelivery);
  }

  async leaseDelivery(
    batchId: string,
    deliveryId: string,
    attemptCount: number,
    now: number,
    leaseUntil: number,
  ): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `UPDATE webhook_deliveries SET next_attempt_at = ?
           WHERE delivery_id = ? AND batch_id = ? AND state = 'pending' AND next_attempt_at <= ?
             AND json_array_length(attempts) = ?`,
        )
        .run(leaseUntil, deliveryId, batchId, now, attemptCount),
    );
    return Number(changes) === 1;
  }

  async recordAttempt(
    batchId: string,
    deliveryId: string,
    attemptCount: number,
    attempt: DeliveryAttempt,
    outcome: DeliveryOutcome,
  ): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `UPDATE webhook_deliveries
           SET attempts = json_insert(attempts, '$[#]', json(?)), state = ?, next_attempt_at = ?
           WHERE delivery_id = ? AND batch_id = ? AND state = 'pending' AND json_array_length(attempts) = ?`,
        )
        .run(
          JSON.stringify(attempt),
          outcome.state,
          outcome.nextAttemptAt,
          deliveryId,
          batchId,
          attemptCount,
        ),
    );
    return Number(changes) === 1;
  }

  async deliveries(batchId: string): Promise<WebhookDelivery[]> {
    return this.database
      .statement('SELECT * FROM webhook_deliveries WHERE batch_id = ? ORDER BY created_at, delivery_id')
      .all(batchId)
      .map(toDelivery);
  }

  private read(batchId: string): BatchRecord | undefined {
    const row = this.database.statement('SELECT * FROM batches WHERE batch_id = ?').get(batchId);
    return row && toBatch(row);
  }

  /** The account's use of `key` still live at `now` (forgotten from its expiry on, as OAuth records are). */
  private usedKey(accountId: string, key: string, now: number) {
    const row = this.database
      .statement('SELECT * FROM batch_idempotency WHERE account_id = ? AND key = ? AND expires_at > ?')
      .get(accountId, key, now);
    return (
      row &&
      idempotencyKeyRecord.decode(
        {
          accountId: row.account_id,
          key: row.key,
          requestHash: row.request_hash,
          batchId: row.batch_id,
          expiresAt: row.expires_at,
        },
        rowName('batch_idempotency', accountId, key),
      )
    );
  }

  private insertBatch(batch: BatchRecord): void {
    this.database
      .statement(
        `INSERT INTO batches (batch_id, account_id, holder_id, operation, state, pause_reason, item_count,
           next_index, succeeded, failed, invalid, credits_charged, credits_refunded, webhook_url,
           webhook_secret, created_at, updated_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        batch.batchId,
        batch.accountId,
        batch.holderId,
        batch.operation,
        batch.state,
        batch.pauseReason,
        batch.itemCount,
        batch.nextIndex,
        batch.counts.succeeded,
        batch.counts.failed,
        batch.counts.invalid,
        batch.creditsCharged,
        batch.creditsRefunded,
        batch.webhookUrl,
        batch.webhookSecret,
        batch.createdAt,
        batch.updatedAt,
        batch.finishedAt,
      );
  }

  private async setLease(batchId: string, index: number, attempt: number, leaseUntil: number) {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `UPDATE batch_items SET lease_until = ?
           WHERE batch_id = ? AND item_index = ? AND attempt = ? AND state = 'running'`,
        )
        .run(leaseUntil, batchId, index, attempt),
    );
    return Number(changes) === 1;
  }
}

const byIndex = (a: ClaimedItem, b: ClaimedItem) => a.index - b.index;

function toBatch(row: Row): BatchRecord {
  return batchRecord.decode(
    {
      batchId: row.batch_id,
      accountId: row.account_id,
      holderId: row.holder_id,
      operation: row.operation,
      state: row.state,
      pauseReason: row.pause_reason,
      itemCount: row.item_count,
      nextIndex: row.next_index,
      counts: { succeeded: row.succeeded, failed: row.failed, invalid: row.invalid },
      creditsCharged: row.credits_charged,
      creditsRefunded: row.credits_refunded,
      webhookUrl: row.webhook_url,
      webhookSecret: row.webhook_secret,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      finishedAt: row.finished_at,
    },
    rowName('batches', row.batch_id),
  );
}

function toItem(row: Row): BatchItem {
  return batchItemRecord.decode(
    {
      batchId: row.batch_id,
      index: row.item_index,
      input: jsonColumn(row.input),
      state: row.state,
      attempt: row.attempt,
      leaseUntil: row.lease_until,
      outcome: row.outcome,
      result: jsonColumn(row.result),
    },
    rowName('batch_items', row.batch_id, row.item_index),
  );
}

/** A claimed item, read through the item codec so a corrupt input stops the claim. */
function toClaimed(batchId: string, row: Row): ClaimedItem {
  const { index, input, attempt } = toItem({ ...row, batch_id: batchId, state: 'running' });
  return { index, input, attempt };
}

function toDelivery(row: Row): WebhookDelivery {
  return webhookDeliveryRecord.decode(
    {
      deliveryId: row.delivery_id,
      batchId: row.batch_id,
      accountId: row.account_id,
      type: row.type,
      payload: row.payload,
      state: row.state,
      attempts: jsonColumn(row.attempts),
      nextAttemptAt: row.next_attempt_at,
      createdAt: row.created_at,
    },
    rowName('webhook_deliveries', row.delivery_id),
  );
}
