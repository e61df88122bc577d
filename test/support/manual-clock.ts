/**
 * The clock tests inject and move by hand.
 */
import type { Clock } from '../../shared/clock.js';

/** A clock the test moves by hand (fake timers would also freeze dynalite). */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 10, 23, 12, 0, 0)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}
