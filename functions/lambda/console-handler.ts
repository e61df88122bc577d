/**
 * The console (/console) on AWS: the same Hono sub-app `npm start` mounts, over the DynamoDB store
 * (sessions, passkeys and their challenges expire by the table's TTL). It runs no lookup; its
 * Prices page shows the catalog as this deployment prices it. Its script and stylesheet are the
 * pages function's to serve (/console/assets/); this bundle carries them only to name them in its
 * pages by content hash.
 */
import { catalog } from '../../schemas/catalog.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { describedOperations } from '../../shared/pipeline/operation.js';
import { createService } from '../../shared/service.js';
import { emfMetrics } from './emf-metrics.js';
import { lambdaConfig } from './lambda-config.js';
import { lambdaStore } from './lambda-store.js';
import { toRestHandler } from './rest-adapter.js';

const config = await lambdaConfig([]);
const store = lambdaStore(config);
const service = createService({
  config,
  store,
  implementations: () => [],
  metrics: emfMetrics(),
  operations: [],
});
mountConsole({ ...service, operations: describedOperations(catalog, config.PRICE_OVERRIDES) }, store);

export const handler = toRestHandler(service.app);
