/**
 * Credits, the rate window and the usage ledger as the pipeline and the operator CLI use them, over
 * the billing port (billing-store.ts). A billed request is two steps of the port:
 *
 *   1. admit   one atomic step: rate window has room, balance ≥ cost; the request goes in flight
 *   2. settle  keep the charge or give it back (at most once), and write the final ledger entry
 *
 * A crash between or within them leaves the request in flight; `reconcile` settles it later.
 * Credits come in by credit entries (grants and adjustments), each with time, actor and reason, so
 * the ledger explains the balance.
 * Billing fails closed (a store error on a billed request is thrown, and answered 503); the rate
 * limit fails open (a store error on a free request admits it, logged).
 */
import { randomUUID } from 'node:crypto';
import type { Attribution, RateLimitSetting } from '../accounts/accounts.js';
import { type Clock, isoTime } from '../clock.js';
import { admitted, limitExceeded, limiterUnavailable, type RateDecision } from '../limits/rolling-window.js';
import type { Logger } from '../logger.js';
import type {
  AccountReadRequest,
  AdmissionRequest,
  BalanceState,
  BatchItemRef,
  BillingStore,
  CreditEntry,
  CreditKind,
  CreditOutcome,
  InflightEntry,
  LedgerEntry,
  LedgerQuery,
  Transport,
  UsageQuery,
  UsageRow,
} from './billing-store.js';
import type { CapRefusal, KeySpend, SpendCaps } from './spend-caps.js';

export type {
  BalanceState,
  BatchItemRef,
  CreditEntry,
  CreditOutcome,
  InflightEntry,
  LedgerEntry,
  LedgerPosition,
  LedgerQuery,
  LedgerStatus,
  Transport,
  UsageQuery,
  UsageRow,
} from './billing-store.js';

export interface AdmissionInput {
  accountId: string;
  requestId: string;
  operation: string;
  cost: number;
  rateLimit: RateLimitSetting;
  keyUse?: { keyId: string; at: string };
  transport?: Transport;
  keyId?: string;
  /** The batch item the call runs for (see `InflightEntry.batchItem`). */
  batchItem?: BatchItemRef;
  caps?: SpendCaps;
  /** A free call's usage entry (`freeEntry`), written with the admission where the store can. */
  usage?: LedgerEntry;
}

/**
 * `spend`: a capped key's spend after the admission (or as it refused); `cap`: the cap that refused;
 * `usageRecorded`: the input's `usage` entry was written with the admission (else the caller writes it).
 */
export type AdmissionDecision =
  | {
      outcome: 'admitted';
      rate: RateDecision;
      balance?: number;
      entry?: InflightEntry;
      spend?: KeySpend;
      usageRecorded?: boolean;
    }
  | { outcome: 'rate_limited'; rate: RateDecision }
  | {
      outcome: 'insufficient_credits';
      rate: RateDecision;
      balance: number;
      cap?: CapRefusal;
      spend?: KeySpend;
    };

export class CreditLedger {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Creates the balance of a new account; its starting credits are its first grant. */
  open(accountId: string, credits: number, by: Attribution): Promise<void> {
    return this.store.open(
      accountId,
      credits > 0 ? this.creditEntry(accountId, 'grant', credits, by) : undefined,
    );
  }

  /** Adds credits; the entry recorded, with the balance after it. */
  async grant(accountId: string, credits: number, by: Attribution): Promise<CreditEntry> {
    const granted = await this.store.credit(this.creditEntry(accountId, 'grant', credits, by));
    // A positive amount is always applied; only a negative one can find too small a balance.
    if (granted.outcome !== 'applied') throw new Error(`A grant of ${credits} credits was refused.`);
    return granted.entry;
  }

  /** Adds or takes away credits (a signed amount); refused when it would take the balance below 0. */
  adjust(accountId: string, amount: number, by: Attribution): Promise<CreditOutcome> {
    return this.store.credit(this.creditEntry(accountId, 'adjustment', amount, by));
  }

  /** Grants and adjustments, newest first. */
  credits(accountId: string): Promise<CreditEntry[]> {
    return this.store.credits(accountId);
  }

  state(accountId: string): Promise<BalanceState> {
    return this.store.state(accountId);
  }

  /** A key's spend in the current UTC day and month, for showing what is left of its caps. */
  keySpend(accountId: string, keyId: string): Promise<KeySpend> {
    return this.store.keySpend(accountId, keyId, this.clock.now());
  }

  entries(accountId: string, query?: LedgerQuery): Promise<LedgerEntry[]> {
    return this.store.entries(accountId, query);
  }

  usage(accountId: string, query: UsageQuery): Promise<UsageRow[]> {
    return this.store.usage(accountId, query);
  }

