/**
 * Credits and the usage ledger, with single-item conditional writes only (no transactions).
 *
 * The balance item holds `balance`, `granted` (every credit ever granted) and `inflight`, a map of
 * request id → cost debited and not yet settled. A billed request goes:
 *
 *   1. ledger item `pending`            (put, condition: new)
 *   2. debit                            (balance −= cost, inflight[id] = cost; condition: balance ≥ cost)
 *   3. run the operation
 *   4a. charge: ledger `charged`, then remove inflight[id]
 *   4b. refund: balance += cost and remove inflight[id] (condition: inflight[id] exists), then
 *       ledger `refunded`
 *
 * The inflight marker makes every crash recoverable and every refund happen at most once: `reconcile`
 * refunds a stale `pending` item only if its marker is still there, and otherwise knows nothing was
 * taken. So `granted − Σ charged = balance + Σ inflight` holds between any two writes.
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import { isConditionFailure, type Store } from '../store/dynamo.js';
import { type ItemKey, itemKeys, itemTypes } from '../store/keys.js';

export type LedgerStatus = 'pending' | 'charged' | 'refunded';

/** The surface a call came through, for usage analytics. */
export type Transport = 'rest' | 'mcp' | 'v2';

export interface LedgerEntry {
  requestId: string;
  accountId: string;
  operation: string;
  /** Credits this request was priced at. */
  cost: number;
  /** Absent on entries written before transports were recorded. */
  transport?: Transport;
  status: LedgerStatus;
  /** Public HTTP status the request ended with (absent while pending). */
  httpStatus?: number;
  /** Error code that caused the refund, or `reconciled`. */
  refundReason?: string;
  createdAt: string;
  settledAt?: string;
}

/** A ledger entry this process opened and has yet to settle. */
export interface OpenEntry {
  key: ItemKey;
  entry: LedgerEntry;
}

export type DebitDecision =
  | { allowed: true; balance: number }
  | { allowed: false; reason: 'insufficient_credits'; balance: number };

export interface BalanceState {
  balance: number;
  granted: number;
  inflight: Record<string, number>;
}

export class CreditLedger {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Creates the balance item of a new account. */
  async open(accountId: string, credits: number): Promise<void> {
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: {
          ...itemKeys.balance(accountId),
          type: itemTypes.balance,
          accountId,
          balance: credits,
          granted: credits,
          inflight: {},
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /**
   * Adds credits; balance and the granted total move in one write. Creates the balance item if an
   * interrupted account creation left none. Returns the new balance.
   */
  async grant(accountId: string, credits: number): Promise<number> {
    const { Attributes } = await this.store.doc.send(
      new UpdateCommand({
        TableName: this.store.table,
        Key: itemKeys.balance(accountId),
        UpdateExpression:
          'ADD balance :credits, granted :credits SET inflight = if_not_exists(inflight, :none), ' +
          '#type = :type, accountId = :accountId',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':credits': credits,
          ':none': {},
          ':type': itemTypes.balance,
          ':accountId': accountId,
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Attributes?.balance as number;
  }

  async state(accountId: string): Promise<BalanceState> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: itemKeys.balance(accountId), ConsistentRead: true }),
    );
    return {
      balance: (Item?.balance as number | undefined) ?? 0,
      granted: (Item?.granted as number | undefined) ?? 0,
      inflight: (Item?.inflight as Record<string, number> | undefined) ?? {},
    };
  }

  /** Step 1: the pending ledger item, written before any credit moves. */
  async begin(input: {
    requestId: string;
    accountId: string;
    operation: string;
    cost: number;
    transport?: Transport;
  }): Promise<OpenEntry> {
    const createdAt = this.clock.now();
    const entry: LedgerEntry = { ...input, status: 'pending', createdAt: new Date(createdAt).toISOString() };
    const key = itemKeys.ledger(input.accountId, createdAt, input.requestId);
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: { ...key, type: itemTypes.ledger, ...entry },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { key, entry };
  }

  /** Step 2: takes the cost if the balance covers it, marking it in flight. */
  async debit(open: OpenEntry): Promise<DebitDecision> {
    const { accountId, requestId, cost } = open.entry;
    try {
      const { Attributes } = await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: itemKeys.balance(accountId),
          UpdateExpression: 'SET balance = balance - :cost, inflight.#request = :cost',
          ConditionExpression: 'balance >= :cost',
          ExpressionAttributeNames: { '#request': requestId },
          ExpressionAttributeValues: { ':cost': cost },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { allowed: true, balance: Attributes?.balance as number };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return {
        allowed: false,
        reason: 'insufficient_credits',
        balance: (await this.state(accountId)).balance,
      };
    }
  }

  /** A declined debit leaves nothing to explain: the pending item goes. */
  async discard(open: OpenEntry): Promise<void> {
    await this.store.doc.send(
      new DeleteCommand({
        TableName: this.store.table,
        Key: open.key,
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending' },
      }),
    );
  }

  /** Step 4a: the charge stands. */
  async charge(open: OpenEntry, httpStatus: number): Promise<void> {
    await this.settleEntry(open.key, { status: 'charged', httpStatus });
    await this.clearInflight(open.entry.accountId, open.entry.requestId);
  }

  /**
   * Step 4b: gives the cost back, at most once. Returns the balance after the refund.
   * `refunded` is false when no debit was in flight (never made, or already refunded).
   */
  async refund(
    open: OpenEntry,
    reason: string,
    httpStatus?: number,
  ): Promise<{ balance: number; refunded: boolean }> {
    const result = await this.returnInflight(open.entry.accountId, open.entry.requestId, open.entry.cost);
    await this.settleEntry(open.key, { status: 'refunded', refundReason: reason, httpStatus });
    return result;
  }

  /** A free operation has no debit to protect: one item, written once it is over. */
  async recordFree(input: {
    requestId: string;
    accountId: string;
    operation: string;
    httpStatus: number;
    transport?: Transport;
  }) {
    const now = this.clock.now();
    const at = new Date(now).toISOString();
    const entry: LedgerEntry = {
      requestId: input.requestId,
      accountId: input.accountId,
      operation: input.operation,
      cost: 0,
      transport: input.transport,
      status: 'charged',
      httpStatus: input.httpStatus,
      createdAt: at,
      settledAt: at,
    };
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: { ...itemKeys.ledger(input.accountId, now, input.requestId), type: itemTypes.ledger, ...entry },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /** Ledger entries of an account, newest first. */
  async entries(accountId: string, limit?: number): Promise<LedgerEntry[]> {
    const entries: LedgerEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.store.doc.send(
        new QueryCommand({
          TableName: this.store.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': itemKeys.account(accountId).pk,
            ':prefix': itemKeys.ledgerPrefix,
          },
          ScanIndexForward: false,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
          ...(limit ? { Limit: limit - entries.length } : {}),
        }),
      );
      entries.push(...(page.Items ?? []).map(toEntry));
      startKey = limit && entries.length >= limit ? undefined : page.LastEvaluatedKey;
    } while (startKey);
    return entries;
  }

