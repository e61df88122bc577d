/**
 * Per-account rolling request ceiling: a sliding window estimated over two fixed windows.
 *
 *   estimate = previousCount × (1 − elapsedFraction) + currentCount
 *
 * The closed previous window never changes again, so its count is read once and cached in memory.
 * The current window is counted by one conditional write whose condition is the allowance left by
 * the previous window's weight, so a limit of N admits exactly N however many requests race.
 * The limiter fails open: when the store cannot answer, the request passes and the denial is logged.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitSetting } from '../accounts/accounts.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { isConditionFailure, type Store } from '../store/dynamo.js';
import { itemKeys, itemTypes } from '../store/keys.js';

export interface RateDecision {
  allowed: boolean;
  reason: 'within_limit' | 'limit_exceeded' | 'limiter_unavailable';
  limit: number;
  /** Requests still admitted now; absent when the limiter could not count. */
  remaining?: number;
  /** Whole seconds until the current window ends (its count resets), rounded up. */
  resetSeconds?: number;
  /** On denial: whole seconds (at least 1) until one more request would be admitted. */
  retryAfterSeconds?: number;
}

export interface WindowState {
  limit: number;
  windowMs: number;
  windowStart: number;
  now: number;
  previousCount: number;
  currentCount: number;
}

/** Requests the current window may hold in total at `now`, given the previous window's weight. */
export function currentAllowance(state: Omit<WindowState, 'currentCount'>): number {
  const elapsed = (state.now - state.windowStart) / state.windowMs;
  return Math.floor(state.limit - state.previousCount * (1 - elapsed));
}

/**
 * Whole seconds until the current window ends, rounded up: when its count resets. Never more than
 * the window's length; `Retry-After` (secondsUntilAdmission) says when one more request fits.
 */
export function secondsUntilReset(state: WindowState): number {
  return Math.ceil((state.windowStart + state.windowMs - state.now) / 1000);
}

/** Whole seconds (at least 1) until the estimate leaves room for one more request. */
export function secondsUntilAdmission(state: WindowState): number {
  const { limit, windowMs, windowStart, now, previousCount, currentCount } = state;
  let admitAt: number;
  if (previousCount > 0 && currentCount + 1 <= limit) {
    // Still in this window, once the previous window's weight has shrunk enough.
    admitAt = windowStart + windowMs * (1 - (limit - currentCount - 1) / previousCount);
  } else {
    // In the next window, where this window's count becomes the weighted previous one.
    const fraction = currentCount > 0 ? Math.max(0, 1 - (limit - 1) / currentCount) : 0;
    admitAt = windowStart + windowMs + windowMs * fraction;
  }
  return Math.max(1, Math.ceil((admitAt - now) / 1000));
}

const MAX_CACHED_WINDOWS = 10_000;

export class RollingWindowLimiter {
  private readonly closedWindows = new Map<string, Promise<number>>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async consume(accountId: string, setting: RateLimitSetting): Promise<RateDecision> {
    const now = this.clock.now();
    const windowMs = setting.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    try {
      const previousCount = await this.closedWindowCount(accountId, windowStart - windowMs);
      const base = { limit: setting.limit, windowMs, windowStart, now, previousCount };
      const allowance = currentAllowance(base);
      const admittedCount = allowance > 0 ? await this.increment(accountId, base, allowance) : undefined;
      if (admittedCount !== undefined) {
        const state = { ...base, currentCount: admittedCount };
        return {
          allowed: true,
          reason: 'within_limit',
          limit: setting.limit,
          remaining: Math.max(0, allowance - admittedCount),
          resetSeconds: secondsUntilReset(state),
        };
      }
      const state = { ...base, currentCount: await this.count(accountId, windowStart) };
      const decision: RateDecision = {
        allowed: false,
        reason: 'limit_exceeded',
        limit: setting.limit,
        remaining: 0,
        resetSeconds: secondsUntilReset(state),
        retryAfterSeconds: secondsUntilAdmission(state),
      };
      this.logger.info(
        { accountId, reason: decision.reason, retryAfterSeconds: decision.retryAfterSeconds },
        'rate limit denial',
      );
      return decision;
    } catch (error) {
      this.logger.warn({ err: error, accountId, reason: 'limiter_unavailable' }, 'rate limiter failed open');
      return { allowed: true, reason: 'limiter_unavailable', limit: setting.limit };
    }
  }

  /** Adds one request if the window holds fewer than `allowance`; the new count, or undefined. */
  private async increment(
    accountId: string,
    window: { windowStart: number; windowMs: number },
    allowance: number,
  ): Promise<number | undefined> {
    try {
      const { Attributes } = await this.store.doc.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: itemKeys.rateWindow(accountId, window.windowStart),
          UpdateExpression:
            'ADD #count :one SET #type = :type, expiresAt = if_not_exists(expiresAt, :expiresAt)',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :allowance',
          ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':allowance': allowance,
            ':type': itemTypes.rateWindow,
            // Kept while it can still be the previous window; TTL is seconds since the epoch.
            ':expiresAt': Math.ceil((window.windowStart + 3 * window.windowMs) / 1000),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Attributes?.count as number;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  private async count(accountId: string, windowStart: number): Promise<number> {
    const { Item } = await this.store.doc.send(
      new GetCommand({
        TableName: this.store.table,
        Key: itemKeys.rateWindow(accountId, windowStart),
        ConsistentRead: true,
      }),
    );
    return (Item?.count as number | undefined) ?? 0;
  }

  /** Cached as a promise, so the burst of requests at a window's start reads it once. */
  private closedWindowCount(accountId: string, windowStart: number): Promise<number> {
    const cacheKey = `${accountId}:${windowStart}`;
    const cached = this.closedWindows.get(cacheKey);
    if (cached !== undefined) return cached;
    if (this.closedWindows.size >= MAX_CACHED_WINDOWS) this.closedWindows.clear();
    const count = this.count(accountId, windowStart);
    this.closedWindows.set(cacheKey, count);
    // A failed read is not a fact about the window: forget it so the next request asks again.
    count.catch(() => this.closedWindows.delete(cacheKey));
    return count;
  }
}
