/**
 * The sliding-window arithmetic, as a table: allowance, reset and Retry-After at boundaries.
 */
import { describe, expect, it } from 'vitest';
import {
  currentAllowance,
  secondsUntilAdmission,
  secondsUntilReset,
  type WindowState,
} from '../../shared/limits/rolling-window.js';

const window = (over: Partial<WindowState>): WindowState => ({
  limit: 10,
  windowMs: 60_000,
  windowStart: 0,
  now: 0,
  previousCount: 0,
  currentCount: 0,
  ...over,
});

describe('currentAllowance', () => {
  it.each([
    ['an empty previous window leaves the whole limit', window({}), 10],
    ['a full previous window at the start leaves nothing', window({ previousCount: 10 }), 0],
    ['a full previous window halfway leaves half', window({ previousCount: 10, now: 30_000 }), 5],
    ['weights round down (never admit more than the limit)', window({ previousCount: 3, now: 20_000 }), 8],
    ['the last millisecond still weighs the previous window', window({ previousCount: 10, now: 59_999 }), 9],
  ])('%s', (_, state, expected) => {
    expect(currentAllowance(state)).toBe(expected);
  });
});

describe('secondsUntilReset', () => {
  it.each([
    ['at the start of a window: its whole length', window({}), 60],
    [
      'whatever the previous window counted: the end of this one',
      window({ previousCount: 4, now: 15_000 }),
      45,
    ],
    ['whatever this window counted: the end of this one', window({ currentCount: 9, now: 15_000 }), 45],
    ['rounds up to whole seconds', window({ currentCount: 1, now: 15_500 }), 45],
    ['the last millisecond still counts as one second', window({ now: 59_999 }), 1],
    ['never more than the window, whatever the clock', window({ now: -5_000 }), 60],
  ])('%s', (_, state, expected) => {
    expect(secondsUntilReset(state)).toBe(expected);
  });
});

describe('secondsUntilAdmission', () => {
  it.each([
    [
      'full this window with no previous: when the next window has weighed enough',
      window({ currentCount: 10, now: 30_000 }),
      36,
    ],
    [
      'previous window full, nothing now: as soon as its weight drops by one',
      window({ previousCount: 10, now: 0 }),
      6,
    ],
    ['never less than one second', window({ previousCount: 10, now: 5_999 }), 1],
    [
      'a limit of one waits for the whole next window',
      window({ limit: 1, currentCount: 1, now: 30_000 }),
      90,
    ],
  ])('%s', (_, state, expected) => {
    expect(secondsUntilAdmission(state)).toBe(expected);
  });

  it('admits at the moment it names', () => {
    const state = window({ previousCount: 10, currentCount: 3, now: 12_000 });
    const wait = secondsUntilAdmission(state);
    const later = { ...state, now: state.now + wait * 1000 };
    const earlier = { ...state, now: state.now + (wait - 1) * 1000 };
    expect(currentAllowance(later)).toBeGreaterThan(state.currentCount);
    expect(currentAllowance(earlier)).toBeLessThanOrEqual(state.currentCount);
  });
});
