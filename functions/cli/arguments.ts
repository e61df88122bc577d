/**
 * Strict parsers for the operator CLI's arguments. Each throws commander's InvalidArgumentError, so
 * a bad value is refused with one line before the store is opened.
 */
import { userInfo } from 'node:os';
import { InvalidArgumentError } from 'commander';
import * as z from 'zod';
import { type Family, families } from '../../schemas/operation-definition.js';

/** A parser for whole numbers in [min, max]; `Number()` alone would accept "1e3", " 12" and "0x1f". */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}, got "${text}".`);
    }
    return value;
  };
}

/** A non-zero whole number with an optional sign, such as a credit adjustment ("-5", "+20"). */
export function signedInteger(text: string): number {
  const value = Number(text);
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(value) || value === 0) {
    throw new InvalidArgumentError(`Expected a non-zero whole number such as 25 or -5, got "${text}".`);
  }
  return value;
}

/** Comma-separated operation families, as the API checks them against `key.scopes`. */
export function scopes(text: string): Family[] {
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(families as readonly string[]).includes(name));
  if (unknown.length > 0) {
    const listed = unknown.map((name) => `"${name}"`).join(', ');
    throw new InvalidArgumentError(`Unknown scope ${listed}; expected any of ${families.join(', ')}.`);
  }
  return [...new Set(names as Family[])];
}

const isoInstant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

/**
 * An ISO 8601 date (midnight UTC) or date-time with `Z` or an offset, normalized to UTC as the
 * stores write times; a date-time without an offset would depend on the machine's zone.
 */
export function instant(text: string): string {
  if (!isoInstant.safeParse(text).success) {
    throw new InvalidArgumentError(
      `Expected an ISO 8601 date (2025-01-31, midnight UTC) or date-time with Z or an offset, got "${text}".`,
    );
  }
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError(`${text} is not a date that exists.`);
  return at.toISOString();
}

/** An ISO 8601 date or date-time in the future, stored normalized to UTC. */
export function futureInstant(text: string): string {
  const at = new Date(instant(text));
  // An already expired key could never authenticate: refuse it rather than issue a dead key.
  if (at.getTime() <= Date.now()) throw new InvalidArgumentError(`${text} is not in the future.`);
  return at.toISOString();
}

/** `--since` before `--until`, or no range at all: an empty range is a mistake, not a query. */
export function checkRange(range: { since?: string; until?: string }): void {
  if (range.since !== undefined && range.until !== undefined && range.since >= range.until) {
    throw new InvalidArgumentError(
      `--since (${range.since}) must be before --until (${range.until}); --since is inclusive, --until exclusive.`,
    );
  }
}

/** The operator recorded as the actor of a change: `cli:<name>`. */
export function actor(name: string): string {
  return `cli:${text(name)}`;
}

/** The OS user running the CLI, the actor when `--actor` is not given. */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers).
    return process.env.USER ?? 'unknown';
  }
}

/** Free text such as a name or a label; blank would be indistinguishable in listings. */
export function text(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new InvalidArgumentError('Expected some text, got nothing.');
  return trimmed;
}
