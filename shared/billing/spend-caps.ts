/**
 * Spend caps per API key: at most so many credits per UTC day and per UTC month, for people who hand
 * a key to an agent or a script. The caps are checked by the billing port's `admit` in the same atomic
 * step as the rate window and the balance (billing-store.ts), against the key's spend in the day and
 * month of the admission; a refund gives the cost back to the periods the entry was admitted in.
 * This module holds the rules both adapters and the pipeline share: the periods of a time, which cap
 * a call would break, and what a key may still spend.
 */

/** A key's caps as admission enforces them; null: no cap for that period. */
export interface SpendCaps {
  keyId: string;
  dailyCreditCap: number | null;
  monthlyCreditCap: number | null;
}

/** Credits a key spent in the UTC day and month of a time (refunds given back). */
export interface KeySpend {
  /** `YYYY-MM-DD` */
  day: string;
  dailySpent: number;
  /** `YYYY-MM` */
  month: string;
  monthlySpent: number;
}

export type CapPeriod = 'daily' | 'monthly';

/** The cap a call does not fit in: which one, its size, what is left and when it starts over. */
export interface CapRefusal {
  period: CapPeriod;
  cap: number;
  left: number;
  /** ISO 8601: the start of the next UTC day or month. */
  resetsAt: string;
}

/** Whether the key has any cap: only then is its spend counted. */
export function isCapped(caps: SpendCaps | undefined): caps is SpendCaps {
  return caps !== undefined && (caps.dailyCreditCap !== null || caps.monthlyCreditCap !== null);
}

/** The UTC day (`YYYY-MM-DD`) and month (`YYYY-MM`) of a time in ms or ISO 8601. */
export function spendPeriods(at: number | string): { day: string; month: string } {
  const day = new Date(at).toISOString().slice(0, 10);
  return { day, month: day.slice(0, 7) };
}

/**
 * The cap `cost` more credits would go over, or undefined when both have room. When both are over,
 * the monthly cap is named: the call fits no sooner than the month starts over.
 */
export function capRefusal(caps: SpendCaps, spend: KeySpend, cost: number): CapRefusal | undefined {
  const { daily, monthly } = capStanding(caps, spend);
  if (monthly && monthly.left < cost) return { period: 'monthly', ...monthly };
  if (daily && daily.left < cost) return { period: 'daily', ...daily };
  return undefined;
}

/** One cap as it stands: its size, what is left of it and when it starts over. */
export type CapState = Omit<CapRefusal, 'period'>;

/** Each of the key's caps as it stands after `spend` (null: no cap for that period). */
export function capStanding(
  caps: Omit<SpendCaps, 'keyId'>,
  spend: KeySpend,
): { daily: CapState | null; monthly: CapState | null } {
  const [year, month, day] = spend.day.split('-').map(Number) as [number, number, number];
  const state = (cap: number | null, spent: number, resetsAt: Date): CapState | null =>
    cap === null ? null : { cap, left: Math.max(cap - spent, 0), resetsAt: resetsAt.toISOString() };
  return {
    daily: state(caps.dailyCreditCap, spend.dailySpent, new Date(Date.UTC(year, month - 1, day + 1))),
    monthly: state(caps.monthlyCreditCap, spend.monthlySpent, new Date(Date.UTC(year, month, 1))),
  };
}

/** What the key may still spend: the least of the balance and what each of its caps has left. */
export function spendable(balance: number, caps: SpendCaps | undefined, spend: KeySpend | undefined): number {
  if (!isCapped(caps) || !spend) return balance;
  const left = [balance];
  if (caps.dailyCreditCap !== null) left.push(caps.dailyCreditCap - spend.dailySpent);
  if (caps.monthlyCreditCap !== null) left.push(caps.monthlyCreditCap - spend.monthlySpent);
  return Math.max(Math.min(...left), 0);
}
