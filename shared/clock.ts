/**
 * Time as a dependency. Tests inject a clock they move by hand: fake timers would also freeze the
 * in-process servers (dynalite, SMTP, DNS) the tests talk to.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

let lastIso = { ms: Number.NaN, text: '' };

/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond asked: the requests a busy
 * process answers within one millisecond stamp their entries with the same text.
 */
export function isoTime(ms: number): string {
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}
