/**
 * The DynamoDB side of open-store.ts: the table at DYNAMODB_ENDPOINT, the embedded DynamoDB under
 * DATA_DIR, or the table a running server recorded. Loaded only when one of those is used, so that a
 * process on SQLite (the default server, every operator command) never loads the AWS SDK or dynalite.
 */
import type { Config } from '../config.js';
import { createDynamoStore, type DynamoStore } from './dynamodb/dynamodb-store.js';
import { startEmbeddedDynamo } from './dynamodb/embedded-dynamodb.js';
import { endpointFile, type ServedTable } from './dynamodb/endpoint-file.js';
import {
  createDynamoTable,
  type DynamoTable,
  ensureTable,
  isAwsEndpoint,
  tableStatus,
} from './dynamodb/table.js';
import { embeddedDynamoPath, type OpenedStore, type Role } from './local-store.js';
import type { Store } from './store.js';

export async function openDynamo(config: Config, role: Role): Promise<OpenedStore<DynamoStore>> {
  const open = (endpoint: string) =>
    createDynamoTable({ endpoint, region: config.AWS_REGION, table: config.DYNAMODB_TABLE });

  if (config.DYNAMODB_ENDPOINT) {
    const table = open(config.DYNAMODB_ENDPOINT);
    if (isAwsEndpoint(config.DYNAMODB_ENDPOINT)) await requireTable(table, config);
    else await ensureTable(table);
    const store = createDynamoStore(table);
    return {
      store,
      location: `${config.DYNAMODB_ENDPOINT}, table ${config.DYNAMODB_TABLE}`,
      close: () => store.close(),
    };
  }

  if (role === 'cli') {
    const served = await endpointFile.read(config.DATA_DIR);
    const running = served && (await openServedTable(served));
    if (running) return running;
  }

  const embedded = await startEmbeddedDynamo({ path: embeddedDynamoPath(config) });
  const table = open(embedded.endpoint);
  await ensureTable(table);
  if (role === 'server') {
    await endpointFile.write(config.DATA_DIR, {
      server: 'npm start',
      endpoint: embedded.endpoint,
      table: config.DYNAMODB_TABLE,
      region: config.AWS_REGION,
    });
  }
  const store = createDynamoStore(table, async () => {
    if (role === 'server') await endpointFile.remove(config.DATA_DIR);
    await embedded.close();
  });
  return {
    store,
    location: `${embeddedDynamoPath(config)} (embedded DynamoDB, ${embedded.endpoint})`,
    close: () => store.close(),
  };
}

/** The table a server recorded (endpoint-file.ts), if that server still answers. */
export async function openServedTable(
  served: ServedTable,
): Promise<(OpenedStore<DynamoStore> & { server: string }) | undefined> {
  const store = createDynamoStore(
    createDynamoTable({
      endpoint: served.endpoint,
      region: served.region,
      table: served.table,
      signAs: served.credentials ?? 'placeholder',
    }),
  );
  if (!(await answers(store))) {
    // A record left by a server that ended without removing it (killed): nothing serves there.
    await store.close();
    return undefined;
  }
  return {
    store,
    server: served.server,
    location: `${served.endpoint}, table ${served.table} (served by the running ${served.server})`,
    close: () => store.close(),
  };
}

/** On AWS the stack owns the table: a missing one is a wrong DYNAMODB_TABLE or region, never created here. */
async function requireTable(table: DynamoTable, config: Config): Promise<void> {
  if (await tableStatus(table)) return;
  throw new Error(
    `no table ${config.DYNAMODB_TABLE} in ${config.AWS_REGION}: set DYNAMODB_TABLE to the stack's TableName output and AWS_REGION to its region`,
  );
}

async function answers(store: Store): Promise<boolean> {
  try {
    await store.ping();
    return true;
  } catch {
    return false;
  }
}
