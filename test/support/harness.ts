/**
 * Starts the real service for a test file: the real store (SQLite in a temporary file by default,
 * or DynamoDB on an in-process dynalite), the real pipeline and REST app, an injected clock.
 * Nothing here is a fake of the store.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { type NewAccount, provisionAccount } from '../../shared/accounts/provisioning.js';
import type { Clock } from '../../shared/clock.js';
import { loadConfig } from '../../shared/config.js';
import { mountDocumentation } from '../../shared/http/mount-documentation.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { mountMcp } from '../../shared/mcp/mount-mcp.js';
import { inProcessTools } from '../../shared/mcp/tool-dispatch.js';
import { createAllImplementations } from '../../shared/operations/index.js';
import { implement, type OperationImplementation } from '../../shared/pipeline/operation.js';
import { createService } from '../../shared/service.js';
import type { DataSource } from '../../shared/sources/data-source.js';
import { createDynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { startEmbeddedDynamo } from '../../shared/store/dynamodb/embedded-dynamodb.js';
import { createDynamoTable, ensureTable } from '../../shared/store/dynamodb/table.js';
import { createSqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import type { Store } from '../../shared/store/store.js';
import { ManualClock } from './manual-clock.js';
import { pricedOperation, pricedRunner } from './priced-operation.js';

export type StoreKind = Store['kind'];

export interface HarnessOptions {
  clock?: Clock;
  /** Extra or replacement implementations (`implement(...)`), by operation id. */
  implementations?: readonly OperationImplementation[];
  operations?: readonly OperationDefinition[];
  env?: Record<string, string>;
  /** The adapter; SQLite (the default of `npm start`) unless a test says otherwise. */
  store?: StoreKind;
  /**
   * Another harness's `endpoint`, to serve the same state from a second service (restarts, other
   * settings): a DynamoDB endpoint URL, or an SQLite file. A fresh store otherwise.
   */
  endpoint?: string;
  table?: string;
  /** Read the logs back (silent by default). */
  logger?: Logger;
  /** A shorter MCP lookup deadline than the spec's 45 s. */
  mcpDeadlineMs?: number;
  /** The data source every data lookup reads, instead of the one the settings choose. */
  dataSource?: DataSource;
}

export interface OpenedTestStore {
  store: Store;
  /** What another harness passes as `endpoint` to reach the same state. */
  endpoint: string;
  close(): Promise<void>;
}

/** The store of a test: its own unless `endpoint` names one that another test store owns. */
export async function openTestStore(
  options: Pick<HarnessOptions, 'store' | 'endpoint' | 'table'> = {},
): Promise<OpenedTestStore> {
  const kind = options.store ?? (options.endpoint?.startsWith('http') ? 'dynamodb' : 'sqlite');
  if (kind === 'sqlite') {
    const path = options.endpoint ?? join(tmpdir(), `lookup-test-${randomUUID()}.sqlite`);
    const store = createSqliteStore(path);
    return {
      store,
      endpoint: path,
      async close() {
        await store.close();
        if (!options.endpoint)
          await Promise.all(['', '-wal', '-shm'].map((end) => rm(`${path}${end}`, { force: true })));
      },
    };
  }
  const dynamo = options.endpoint ? undefined : await startEmbeddedDynamo();
  const endpoint = options.endpoint ?? (dynamo?.endpoint as string);
  const table = createDynamoTable({
    endpoint,
    region: 'us-east-1',
    table: options.table ?? `test-${randomUUID()}`,
  });
  await ensureTable(table);
  const store = createDynamoStore(table, async () => dynamo?.close());
  return { store, endpoint, close: () => store.close() };
}

export async function startHarness(options: HarnessOptions = {}) {
  const opened = await openTestStore(options);
  const { store } = opened;
  const clock = options.clock ?? new ManualClock();
  const config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
  const service = createService({
    config,
    store,
    clock,
    logger: options.logger ?? createLogger('silent'),
    implementations: (runtime) => [
      ...createAllImplementations(runtime, options.dataSource),
      ...implement([pricedOperation], { 'test.priced': pricedRunner }),
      ...(options.implementations ?? []),
    ],
    operations: options.operations ?? [...catalog, pricedOperation],
  });
  mountDocumentation(service);
  mountMcp(service, inProcessTools(service.operations, service.pipeline), {
    deadlineMs: options.mcpDeadlineMs,
  });

  const provision = (input: Partial<NewAccount> = {}) =>
    provisionAccount(service.repositories, {
      name: input.name ?? 'test account',
      credits: input.credits ?? 100,
      rateLimit: input.rateLimit ?? { limit: 1000, windowSeconds: 60 },
      scopes: input.scopes,
      by: input.by,
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
    endpoint: opened.endpoint,
    provision,
    get,
    close: () => opened.close(),
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** Both adapters, for `describe.each`: the contract every store keeps. */
export const storeKinds: readonly StoreKind[] = ['sqlite', 'dynamodb'];

/**
 * One service and one provisioned key for a whole test file: started before its tests, closed after
 * them. Tests read `harness` and `apiKey` from the returned object (set once `beforeAll` has run).
 */
export function harnessForFile(account: Partial<NewAccount> = {}, options: HarnessOptions = {}) {
  const file = {} as { harness: Harness; apiKey: string };
  beforeAll(async () => {
    file.harness = await startHarness(options);
    ({ apiKey: file.apiKey } = await file.harness.provision(account));
  });
  afterAll(() => file.harness?.close());
  return file;
}
