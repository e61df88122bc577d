/**
 * Billing on DynamoDB with single-item conditional writes only (no transactions: dynalite lacks
 * them, and they cost double). The account's balance item holds, besides `balance` and `granted`:
 *
 *   windowStart, windowCount, previousCount   the rate window (current fixed window and the one before)
 *   inflight, keyUse   requests admitted and not yet cleared, and key uses (balance-item.ts)
 *   spend:<keyId>/<period>   a capped key's spend in a UTC day and month (balance-item.ts)
 *   journal:<id>  a credit entry whose own item may not have landed yet (journal.ts)
 *
 * A billed request writes:
 *
 *   1. admit   UpdateItem of the balance item: window count + 1, balance − cost, inflight[id] = entry,
 *              and for a capped key its day's and month's spend + cost; condition: the window has
 *              room, balance ≥ cost, and each spend + cost stays within its cap. It also removes the
 *              in-flight entries of this account that this process has settled as charged since
 *              (item 2a), and spend attributes of past periods that a read of the item showed.
 *   2a. charge PutItem of the final ledger item (condition: new).
 *   2b. refund PutItem of the final ledger item, and in parallel UpdateItem of the balance item:
 *              balance + cost (and a capped entry's cost back to the spend of the day and month it
 *              was admitted in), and the refund noted on inflight[id] (condition: in flight, not
 *              refunded yet), so the entry itself can rebuild a ledger item that did not land.
 *
 * Settled entries stay until the account's next admission in this process removes them (no write of
 * their own), or `reconcile` does. An entry is pending while it is neither refunded nor charged by
 * a ledger item. Any subset of these writes is recovered by `reconcile`, which reads stale entries:
 * with a `charged` ledger item it removes the entry; refunded, it writes the ledger item if missing
 * and removes it; otherwise it writes `refunded` (unless a `refunded` item is there), returns the
 * cost (once, by the condition) and removes it.
 *
 * The rate window's previous count is fixed once its window closes, so it is cached per process:
 * in steady state an admission is the one write, with no read before it. A grant or adjustment is
 * one conditional UpdateItem of the balance item that notes its credit entry (journal.ts), then the
 * entry's own item. docs/state.md has the rest.
 */
import type {
  AccountReadRequest,
  Admission,
  AdmissionRequest,
  BalanceState,
  BillingStore,
  CreditEntry,
  CreditOutcome,
  InflightEntry,
  LedgerEntry,
  LedgerQuery,
  Settlement,
  SettleResult,
  UsageQuery,
  UsageRow,
  WindowAdmission,
} from '../../billing/billing-store.js';
import {
  inflightEntryOf,
  matchesLedgerQuery,
  newestFirst,
  settledEntryOf,
  usageRows,
} from '../../billing/billing-store.js';
import { capRefusal, isCapped, type KeySpend, spendPeriods } from '../../billing/spend-caps.js';
import {
  currentAllowance,
  storedWindowOf,
  type WindowState,
  windowAt,
  windowStartAt,
} from '../../limits/rolling-window.js';
import { balanceFields } from '../records/balance.js';
import { ledgerEntryRecord } from '../records/ledger-entry.js';
import { recordCodec } from '../records/stored-record.js';
import {
  type BalanceItem,
  decodeBalanceItem,
  type HeldEntry,
  heldEntries,
  keySpendOf,
  spendName,
  spendOf,
  staleSpendNames,
  storedEntryOf,
} from './balance-item.js';
import { toAccount } from './dynamo-accounts.js';
import { creditRecord, land, landNotes, noteName, notesOf, readRecords } from './journal.js';
import { type ItemKey, itemKeys, itemName, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure, scanAll } from './table.js';
import { UpdateExpression } from './update-expression.js';

