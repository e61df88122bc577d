/**
 * Strict parsers for the operator CLI's arguments. Each throws commander's InvalidArgumentError, so
 * a bad value is refused with one line before the store is opened.
 */
import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { type Family, families } from '../../schemas/catalog.js';

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

/** An ISO 8601 date or date-time in the future, stored normalized to UTC. */
export function futureInstant(text: string): string {
  if (!isoInstant.safeParse(text).success) {
    throw new InvalidArgumentError(`Expected an ISO 8601 date or date-time, got "${text}".`);
  }
  const at = new Date(text);
  // An already expired key could never authenticate: refuse it rather than issue a dead key.
  if (at.getTime() <= Date.now()) throw new InvalidArgumentError(`${text} is not in the future.`);
  return at.toISOString();
}

/** Free text such as a name or a label; blank would be indistinguishable in listings. */
export function text(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new InvalidArgumentError('Expected some text, got nothing.');
  return trimmed;
}
