/**
 * The service every in-process benchmark drives: the real app from createService with all run
 * functions, the DynamoDB adapter on an in-process dynalite (so its calls can be counted), and one
 * account with plenty of credits and a ceiling that never denies.
 */

import { randomUUID } from 'node:crypto';
import { catalog } from '../schemas/catalog.js';
import { provisionAccount } from '../shared/accounts/provisioning.js';
import { systemClock } from '../shared/clock.js';
import { loadConfig } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { mountMcp } from '../shared/mcp/mount-mcp.js';
import { inProcessTools } from '../shared/mcp/tool-dispatch.js';
import { createAllImplementations } from '../shared/operations/index.js';
import { createService } from '../shared/service.js';
import { createDynamoStore } from '../shared/store/dynamodb/dynamodb-store.js';
import { startEmbeddedDynamo } from '../shared/store/dynamodb/embedded-dynamodb.js';
import { createDynamoTable, ensureTable } from '../shared/store/dynamodb/table.js';

export async function startBenchService(options: {
  env?: Record<string, string | undefined>;
  credits: number;
}) {
  const dynamo = await startEmbeddedDynamo();
  const table = createDynamoTable({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    table: `bench-${randomUUID()}`,
  });
  await ensureTable(table);
  const store = createDynamoStore(table, () => dynamo.close());
  const config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
  const service = createService({
    config,
    store,
    clock: systemClock,
    logger: createLogger('silent'),
    implementations: createAllImplementations,
    operations: catalog,
  });
  mountMcp(service, inProcessTools(service.operations, service.pipeline));
  const { account, apiKey } = await provisionAccount(service.repositories, {
    name: 'benchmark',
    credits: options.credits,
    rateLimit: { limit: 1_000_000_000, windowSeconds: 60 },
  });
  return { service, config, store, table, account, apiKey, close: () => store.close() };
}