/** The name of the account reads' window item (keys.ts `rateWindow`). */
const ACCOUNT_WINDOW = 'account';
/** Races lost in a row before an admission gives up (only window roll-overs race). */
const MAX_ATTEMPTS = 8;
/** Settled entries one admission removes at most, keeping the expression small. */
const MAX_CLEARED_PER_WRITE = 25;
const MAX_TRACKED_ACCOUNTS = 10_000;

/** What a write of the balance item returns of it (`UPDATED_NEW`): the values it changed. */
const balanceAfterWrite = recordCodec('balance', () => balanceFields().pick({ balance: true }));
const windowAfterWrite = recordCodec('balance', () => balanceFields().pick({ windowCount: true }));
/** An account's rate window item apart from its balance item (`admitAccountRead`). */
const rateWindowItem = recordCodec('rate window', () =>
  balanceFields().pick({ windowStart: true, windowCount: true, previousCount: true }),
);

type WindowBase = Omit<WindowState, 'currentCount'>;

type WriteMode = { kind: 'same-window'; allowance: number } | { kind: 'new-window'; seen: BalanceItem };

export class DynamoBillingStore implements BillingStore {
  /** Per account: the window this process last counted in and its (immutable) previous count. */
  private readonly windows = new Map<string, { windowStart: number; previousCount: number }>();
  /** Per account: requests this process settled as charged whose in-flight entry is still there. */
  private readonly settled = new Map<string, Set<string>>();
  /** Per account: spend attributes of past periods that a read showed, removed by the next admission. */
  private readonly staleSpend = new Map<string, Set<string>>();

  constructor(private readonly table: DynamoTable) {}

