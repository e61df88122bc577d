/**
 * Time as a dependency. Tests inject a clock they move by hand: fake timers would also freeze the
 * in-process servers (dynalite, SMTP, DNS) the tests talk to.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
