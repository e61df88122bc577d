/**
 * What the pages function serves from the catalog: the OpenAPI document (as text, without its server) and
 * the server card's tools, at given prices. Made at `npm run build` at the catalog's own prices and
 * carried beside the bundle, because making them takes most of a second of a cold start (every
 * operation's schemas, examples and error answers) and their inputs are all known at build time but
 * one: PRICE_OVERRIDES. A deployment whose overrides change a price gets them made from the catalog
 * at its first request instead (this module is then imported, as a chunk of its own).
 */
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { catalog } from '../../schemas/catalog.js';
import { documentApi } from '../../shared/http/api-documentation.js';
import { documentBatchPaths } from '../../shared/http/batch-openapi.js';
import { type OpenApiText, openApiText } from '../../shared/http/documentation-pages.js';
import { buildOpenApiDocument } from '../../shared/http/openapi.js';
import { type ServerCardTools, serverCardTools } from '../../shared/mcp/server-card.js';
import { buildToolCatalog } from '../../shared/mcp/tool-catalog.js';
import { describedOperations } from '../../shared/pipeline/operation.js';
import { apiFamilies } from '../../shared/service.js';
import { type PricedDocuments, pricesOf } from './carried-documents.js';

export interface PagesDocuments extends PricedDocuments {
  openapi: OpenApiText;
  /** The tools the /mcp function serves, as its server card lists them. */
  card: ServerCardTools;
}

export function buildPagesDocuments(priceOverrides: Readonly<Record<string, number>>): PagesDocuments {
  const documented = describedOperations(catalog, priceOverrides);
  const registry = new OpenAPIRegistry();
  for (const api of apiFamilies) documentApi(registry, api, documented);
  documentBatchPaths(registry, catalog);
  return {
    prices: pricesOf(documented),
    openapi: openApiText(buildOpenApiDocument(registry, catalog)),
    card: serverCardTools(buildToolCatalog(documented)),
  };
}
