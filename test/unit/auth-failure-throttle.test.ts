/**
 * The per-address throttle of refused credentials: its sliding window, its Retry-After, which
 * addresses count together, and its off switch. Over HTTP: auth-failure-throttle.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { AuthFailureThrottle } from '../../shared/http/auth-failure-throttle.js';
import { ManualClock } from '../support/manual-clock.js';

const fill = (throttle: AuthFailureThrottle, address: string, count: number) => {
  for (let index = 0; index < count; index++) throttle.recordFailure(address);
};

describe('AuthFailureThrottle', () => {
  it('refuses an address at the limit until its oldest failure leaves the window', () => {
    const clock = new ManualClock();
    const throttle = new AuthFailureThrottle({ limit: 3, windowMs: 60_000, clock });
    throttle.recordFailure('192.0.2.1');
    clock.advance(10_000);
    fill(throttle, '192.0.2.1', 1);
    expect(throttle.retryAfterSeconds('192.0.2.1')).toBeUndefined();
    fill(throttle, '192.0.2.1', 1);
    expect(throttle.retryAfterSeconds('192.0.2.1')).toBe(50);
    clock.advance(49_500);
    expect(throttle.retryAfterSeconds('192.0.2.1')).toBe(1);
    clock.advance(500);
    expect(throttle.retryAfterSeconds('192.0.2.1')).toBeUndefined();
    // One more failure refuses it again, until the next oldest (10 s later) leaves the window.
    throttle.recordFailure('192.0.2.1');
    expect(throttle.retryAfterSeconds('192.0.2.1')).toBe(10);
  });

  it.each([
    ['another IPv4 address', '192.0.2.1', '192.0.2.2', false] as const,
    ['the same IPv4 address mapped into IPv6', '192.0.2.1', '::ffff:192.0.2.1', true],
    ['another address in the same IPv6 /64', '2001:db8:1:2::1', '2001:db8:1:2:ffff::9', true],
    ['an address in another IPv6 /64', '2001:db8:1:2::1', '2001:db8:1:3::1', false],
  ])('counts %s with the failing one: %s', (_, failing, other, shared) => {
    const throttle = new AuthFailureThrottle({ limit: 2, windowMs: 60_000, clock: new ManualClock() });
    fill(throttle, failing, 2);
    expect(throttle.retryAfterSeconds(other) !== undefined).toBe(shared);
  });

  it('never refuses with a limit of 0, nor an address it cannot read', () => {
    const off = new AuthFailureThrottle({ limit: 0, windowMs: 60_000, clock: new ManualClock() });
    fill(off, '192.0.2.1', 100);
    expect(off.retryAfterSeconds('192.0.2.1')).toBeUndefined();
    const on = new AuthFailureThrottle({ limit: 1, windowMs: 60_000, clock: new ManualClock() });
    fill(on, 'not an address', 5);
    expect(on.retryAfterSeconds('not an address')).toBeUndefined();
    expect(on.retryAfterSeconds(undefined)).toBeUndefined();
  });
});
