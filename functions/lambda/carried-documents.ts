/**
 * Documents `npm run build` makes from the catalog and carries beside a bundle (pages-documents.json,
 * mcp-tools.json), so that a function serves what the catalog says without loading it: making them
 * means constructing every operation's schemas. They are made at the catalog's own prices, and a
 * deployment's PRICE_OVERRIDES may change a price and with it what they say (a description, a
 * tool's idempotence): such a deployment makes its own from the catalog instead.
 */
import { readFile } from 'node:fs/promises';
import { besideBundle } from '../../shared/bundle-assets.js';
import type { RegisteredOperation } from '../../shared/pipeline/operation.js';

export interface PricedDocuments {
  /** Every operation's price the documents were made at, as [operation id, credits]. */
  prices: [string, number][];
}

export function pricesOf(operations: readonly RegisteredOperation[]): [string, number][] {
  return operations.map((operation) => [operation.definition.id, operation.price]);
}

/** The carried documents when they hold every price the overrides set; else `make`'s, at those prices. */
export async function carriedOrMade<Documents extends PricedDocuments>(
  file: string,
  priceOverrides: Readonly<Record<string, number>>,
  make: (priceOverrides: Readonly<Record<string, number>>) => Promise<Documents>,
): Promise<Documents> {
  const path = besideBundle(file);
  if (path) {
    const carried = JSON.parse(await readFile(path, 'utf8')) as Documents;
    const prices = new Map(carried.prices);
    const overridden = Object.entries(priceOverrides);
    if (overridden.every(([operation, price]) => prices.get(operation) === price)) return carried;
  }
  return make(priceOverrides);
}
