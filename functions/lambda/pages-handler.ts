/**
 * The service's own pages: /openapi.json (every operation, v1 and /api/v2, as this deployment
 * prices them, and the batch resource), /docs and its assets, the console's assets
 * (/console/assets/), the Protected Resource Metadata (naming OAUTH_ISSUER, or the built-in
 * authorization server when it is unset), the MCP server card (the tools the /mcp function serves,
 * at this deployment's prices), /healthz, and the JSON not-found error for every other path API
 * Gateway sends here.
 */
import { catalog } from '../../schemas/catalog.js';
import { ASSETS_PATH, assetResponse, consoleAssets } from '../../shared/console/console-assets.js';
import { documentApi } from '../../shared/http/api-binding.js';
import { documentBatchPaths } from '../../shared/http/batch-openapi.js';
import { serveDocumentation } from '../../shared/http/openapi.js';
import { mcpProtectedResource, serveProtectedResourceMetadata } from '../../shared/mcp/protected-resource.js';
import { buildServerCard, serveServerCard } from '../../shared/mcp/server-card.js';
import { buildToolCatalog } from '../../shared/mcp/tool-catalog.js';
import { describedOperations } from '../../shared/pipeline/operation.js';
import { apiFamilies } from '../../shared/service.js';
import { createLambdaService } from './lambda-service.js';
import { toRestHandler } from './rest-adapter.js';

const service = await createLambdaService({ operations: [], implementations: () => [] });
const { app, config } = service;
const documented = describedOperations(catalog, config.PRICE_OVERRIDES);
for (const api of apiFamilies) documentApi(app, api, documented);
documentBatchPaths(app.openAPIRegistry, catalog);
serveDocumentation(app, { publicBaseUrl: config.PUBLIC_BASE_URL, operations: catalog });
const assets = consoleAssets();
app.get(
  `${ASSETS_PATH}:name`,
  async (c) => assetResponse(await assets(), c.req.param('name')) ?? c.notFound(),
);
serveProtectedResourceMetadata(app, mcpProtectedResource(config));
// The operations the /mcp function serves (mcp-handler.ts), so the card lists its tools; no card
// advertises an endpoint the operator switched off.
if (config.GATEWAY_MCP_ENABLED) {
  serveServerCard(app, () => buildServerCard(config, buildToolCatalog(documented)));
}

export const handler = toRestHandler(app);
