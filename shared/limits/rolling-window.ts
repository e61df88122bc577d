/**
 * Per-account rolling request ceiling: a sliding window estimated over two fixed windows.
 *
 *   estimate = previousCount × (1 − elapsedFraction) + currentCount
 *
 * The arithmetic lives here; the counting lives in the billing port (shared/billing/billing-store.ts),
 * whose adapters admit a request in the same atomic write that checks the balance, with the
 * allowance below as the write's condition, so a limit of N admits exactly N however many race.
 */
import type { RateLimitSetting } from '../accounts/accounts.js';

export interface RateDecision {
  allowed: boolean;
  reason: 'within_limit' | 'limit_exceeded' | 'limiter_unavailable';
  limit: number;
  /** Requests still admitted now; absent when the limiter could not count. */
  remaining?: number;
  /** Whole seconds until the current fixed window ends, rounded up (never more than its length). */
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

/** The fixed window `now` falls in. */
export function windowStartAt(now: number, setting: RateLimitSetting): number {
  const windowMs = setting.windowSeconds * 1000;
  return Math.floor(now / windowMs) * windowMs;
}

/** A window as a store keeps it: the current fixed window's start and count, and the count before it. */
export interface StoredWindow {
  /** Absent before the first request counted. */
  windowStart?: number;
  windowCount: number;
  previousCount: number;
}

/** The window fields of a stored record that holds more (a balance row or item), and nothing else. */
export function storedWindowOf(record: StoredWindow): StoredWindow {
  const { windowStart, windowCount, previousCount } = record;
  return { windowStart, windowCount, previousCount };
}

/**
 * The window `now` counts in, from what a store holds: the stored window if it is the current one
 * (or later: another process's clock is ahead, and its window stands), the stored count as the
 * previous window's if that one just closed, nothing otherwise. Counts nothing itself.
 */
export function windowAt(
  stored: StoredWindow | undefined,
  setting: RateLimitSetting,
  now: number,
): WindowState {
  const windowMs = setting.windowSeconds * 1000;
  let windowStart = windowStartAt(now, setting);
  let at = now;
  if (stored?.windowStart !== undefined && stored.windowStart > windowStart) {
    windowStart = stored.windowStart;
    at = Math.max(now, windowStart);
  }
  const sameWindow = stored?.windowStart === windowStart;
  const previousCount = sameWindow
    ? (stored?.previousCount ?? 0)
    : stored?.windowStart === windowStart - windowMs
      ? (stored?.windowCount ?? 0)
      : 0;
  const currentCount = sameWindow ? (stored?.windowCount ?? 0) : 0;
  return { limit: setting.limit, windowMs, windowStart, now: at, previousCount, currentCount };
}

/** What is left of a window without counting a request: `X-RateLimit-Remaining` and `-Reset` before one. */
export function windowStanding(state: WindowState): {
  limit: number;
  remaining: number;
  resetSeconds: number;
} {
  return {
    limit: state.limit,
    remaining: Math.max(0, currentAllowance(state) - state.currentCount),
    resetSeconds: secondsUntilReset(state),
  };
}

/** Requests the current window may hold in total at `now`, given the previous window's weight. */
export function currentAllowance(state: Omit<WindowState, 'currentCount'>): number {
  const elapsed = (state.now - state.windowStart) / state.windowMs;
  return Math.floor(state.limit - state.previousCount * (1 - elapsed));
}

/**
 * Whole seconds until the current fixed window ends: when this window's count starts over. The
 * estimate may still weigh this window after that, which `Retry-After` accounts for.
 */
export function secondsUntilReset(state: Pick<WindowState, 'windowStart' | 'windowMs' | 'now'>): number {
  const left = Math.ceil((state.windowStart + state.windowMs - state.now) / 1000);
  return Math.min(Math.max(left, 0), Math.ceil(state.windowMs / 1000));
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

/** The answer to an admitted request; `state.currentCount` includes it. */
export function admitted(state: WindowState): RateDecision {
  return {
    allowed: true,
    reason: 'within_limit',
    limit: state.limit,
    remaining: Math.max(0, currentAllowance(state) - state.currentCount),
    resetSeconds: secondsUntilReset(state),
  };
}

/** The answer to a request the window has no room for. */
export function limitExceeded(state: WindowState): RateDecision {
  return {
    allowed: false,
    reason: 'limit_exceeded',
    limit: state.limit,
    remaining: 0,
    resetSeconds: secondsUntilReset(state),
    retryAfterSeconds: secondsUntilAdmission(state),
  };
}

/** The limiter fails open: when the store cannot count, the request passes (and is logged). */
export function limiterUnavailable(setting: RateLimitSetting): RateDecision {
  return { allowed: true, reason: 'limiter_unavailable', limit: setting.limit };
}
