/**
 * What the dataset generator's stages share: the seeded random source, the register of issued
 * identifiers (so planted and generated records never collide), the dataset clock, and the text
 * helpers that turn names into slugs. Everything here is deterministic for a given seed.
 */
import { asciiSpelling } from '../../text/ascii-spelling.js';
import type { LocationRecord } from './model.js';
import type { Random } from './random.js';
import { LOCATIONS } from './vocabulary.js';

/** The dataset's "now": every post, comment, reaction and job lies before it. */
export const NOW = Date.parse('2026-11-20T12:00:00.000Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** Months since year 0 (January = 0), the unit of career dates. */
export const NOW_MONTH = 2026 * 12 + 10;

export const DIGITS = '0123456789';
export const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface GenerationContext {
  /** The dataset's seed, for stages that draw from streams of their own. */
  seed: number;
  rng: Random;
  /** Issued identifiers, namespaced by kind ("username:…", "company-id:…"). */
  issued: Set<string>;
  locations: ReadonlyMap<string, LocationRecord>;
}

/** Claims an identifier planted by hand; a clash is a bug in the planted data. */
export function reserve(ctx: GenerationContext, kind: string, value: string): string {
  const key = `${kind}:${value}`;
  if (ctx.issued.has(key)) throw new Error(`The dataset plants ${kind} ${value} twice`);
  ctx.issued.add(key);
  return value;
}

/** Draws candidates until one is free; `make` gets the attempt number for suffix-style fallbacks. */
export function issue(ctx: GenerationContext, kind: string, make: (attempt: number) => string): string {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const value = make(attempt);
    if (!ctx.issued.has(`${kind}:${value}`)) return reserve(ctx, kind, value);
  }
  throw new Error(`The dataset ran out of fresh ${kind} values`);
}

export const activityId = (ctx: GenerationContext) =>
  issue(ctx, 'activity', () => `7${ctx.rng.chars(DIGITS, 18)}`);

export function locationById(ctx: GenerationContext, id: string): LocationRecord {
  const location = ctx.locations.get(id);
  if (!location) throw new Error(`The dataset has no location ${id}`);
  return location;
}

/** The location id of a city of the vocabulary; planted records name cities for readability. */
export function cityId(city: string): string {
  const seed = LOCATIONS.find((location) => location.city === city);
  if (!seed) throw new Error(`The dataset has no city ${city}`);
  return seed.id;
}

export const iso = (ms: number) => new Date(ms).toISOString();

export const yearMonth = (month: number, withMonth = true) => ({
  year: Math.floor(month / 12),
  month: withMonth ? (month % 12) + 1 : null,
});

export const pad = (index: number) => String(index + 1).padStart(5, '0');

/** Fills {placeholders}; a missing value is a bug in the template table. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`No value for {${name}} in "${template}"`);
    return value;
  });
}

/** Lowercase ASCII words joined by hyphens: "Zoë Müller" → "zoe-muller", "Мария" → "mariya". */
export function asciiSlug(text: string): string {
  return asciiSpelling(text)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
