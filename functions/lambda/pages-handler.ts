/**
 * The service's own pages: /openapi.json (every operation, v1 and /api/v2, as this deployment
 * prices them, and the batch resource), /docs and its assets, the console's assets
 * (/console/assets/), the Protected Resource Metadata (naming OAUTH_ISSUER, or the built-in
 * authorization server when it is unset), the MCP server card (the tools the /mcp function serves,
 * at this deployment's prices), /healthz, and the JSON not-found error for every other path API
 * Gateway sends here. What comes from the catalog was made at `npm run build` (pages-documents.ts):
 * this function loads neither the catalog nor its schemas unless PRICE_OVERRIDES changes a price.
 * It serves no operation, so it builds no service: the app every function has (create-app.ts), and
 * a store loaded at the first /healthz, the only page that reads it, so no other page waits at
 * start for the DynamoDB client (about 370 KiB of the bundle, docs/benchmarks.md).
 */
import { BUNDLED_PAGES_DOCUMENTS_FILE } from '../../schemas/function-conventions.js';
import { ASSETS_PATH, assetResponse, consoleAssets } from '../../shared/console/console-assets.js';
import { createApp } from '../../shared/http/create-app.js';
import { serveDocumentation } from '../../shared/http/documentation-pages.js';
import { lazy } from '../../shared/lazy.js';
import { createLogger } from '../../shared/logger.js';
import { mcpProtectedResource, serveProtectedResourceMetadata } from '../../shared/mcp/protected-resource.js';
import { buildServerCard, serveServerCard } from '../../shared/mcp/server-card.js';
import { carriedOrMade } from './carried-documents.js';
import { lambdaConfig } from './lambda-config.js';
import type { PagesDocuments } from './pages-documents.js';
import { toRestHandler } from './rest-adapter.js';

const config = await lambdaConfig([]);
const store = lazy(async () => (await import('./lambda-store.js')).lambdaStore(config));
const app = createApp({
  logger: createLogger(config.LOG_LEVEL),
  storeProbe: async () => (await store()).ping(),
});

/** The documents made at build time when they hold this deployment's prices; else made from the catalog. */
const documents = lazy(() =>
  carriedOrMade<PagesDocuments>(BUNDLED_PAGES_DOCUMENTS_FILE, config.PRICE_OVERRIDES, async (overrides) =>
    (await import('./pages-documents.js')).buildPagesDocuments(overrides),
  ),
);

serveDocumentation(app, {
  publicBaseUrl: config.PUBLIC_BASE_URL,
  document: async () => (await documents()).openapi,
});
const assets = consoleAssets();
app.get(
  `${ASSETS_PATH}:name`,
  async (c) => assetResponse(await assets(), c.req.param('name')) ?? c.notFound(),
);
serveProtectedResourceMetadata(app, mcpProtectedResource(config));
// The operations the /mcp function serves (mcp-handler.ts), so the card lists its tools; no card
// advertises an endpoint the operator switched off.
if (config.GATEWAY_MCP_ENABLED) {
  serveServerCard(app, async () => buildServerCard(config, (await documents()).card));
}

export const handler = toRestHandler(app);