  /**
   * Settles every ledger item still pending after `olderThanMs`: refunds the cost when its debit is
   * still in flight, otherwise records that nothing was taken. Safe to run at any time, repeatedly.
   */
  async reconcile(olderThanMs: number): Promise<{ settled: LedgerEntry[] }> {
    const cutoff = new Date(this.clock.now() - olderThanMs).toISOString();
    const settled: LedgerEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.store.doc.send(
        new ScanCommand({
          TableName: this.store.table,
          FilterExpression: '#type = :ledger AND #status = :pending AND createdAt < :cutoff',
          ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
          ExpressionAttributeValues: {
            ':ledger': itemTypes.ledger,
            ':pending': 'pending',
            ':cutoff': cutoff,
          },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const open: OpenEntry = {
          key: { pk: item.pk as string, sk: item.sk as string },
          entry: toEntry(item),
        };
        await this.refund(open, 'reconciled');
        settled.push({ ...open.entry, status: 'refunded', refundReason: 'reconciled' });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { settled };
  }

  private async returnInflight(accountId: string, requestId: string, cost: number) {
    try {
      const { Attributes } = await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: itemKeys.balance(accountId),
          UpdateExpression: 'SET balance = balance + :cost REMOVE inflight.#request',
          ConditionExpression: 'attribute_exists(inflight.#request)',
          ExpressionAttributeNames: { '#request': requestId },
          ExpressionAttributeValues: { ':cost': cost },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { balance: Attributes?.balance as number, refunded: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { balance: (await this.state(accountId)).balance, refunded: false };
    }
  }

  private async clearInflight(accountId: string, requestId: string): Promise<void> {
    await this.store.doc.send(
      new UpdateCommand({
        TableName: this.store.table,
        Key: itemKeys.balance(accountId),
        UpdateExpression: 'REMOVE inflight.#request',
        ExpressionAttributeNames: { '#request': requestId },
      }),
    );
  }

  private async settleEntry(
    key: ItemKey,
    settlement: { status: 'charged' | 'refunded'; httpStatus?: number; refundReason?: string },
  ): Promise<void> {
    const values: Record<string, unknown> = {
      ':status': settlement.status,
      ':pending': 'pending',
      ':at': new Date(this.clock.now()).toISOString(),
    };
    const sets = ['#status = :status', 'settledAt = :at'];
    if (settlement.httpStatus !== undefined) {
      sets.push('httpStatus = :httpStatus');
      values[':httpStatus'] = settlement.httpStatus;
    }
    if (settlement.refundReason !== undefined) {
      sets.push('refundReason = :reason');
      values[':reason'] = settlement.refundReason;
    }
    try {
      await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      // Already settled (a reconcile raced this request): the first settlement stands.
      if (!isConditionFailure(error)) throw error;
    }
  }
}

function toEntry(item: Record<string, unknown>): LedgerEntry {
  const { pk: _pk, sk: _sk, type: _type, ...entry } = item;
  return entry as unknown as LedgerEntry;
}