  async open(accountId: string, opening?: CreditEntry): Promise<void> {
    const credits = opening?.amount ?? 0;
    const record = opening && creditRecord(opening);
    await this.table.client.put({
      TableName: this.table.table,
      Item: {
        ...itemKeys.balance(accountId),
        type: itemTypes.balance,
        accountId,
        balance: credits,
        granted: credits,
        inflight: {},
        keyUse: {},
        ...(record ? { [noteName(record)]: record } : {}),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    if (record) await land(this.table, itemKeys.balance(accountId), { ...record, balance: credits });
  }

  async credit(entry: CreditEntry): Promise<CreditOutcome> {
    const record = creditRecord(entry);
    const key = itemKeys.balance(entry.accountId);
    const update = new UpdateExpression();
    const amount = update.value(entry.amount);
    const none = update.value({});
    update
      .add(`balance ${amount}`, `granted ${amount}`)
      .set(
        `inflight = if_not_exists(inflight, ${none})`,
        `keyUse = if_not_exists(keyUse, ${none})`,
        `${update.name('type')} = ${update.value(itemTypes.balance)}`,
        `accountId = ${update.value(entry.accountId)}`,
        `${update.name(noteName(record))} = ${update.value(record)}`,
      );
    // The one condition that keeps a balance from going below zero; a missing item holds nothing.
    if (entry.amount < 0) update.when(`balance >= ${update.value(-entry.amount)}`);
    let balance: number;
    try {
      const { Attributes } = await this.table.client.update(
        update.input(this.table.table, key, 'UPDATED_NEW'),
      );
      balance = this.after(balanceAfterWrite, key, Attributes).balance;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { outcome: 'insufficient_credits', balance: (await this.read(entry.accountId))?.balance ?? 0 };
    }
    await land(this.table, key, { ...record, balance });
    return { outcome: 'applied', entry: { ...entry, balance }, balance };
  }

  async credits(accountId: string): Promise<CreditEntry[]> {
    const notes = notesOf(this.table.table, await this.readItem(accountId));
    const records = await readRecords(this.table, accountId, itemTypes.credit, notes);
    return records.map(({ type: _type, ...entry }) => entry);
  }

  async state(accountId: string): Promise<BalanceState> {
    const item = await this.read(accountId);
    return {
      balance: item?.balance ?? 0,
      granted: item?.granted ?? 0,
      pending: item ? await this.pending(item) : [],
      ...(item?.windowStart === undefined ? {} : { window: storedWindowOf(item) }),
    };
  }

  async admit(request: AdmissionRequest): Promise<Admission> {
    const { accountId, cost, rateLimit } = request;
    const windowMs = rateLimit.windowSeconds * 1000;
    let now = request.now;
    let windowStart = windowStartAt(now, rateLimit);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const known = this.windows.get(accountId);
      if (known?.windowStart === windowStart) {
        const base = {
          limit: rateLimit.limit,
          windowMs,
          windowStart,
          now,
          previousCount: known.previousCount,
        };
        const allowance = currentAllowance(base);
        if (allowance >= 1) {
          const admitted = await this.write(request, base, { kind: 'same-window', allowance });
          if (admitted) return admitted;
        }
      }
      // No window known for now, or the write's condition failed: read the item to learn why.
      const item = await this.read(accountId);
      if (item) this.noteStaleSpend(accountId, item, now);
      if (!item) {
        const base = { limit: rateLimit.limit, windowMs, windowStart, now, previousCount: 0 };
        if (cost > 0)
          return { outcome: 'insufficient_credits', window: { ...base, currentCount: 0 }, balance: 0 };
        const created = await this.create(request, base);
        if (created) return created;
        continue;
      }
      if (item.windowStart !== undefined && item.windowStart > windowStart) {
        // Another process's clock is ahead and opened a later window: count in that one.
        windowStart = item.windowStart;
        now = Math.max(now, windowStart);
      }
      if (item.windowStart === windowStart) {
        const previousCount = item.previousCount ?? 0;
        this.remember(this.windows, accountId, { windowStart, previousCount });
        const base = { limit: rateLimit.limit, windowMs, windowStart, now, previousCount };
        const window = { ...base, currentCount: item.windowCount ?? 0 };
        if (window.currentCount >= currentAllowance(base)) return { outcome: 'rate_limited', window };
        const refused = refusal(request, item, window);
        if (refused) return refused;
        continue;
      }
      // The item still counts an older window: this request opens the current one.
      const previousCount = item.windowStart === windowStart - windowMs ? (item.windowCount ?? 0) : 0;
      const base = { limit: rateLimit.limit, windowMs, windowStart, now, previousCount };
      const window = { ...base, currentCount: 0 };
      if (currentAllowance(base) < 1) return { outcome: 'rate_limited', window };
      const refused = refusal(request, item, window);
      if (refused) return refused;
      const admitted = await this.write(request, base, { kind: 'new-window', seen: item });
      if (admitted) {
        this.remember(this.windows, accountId, { windowStart, previousCount });
        return admitted;
      }
    }
    throw new Error(`The admission of ${request.requestId} lost ${MAX_ATTEMPTS} races in a row.`);
  }

  async settle(entry: InflightEntry, settlement: Settlement): Promise<SettleResult> {
    const final = settledEntryOf(entry, settlement);
    if (settlement.status === 'charged') {
      // Not written when a reconcile settled the request first: its settlement stands.
      if (await this.putLedger(final, true)) this.markSettled(entry);
      return { refunded: false };
    }
    const [, refund] = await Promise.all([this.putLedger(final, true), this.returnCost(entry, settlement)]);
    // Both landed (or were done already): the entry can go with the next admission.
    this.markSettled(entry);
    return refund;
  }

  async recordUsage(entry: LedgerEntry): Promise<void> {
    await this.putLedger(entry, false);
  }

  async keySpend(accountId: string, keyId: string, now: number): Promise<KeySpend> {
    const { day, month } = spendPeriods(now);
    const key = itemKeys.balance(accountId);
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: key,
      ProjectionExpression: '#day, #month',
      ExpressionAttributeNames: { '#day': spendName(keyId, day), '#month': spendName(keyId, month) },
      ConsistentRead: true,
    });
    return keySpendOf(spendOf(Item ?? {}, itemName(this.table.table, key)), keyId, now);
  }

