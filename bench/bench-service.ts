/**
 * The service every benchmark drives: the real app from createService with all run functions,
 * dynalite in-process, and one account with plenty of credits and a ceiling that never denies.
 */
import { randomUUID } from 'node:crypto';
import { provisionAccount } from '../shared/accounts/provisioning.js';
import { systemClock } from '../shared/clock.js';
import { loadConfig } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { mountMcp } from '../shared/mcp/mount-mcp.js';
import { createAllRunners } from '../shared/operations/index.js';
import { createService } from '../shared/service.js';
import { createStore, ensureTable } from '../shared/store/dynamo.js';
import { startEmbeddedDynamo } from '../shared/store/embedded-dynamodb.js';

export async function startBenchService(options: {
  env?: Record<string, string | undefined>;
  credits: number;
}) {
  const dynamo = await startEmbeddedDynamo();
  const store = createStore({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    table: `bench-${randomUUID()}`,
  });
  await ensureTable(store);
  const config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
  const service = createService({
    config,
    store,
    clock: systemClock,
    logger: createLogger('silent'),
    runners: createAllRunners,
  });
  mountMcp(service);
  const { account, apiKey } = await provisionAccount(service.repositories, {
    name: 'benchmark',
    credits: options.credits,
    rateLimit: { limit: 1_000_000_000, windowSeconds: 60 },
  });
  return {
    service,
    config,
    store,
    account,
    apiKey,
    async close() {
      store.doc.destroy();
      await dynamo.close();
    },
  };
}
