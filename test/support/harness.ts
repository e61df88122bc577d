/**
 * Starts the real service for a test file: dynalite in-process (in memory, or under a folder),
 * the real pipeline and REST app, an injected clock. Nothing here is a fake of the store.
 */
import { randomUUID } from 'node:crypto';
import { catalog, type OperationDefinition } from '../../schemas/catalog.js';
import { type NewAccount, provisionAccount } from '../../shared/accounts/provisioning.js';
import type { Clock } from '../../shared/clock.js';
import { loadConfig } from '../../shared/config.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { mountMcp } from '../../shared/mcp/mount-mcp.js';
import { createAllRunners } from '../../shared/operations/index.js';
import type { Runner } from '../../shared/pipeline/operation.js';
import { createService } from '../../shared/service.js';
import { createStore, ensureTable, type Store } from '../../shared/store/dynamo.js';
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../shared/store/embedded-dynamodb.js';
import { ManualClock } from './manual-clock.js';
import { pricedOperation, pricedRunner } from './priced-operation.js';

export interface HarnessOptions {
  clock?: Clock;
  /** Extra or replacement run functions by operation id. */
  runners?: Record<string, Runner<never>>;
  operations?: readonly OperationDefinition[];
  env?: Record<string, string>;
  /** An already running DynamoDB endpoint (restart tests); a fresh in-memory one otherwise. */
  endpoint?: string;
  table?: string;
  /** Read the logs back (silent by default). */
  logger?: Logger;
  /** A shorter MCP lookup deadline than the spec's 45 s. */
  mcpDeadlineMs?: number;
}

export async function startHarness(options: HarnessOptions = {}) {
  const dynamo: EmbeddedDynamo | undefined = options.endpoint ? undefined : await startEmbeddedDynamo();
  const endpoint = options.endpoint ?? (dynamo as EmbeddedDynamo).endpoint;
  const store = createStore({
    endpoint,
    region: 'us-east-1',
    table: options.table ?? `test-${randomUUID()}`,
  });
  await ensureTable(store);
  const clock = options.clock ?? new ManualClock();
  const config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
  const service = createService({
    config,
    store,
    clock,
    logger: options.logger ?? createLogger('silent'),
    runners: (runtime) => ({
      ...createAllRunners(runtime),
      'test.priced': pricedRunner as Runner<never>,
      ...options.runners,
    }),
    operations: options.operations ?? [...catalog, pricedOperation],
    documentation: true,
  });
  mountMcp(service, { deadlineMs: options.mcpDeadlineMs });

  const provision = (input: Partial<NewAccount> = {}) =>
    provisionAccount(service.repositories, {
      name: input.name ?? 'test account',
      credits: input.credits ?? 100,
      rateLimit: input.rateLimit ?? { limit: 1000, windowSeconds: 60 },
      scopes: input.scopes,
    });

  /** A GET through the real app with the key as bearer; `init` may override anything. */
  const get = (path: string, apiKey?: string, init: RequestInit = {}) =>
    service.app.request(path, {
      ...init,
      headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), ...(init.headers ?? {}) },
    });

  return {
    ...service,
    store,
    clock,
    config,
    endpoint,
    provision,
    get,
    async close() {
      store.doc.destroy();
      await dynamo?.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

export function storeFor(endpoint: string, table: string): Store {
  return createStore({ endpoint, region: 'us-east-1', table });
}