  /**
   * A Query of the account's ledger items (never a scan): the time range and a cursor's position
   * bound the sort key; a request id or an operation is a filter on what the range reads. Entries
   * still in flight come from the balance item, filtered the same way in memory.
   */
  async entries(accountId: string, query: LedgerQuery = {}): Promise<LedgerEntry[]> {
    const { limit } = query;
    const filters: string[] = [];
    const values: Record<string, unknown> = {};
    if (query.requestId !== undefined) {
      filters.push('requestId = :requestId');
      values[':requestId'] = query.requestId;
    }
    if (query.operation !== undefined) {
      filters.push('operation = :operation');
      values[':operation'] = query.operation;
    }
    // Sort keys are `LEDGER#<createdAt>#<requestId>`: one at `until` sorts after `LEDGER#<until>`,
    // so BETWEEN keeps `since` inclusive and `until` exclusive; `LEDGER$` follows every ledger key.
    // A cursor's position is a bound too: BETWEEN keeps its own item, which the filter below drops.
    const until = query.until === undefined ? LEDGER_END : `${itemKeys.ledgerPrefix}${query.until}`;
    const after = query.after && ledgerKey({ accountId, ...query.after }).sk;
    const upper = after !== undefined && after < until ? after : until;
    const settled: LedgerEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.table.client.query({
        TableName: this.table.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
        ExpressionAttributeValues: {
          ':pk': itemKeys.account(accountId).pk,
          ':from': `${itemKeys.ledgerPrefix}${query.since ?? ''}`,
          ':to': upper,
          ...values,
        },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        ...(limit ? { Limit: limit - settled.length } : {}),
      });
      const read = (page.Items ?? []).map((item) => this.toLedgerEntry(item));
      settled.push(...read.filter((entry) => matchesLedgerQuery(entry, query)));
      startKey = limit && settled.length >= limit ? undefined : page.LastEvaluatedKey;
    } while (startKey);
    const item = await this.read(accountId);
    const listed = new Set(settled.map((entry) => entry.requestId));
    const unlisted = item
      ? (await this.classify(item)).filter(
          (held) => !listed.has(held.entry.requestId) && matchesLedgerQuery(held.entry, query),
        )
      : [];
    const all = [...settled, ...unlisted.map(({ entry, held }) => asLedgerEntry(held ?? entry))];
    all.sort((a, b) => newestFirst(a, b));
    return limit === undefined ? all : all.slice(0, limit);
  }

  /** Aggregated in memory from the range's ledger entries (one Query of the account's items). */
  async usage(accountId: string, query: UsageQuery): Promise<UsageRow[]> {
    return usageRows(await this.entries(accountId, { since: query.since, until: query.until }));
  }

  /**
   * The account reads' window is an item of its own (not the balance item every lookup writes):
   * read, then one conditional write that holds only if nobody counted in between, retried when
   * another request won the race.
   */
  async admitAccountRead({
    accountId,
    rateLimit,
    now,
    keyUse,
  }: AccountReadRequest): Promise<WindowAdmission> {
    const key = itemKeys.rateWindow(accountId, ACCOUNT_WINDOW);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { Item } = await this.table.client.get({
        TableName: this.table.table,
        Key: key,
        ConsistentRead: true,
      });
      const seen = Item && rateWindowItem.decode(Item, itemName(this.table.table, key));
      const window = windowAt(seen, rateLimit, now);
      const allowance = currentAllowance(window);
      if (window.currentCount >= allowance) return { outcome: 'rate_limited', window };
      const update = new UpdateExpression();
      if (seen?.windowStart === window.windowStart) {
        // Counting in the stored window: concurrent requests all succeed while it has room.
        update
          .set(`windowCount = windowCount + ${update.value(1)}`)
          .when(
            `windowStart = ${update.value(window.windowStart)}`,
            `windowCount < ${update.value(allowance)}`,
          );
      } else {
        update
          .set(
            `${update.name('type')} = ${update.value(itemTypes.rateWindow)}`,
            `windowStart = ${update.value(window.windowStart)}`,
            `previousCount = ${update.value(window.previousCount)}`,
            `windowCount = ${update.value(1)}`,
          )
          .when(
            seen?.windowStart === undefined
              ? 'attribute_not_exists(pk)'
              : `windowStart = ${update.value(seen.windowStart)}`,
          );
      }
      try {
        const { Attributes } = await this.table.client.update(
          update.input(this.table.table, key, 'UPDATED_NEW'),
        );
        const { windowCount } = this.after(windowAfterWrite, key, Attributes);
        if (keyUse) await this.recordKeyUse(accountId, keyUse);
        return { outcome: 'admitted', window: { ...window, currentCount: windowCount } };
      } catch (error) {
        // Another request opened the window, or took its last room: read again.
        if (!isConditionFailure(error)) throw error;
      }
    }
    throw new Error(`An account read of ${accountId} lost ${MAX_ATTEMPTS} races in a row.`);
  }

  async reconcile(cutoff: string, settledAt: string): Promise<LedgerEntry[]> {
    const settled: LedgerEntry[] = [];
    // Credit and audit entries a crashed operator command noted but did not land (journal.ts).
    const table = this.table.table;
    for (const item of await scanAll(this.table, itemTypes.account))
      await landNotes(this.table, itemKeys.account(toAccount(table, item).accountId), item, cutoff);
    for (const item of await scanAll(this.table, itemTypes.balance)) {
      const balance = decodeBalanceItem(table, item);
      await landNotes(this.table, itemKeys.balance(balance.accountId), item, cutoff);
      for (const held of heldEntries(table, balance)) {
        if (held.entry.createdAt >= cutoff) continue;
        const outcome = await this.settleStale(held, settledAt);
        if (outcome) settled.push(outcome);
      }
    }
    return settled;
  }

  /** Finishes what a crashed request left; the entry when credits moved, undefined otherwise. */
  private async settleStale(held: HeldEntry, settledAt: string): Promise<LedgerEntry | undefined> {
    const { entry, refunded } = held;
    if (refunded) {
      // The request refunded and may have lost its ledger item: rebuild it from the entry.
      await this.putLedger(refunded, true);
      await this.clearEntries(entry.accountId, [entry.requestId]);
      return undefined;
    }
    const existing = await this.getLedger(entry);
    if (existing?.status === 'charged') {
      await this.clearEntries(entry.accountId, [entry.requestId]);
      return undefined;
    }
    // Ledger first: a crash before the refund leaves a `refunded` item the next run completes.
    const reconciled: LedgerEntry =
      existing ?? settledEntryOf(entry, { status: 'refunded', refundReason: 'reconciled', settledAt });
    if (!existing && !(await this.putLedger(reconciled, true))) return this.settleStale(held, settledAt);
    const returned = await this.returnCost(entry, reconciled);
    await this.clearEntries(entry.accountId, [entry.requestId]);
    return returned.refunded ? reconciled : undefined;
  }

  /** The admission write; undefined when its condition did not hold. */
  private async write(
    request: AdmissionRequest,
    base: WindowBase,
    mode: WriteMode,
  ): Promise<Admission | undefined> {
    const { accountId, cost, keyUse } = request;
    const update = new UpdateExpression();
    if (mode.kind === 'same-window') {
      update
        .set(`windowCount = windowCount + ${update.value(1)}`)
        .when(
          `windowStart = ${update.value(base.windowStart)}`,
          `windowCount < ${update.value(mode.allowance)}`,
        );
    } else {
      const { seen } = mode;
      update.set(
        `windowStart = ${update.value(base.windowStart)}`,
        `previousCount = ${update.value(base.previousCount)}`,
        `windowCount = ${update.value(1)}`,
      );
      update.when(
        seen.windowStart === undefined
          ? 'attribute_not_exists(windowStart)'
          : `windowStart = ${update.value(seen.windowStart)} AND windowCount = ${update.value(seen.windowCount ?? 0)}`,
      );
      // Items written before the window moved here have no key-use map yet.
      if (!seen.keyUse) update.set(`keyUse = ${update.value(keyUse ? { [keyUse.keyId]: keyUse.at } : {})}`);
    }
    const entry = cost > 0 ? inflightEntryOf(request, base.now) : undefined;
    if (entry) {
      const amount = update.value(cost);
      const stored = storedEntryOf(entry);
      update
        .set(
          `balance = balance - ${amount}`,
          `inflight.${update.name(entry.requestId)} = ${update.value(stored)}`,
        )
        .when(`balance >= ${amount}`);
    }
    if (keyUse && !(mode.kind === 'new-window' && !mode.seen.keyUse)) {
      update.set(`keyUse.${update.name(keyUse.keyId)} = ${update.value(keyUse.at)}`);
    }
    const caps = entry && isCapped(request.caps) ? request.caps : undefined;
    const counted = caps ? countSpend(update, caps, cost, base.now) : [];
    const cleared = [...(this.settled.get(accountId) ?? [])].slice(0, MAX_CLEARED_PER_WRITE);
    for (const requestId of cleared) update.remove(`inflight.${update.name(requestId)}`);
    const stale = [...(this.staleSpend.get(accountId) ?? [])]
      .filter((name) => !counted.includes(name))
      .slice(0, MAX_CLEARED_PER_WRITE);
    for (const name of stale) update.remove(update.name(name));
    try {
      const key = itemKeys.balance(accountId);
      const { Attributes } = await this.table.client.update(
        update.input(this.table.table, key, 'UPDATED_NEW'),
      );
      this.forgetSettled(accountId, cleared);
      this.forget(this.staleSpend, accountId, stale);
      const spend =
        caps && keySpendOf(spendOf(Attributes ?? {}, itemName(this.table.table, key)), caps.keyId, base.now);
      return {
        outcome: 'admitted',
        window: { ...base, currentCount: this.after(windowAfterWrite, key, Attributes).windowCount },
        ...(entry ? { balance: this.after(balanceAfterWrite, key, Attributes).balance, entry } : {}),
        ...(spend ? { spend } : {}),
      };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * A key use outside an admission (account reads): on the balance item, where key uses live; an
   * item without a key-use map (written before they moved there) is left for the next admission.
   */
  private async recordKeyUse(accountId: string, keyUse: { keyId: string; at: string }): Promise<void> {
    const update = new UpdateExpression();
    update
      .set(`keyUse.${update.name(keyUse.keyId)} = ${update.value(keyUse.at)}`)
      .when('attribute_exists(keyUse)');
    try {
      await this.table.client.update(update.input(this.table.table, itemKeys.balance(accountId)));
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** The first request of an account whose balance item an interrupted creation never wrote. */
  private async create(request: AdmissionRequest, base: WindowBase): Promise<Admission | undefined> {
    try {
      await this.table.client.put({
        TableName: this.table.table,
        Item: {
          ...itemKeys.balance(request.accountId),
          type: itemTypes.balance,
          accountId: request.accountId,
          balance: 0,
          granted: 0,
          inflight: {},
          keyUse: request.keyUse ? { [request.keyUse.keyId]: request.keyUse.at } : {},
          windowStart: base.windowStart,
          windowCount: 1,
          previousCount: base.previousCount,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      return { outcome: 'admitted', window: { ...base, currentCount: 1 } };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Gives the cost back if the request is in flight and not refunded yet: at most once. */
  private async returnCost(
    entry: InflightEntry,
    refund: { refundReason?: string; httpStatus?: number; settledAt?: string },
  ): Promise<SettleResult> {
    const update = new UpdateExpression();
    const path = `inflight.${update.name(entry.requestId)}`;
    update
      .set(
        `balance = balance + ${update.value(entry.cost)}`,
        `${path}.r = ${update.value(refund.refundReason ?? 'refunded')}`,
        `${path}.s = ${update.value(refund.settledAt ?? new Date().toISOString())}`,
        ...(refund.httpStatus === undefined ? [] : [`${path}.h = ${update.value(refund.httpStatus)}`]),
      )
      .when(`attribute_exists(${path})`, `attribute_not_exists(${path}.r)`);
    const { keyId } = entry;
    if (entry.capped && keyId) {
      // Back to the periods it was taken from; one a later admission removed as past comes back at
      // 0, and goes again with the next removal.
      const cost = update.value(entry.cost);
      for (const period of Object.values(spendPeriods(entry.createdAt))) {
        const name = update.name(spendName(keyId, period));
        update.set(`${name} = if_not_exists(${name}, ${cost}) - ${cost}`);
      }
    }
    const key = itemKeys.balance(entry.accountId);
    try {
      const { Attributes } = await this.table.client.update(
        update.input(this.table.table, key, 'UPDATED_NEW'),
      );
      const balance = this.after(balanceAfterWrite, key, Attributes).balance;
      if (!entry.capped || !keyId) return { refunded: true, balance };
      const spent = spendOf(Attributes ?? {}, itemName(this.table.table, key));
      return { refunded: true, balance, spend: keySpendOf(spent, keyId, entry.createdAt) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { refunded: false, balance: (await this.read(entry.accountId))?.balance ?? 0 };
    }
  }

  private async clearEntries(accountId: string, requestIds: readonly string[]): Promise<void> {
    const update = new UpdateExpression();
    for (const requestId of requestIds) update.remove(`inflight.${update.name(requestId)}`);
    await this.table.client.update(update.input(this.table.table, itemKeys.balance(accountId)));
  }

  /** Writes a ledger item; with `onlyNew`, false when one was there already. */
  private async putLedger(entry: LedgerEntry, onlyNew: boolean): Promise<boolean> {
    try {
      await this.table.client.put({
        TableName: this.table.table,
        Item: { ...ledgerKey(entry), type: itemTypes.ledger, ...entry },
        ...(onlyNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
      });
      return true;
    } catch (error) {
      if (onlyNew && isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async getLedger(entry: InflightEntry): Promise<LedgerEntry | undefined> {
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: ledgerKey(entry),
      ConsistentRead: true,
    });
    return Item ? this.toLedgerEntry(Item) : undefined;
  }

  /** In-flight entries of the item that are neither refunded nor charged by a ledger item. */
  private async pending(item: BalanceItem): Promise<InflightEntry[]> {
    return (await this.classify(item)).filter(({ held }) => !held).map(({ entry }) => entry);
  }

  /**
   * Each in-flight entry with its settlement as far as the item and the ledger tell: `held` is a
   * refund noted on the entry, or the ledger item's charge; undefined while pending.
   */
  private async classify(item: BalanceItem) {
    const entries = heldEntries(this.table.table, item);
    const ledgered = await Promise.all(
      entries.map(({ entry, refunded }) => (refunded ? undefined : this.getLedger(entry))),
    );
    return entries.map(({ entry, refunded }, index) => {
      const charged = ledgered[index]?.status === 'charged' ? ledgered[index] : undefined;
      const held: LedgerEntry | undefined = refunded ?? charged;
      return { entry, held };
    });
  }

  private async read(accountId: string): Promise<BalanceItem | undefined> {
    const item = await this.readItem(accountId);
    return item && decodeBalanceItem(this.table.table, item);
  }

  /** The balance item as stored, journal notes included. */
  private async readItem(accountId: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.table.client.get({
      TableName: this.table.table,
      Key: itemKeys.balance(accountId),
      ConsistentRead: true,
    });
    return Item;
  }

  /** The values a write of the balance item returned, decoded. */
  private after<T>(
    codec: { decode(fields: Record<string, unknown>, item: string): T },
    key: ItemKey,
    attributes: Record<string, unknown> | undefined,
  ): T {
    return codec.decode(attributes ?? {}, itemName(this.table.table, key));
  }

  private toLedgerEntry(item: Record<string, unknown>): LedgerEntry {
    return ledgerEntryRecord.decode(item, itemName(this.table.table, item));
  }

  private markSettled(entry: InflightEntry): void {
    const ids = this.settled.get(entry.accountId) ?? new Set<string>();
    ids.add(entry.requestId);
    this.remember(this.settled, entry.accountId, ids);
  }

  private forgetSettled(accountId: string, requestIds: readonly string[]): void {
    this.forget(this.settled, accountId, requestIds);
  }

  private forget(map: Map<string, Set<string>>, accountId: string, names: readonly string[]): void {
    const known = map.get(accountId);
    if (!known) return;
    for (const name of names) known.delete(name);
    if (known.size === 0) map.delete(accountId);
  }

  private noteStaleSpend(accountId: string, item: BalanceItem, now: number): void {
    const stale = staleSpendNames(item.spend, now);
    if (stale.length > 0) this.remember(this.staleSpend, accountId, new Set(stale));
  }

  /** Bounded per-process memory: when full it starts over (reconcile clears what is forgotten). */
  private remember<T>(map: Map<string, T>, accountId: string, value: T): void {
    if (!map.has(accountId) && map.size >= MAX_TRACKED_ACCOUNTS) map.clear();
    map.set(accountId, value);
  }
}

/**
 * Why an item whose window has room cannot admit a billed request: one of the key's spend caps, or
 * the balance; undefined when it can.
 */
function refusal(request: AdmissionRequest, item: BalanceItem, window: WindowState): Admission | undefined {
  const { cost } = request;
  if (cost <= 0) return undefined;
  const caps = isCapped(request.caps) ? request.caps : undefined;
  const spend = caps && keySpendOf(item.spend, caps.keyId, window.now);
  const cap = caps && spend && capRefusal(caps, spend, cost);
  if (cap) return { outcome: 'insufficient_credits', window, balance: item.balance, cap, spend };
  if (item.balance < cost)
    return { outcome: 'insufficient_credits', window, balance: item.balance, ...(spend ? { spend } : {}) };
  return undefined;
}

/**
 * Adds the cost to the key's spend of the day and month of `now`, on condition that each stays
 * within its cap; returns the attributes it sets.
 */
function countSpend(
  update: UpdateExpression,
  caps: NonNullable<AdmissionRequest['caps']>,
  cost: number,
  now: number,
): string[] {
  const { day, month } = spendPeriods(now);
  const amount = update.value(cost);
  const zero = update.value(0);
  const periods = [
    { attribute: spendName(caps.keyId, day), cap: caps.dailyCreditCap },
    { attribute: spendName(caps.keyId, month), cap: caps.monthlyCreditCap },
  ];
  for (const { attribute, cap } of periods) {
    const name = update.name(attribute);
    update.set(`${name} = if_not_exists(${name}, ${zero}) + ${amount}`);
    if (cap === null) continue;
    const room = update.value(cap - cost);
    // A cap smaller than the cost has no room even before any spend.
    update.when(cap >= cost ? `(attribute_not_exists(${name}) OR ${name} <= ${room})` : `${name} <= ${room}`);
  }
  return periods.map(({ attribute }) => attribute);
}

/** Sorts after every ledger item's sort key (`$` follows `#`). */
const LEDGER_END = `${itemKeys.ledgerPrefix.slice(0, -1)}$`;

function ledgerKey(entry: { accountId: string; createdAt: string; requestId: string }) {
  return itemKeys.ledger(entry.accountId, entry.createdAt, entry.requestId);
}

/** A pending entry, or a settled one, as a ledger entry. */
function asLedgerEntry(entry: InflightEntry | LedgerEntry): LedgerEntry {
  if ('status' in entry) return entry;
  const { capped: _spendBookkeeping, ...pending } = entry;
  return { ...pending, status: 'pending' };
}