  /**
   * Counts an account read against the account reads' own window (never the lookups'); fails open
   * like the lookups' limiter, since an account read spends nothing.
   */
  async admitAccountRead(input: Omit<AccountReadRequest, 'now'>): Promise<RateDecision> {
    const { accountId, rateLimit } = input;
    try {
      const admission = await this.store.admitAccountRead({ ...input, now: this.clock.now() });
      if (admission.outcome === 'rate_limited') return this.limited({ accountId }, admission.window).rate;
      return admitted(admission.window);
    } catch (error) {
      this.logger.warn(
        { err: error, accountId, reason: 'limiter_unavailable' },
        'account-read limiter failed open',
      );
      return limiterUnavailable(rateLimit);
    }
  }

  /**
   * Counts the request against the rate window and, for a cost, takes it from the balance. The rate
   * limit answers first: a request over the ceiling is 429 whatever the balance, and a request the
   * balance cannot cover still counts against the ceiling.
   */
  async admit(input: AdmissionInput): Promise<AdmissionDecision> {
    const request: AdmissionRequest = { ...input, now: this.clock.now() };
    if (input.cost === 0) return this.admitFree(request);
    const admission = await this.store.admit(request);
    switch (admission.outcome) {
      case 'admitted':
        return {
          outcome: 'admitted',
          rate: admitted(admission.window),
          balance: admission.balance,
          entry: admission.entry,
          ...(admission.spend ? { spend: admission.spend } : {}),
        };
      case 'rate_limited':
        return this.limited(input, admission.window);
      case 'insufficient_credits': {
        const counted = await this.admitFree({ ...request, cost: 0 });
        if (counted.outcome === 'rate_limited') return counted;
        const { balance, cap, spend } = admission;
        return {
          outcome: 'insufficient_credits',
          rate: counted.rate,
          balance,
          ...(cap ? { cap } : {}),
          ...(spend ? { spend } : {}),
        };
      }
    }
  }

  /** Keeps the charge of an admitted request. */
  async charge(entry: InflightEntry, httpStatus: number): Promise<void> {
    await this.store.settle(entry, { status: 'charged', httpStatus, settledAt: this.nowIso() });
  }

  /** Gives the cost back, at most once; the balance after it. */
  refund(entry: InflightEntry, reason: string, httpStatus?: number) {
    return this.store.settle(entry, {
      status: 'refunded',
      refundReason: reason,
      httpStatus,
      settledAt: this.nowIso(),
    });
  }

  /** The usage entry of a free call; written again with the final status if that changes. */
  freeEntry(input: {
    requestId: string;
    accountId: string;
    operation: string;
    transport?: Transport;
    keyId?: string;
    batchItem?: BatchItemRef;
  }): LedgerEntry {
    const at = this.nowIso();
    return { ...input, cost: 0, status: 'charged', httpStatus: 200, createdAt: at, settledAt: at };
  }

  recordUsage(entry: LedgerEntry): Promise<void> {
    return this.store.recordUsage(entry);
  }

  /** Settles every request still in flight `olderThanMs` after its admission. */
  async reconcile(olderThanMs: number): Promise<{ settled: LedgerEntry[] }> {
    const now = this.clock.now();
    const cutoff = new Date(now - olderThanMs).toISOString();
    return { settled: await this.store.reconcile(cutoff, new Date(now).toISOString()) };
  }

  private async admitFree(request: AdmissionRequest): Promise<AdmissionDecision> {
    try {
      const admission = await this.store.admit(request);
      if (admission.outcome === 'rate_limited') return this.limited(request, admission.window);
      return {
        outcome: 'admitted',
        rate: admitted(admission.window),
        ...(admission.outcome === 'admitted' && admission.usageRecorded ? { usageRecorded: true } : {}),
      };
    } catch (error) {
      this.logger.warn(
        { err: error, accountId: request.accountId, reason: 'limiter_unavailable' },
        'rate limiter failed open',
      );
      return { outcome: 'admitted', rate: limiterUnavailable(request.rateLimit) };
    }
  }

  private limited(
    input: { accountId: string },
    window: Parameters<typeof limitExceeded>[0],
  ): AdmissionDecision {
    const rate = limitExceeded(window);
    this.logger.info(
      { accountId: input.accountId, reason: rate.reason, retryAfterSeconds: rate.retryAfterSeconds },
      'rate limit denial',
    );
    return { outcome: 'rate_limited', rate };
  }

  private creditEntry(accountId: string, kind: CreditKind, amount: number, by: Attribution): CreditEntry {
    return {
      entryId: `crd_${randomUUID().replaceAll('-', '')}`,
      accountId,
      kind,
      amount,
      actor: by.actor,
      ...(by.reason === undefined ? {} : { reason: by.reason }),
      createdAt: this.nowIso(),
    };
  }

  private nowIso(): string {
    return isoTime(this.clock.now());
  }
}
