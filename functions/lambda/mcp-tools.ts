/**
 * What the /mcp function serves from the catalog: each tool as tools/list shows it, with the facts
 * of its operation the adapter reads (price, toolset, paging). Made at `npm run build` at the
 * catalog's own prices and carried beside the bundle (mcp-tools.json), as pages carries its
 * documents: making the tools' JSON Schemas means constructing every operation's zod schemas, which
 * was the /mcp function's largest cost at start of its own (docs/benchmarks.md). A deployment whose
 * PRICE_OVERRIDES change a price makes them from the catalog at init instead (this module is then
 * imported, as a chunk of its own).
 */
import { catalog } from '../../schemas/catalog.js';
import { toolFactsOf } from '../../schemas/operation-definition.js';
import { buildToolCatalog, type ToolEntry } from '../../shared/mcp/tool-catalog.js';
import { describedOperations } from '../../shared/pipeline/operation.js';
import { type PricedDocuments, pricesOf } from './carried-documents.js';

export interface McpTools extends PricedDocuments {
  /** Every tool, in catalog order. */
  tools: ToolEntry[];
}

export function buildMcpTools(priceOverrides: Readonly<Record<string, number>>): McpTools {
  const operations = describedOperations(catalog, priceOverrides);
  return {
    prices: pricesOf(operations),
    tools: [...buildToolCatalog(operations).values()].map(({ tool, operation: { price, definition } }) => ({
      tool,
      operation: { price, definition: toolFactsOf(definition) },
    })),
  };
}
