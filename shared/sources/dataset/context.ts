/**
 * What the dataset generator's stages share: the seeded random source, the register of issued
 * identifiers (so planted and generated records never collide), the numbering of internal ids, the
 * dataset clock, and the text helpers that turn names into slugs. Everything here is deterministic
 * for a given seed.
 */
import { asciiSpelling } from '../../text/ascii-spelling.js';
import { IdentifierRegister } from './identifier-register.js';
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
  /** Issued identifiers by kind ("username", "company-id", …). */
  issued: Map<string, IdentifierRegister>;
  locations: ReadonlyMap<string, LocationRecord>;
  /** Digits of numbered internal ids ("person-00001"): enough for every record of the dataset. */
  idWidth: number;
  /** How many records of each numbered kind exist so far. */
  numbered: Map<NumberedKind, number>;
}

/** The kinds whose internal ids are numbered in creation order; the rest come from the vocabulary. */
export type NumberedKind = 'company' | 'job' | 'person' | 'post' | 'comment' | 'reaction';

/**
 * More records of any kind than the generator makes per profile (a person makes at most 30 posts,
 * 30 comments and 60 reactions; companies add a few posts and jobs per 50 profiles).
 */
const MAX_RECORDS_PER_PROFILE = 100;

/**
 * The id width for a dataset of `profiles` people: 5 digits for the sample (300), wider for larger
 * datasets, so ids compare as plain strings in creation order at any size.
 */
export const idWidthFor = (profiles: number) =>
  Math.max(5, String(MAX_RECORDS_PER_PROFILE * profiles).length);

/** The next internal id of a kind: "post-00001", "post-00002", … */
export function nextInternalId(ctx: GenerationContext, kind: NumberedKind): string {
  const number = (ctx.numbered.get(kind) ?? 0) + 1;
  ctx.numbered.set(kind, number);
  const digits = String(number);
  if (digits.length > ctx.idWidth)
    throw new Error(`The dataset has more ${kind} records than its id width allows`);
  return `${kind}-${digits.padStart(ctx.idWidth, '0')}`;
}

function registerOf(ctx: GenerationContext, kind: string): IdentifierRegister {
  let register = ctx.issued.get(kind);
  if (!register) {
    register = new IdentifierRegister();
    ctx.issued.set(kind, register);
  }
  return register;
}

/** Claims an identifier planted by hand; a clash is a bug in the planted data. */
export function reserve(ctx: GenerationContext, kind: string, value: string): string {
  const register = registerOf(ctx, kind);
  if (register.has(value)) throw new Error(`The dataset plants ${kind} ${value} twice`);
  register.add(value);
  return value;
}

/** Draws candidates until one is free; `make` gets the attempt number for suffix-style fallbacks. */
export function issue(ctx: GenerationContext, kind: string, make: (attempt: number) => string): string {
  const register = registerOf(ctx, kind);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const value = make(attempt);
    if (!register.has(value)) return reserve(ctx, kind, value);
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
