/**
 * The service's own pages: /openapi.json (every operation, v1 and /api/v2, as this deployment
 * prices them), /docs and its assets, the Protected Resource Metadata (when OAUTH_ISSUER is set),
 * /healthz, and the JSON not-found error for every other path API Gateway sends here.
 */
import { catalog } from '../../schemas/catalog.js';
import { v2Routes } from '../../schemas/v2-routes.js';
import { mcpResourceUrl } from '../../shared/config.js';
import { registerOperationDocs } from '../../shared/http/openapi.js';
import { serveProtectedResourceMetadata } from '../../shared/mcp/protected-resource.js';
import { registerV2Docs } from '../../shared/v2/v2-openapi.js';
import { createLambdaService, operationsRunElsewhere } from './lambda-service.js';
import { toRestHandler } from './rest-adapter.js';

const service = await createLambdaService({ operations: [], runners: () => ({}), documentation: true });
const { app, config } = service;
const documented = new Map(
  operationsRunElsewhere(catalog, config).map((operation) => [operation.definition.id, operation]),
);
for (const operation of documented.values()) {
  for (const variant of operation.definition.variants) registerOperationDocs(app, operation, variant);
}
for (const route of v2Routes) {
  const operation = documented.get(route.operation);
  if (operation) registerV2Docs(app, operation, route);
}
if (config.OAUTH_ISSUER) {
  serveProtectedResourceMetadata(app, { resource: mcpResourceUrl(config), issuer: config.OAUTH_ISSUER });
}

export const handler = toRestHandler(app);
