/**
 * Opens the store for a local process (the server or the operator CLI), deciding where DynamoDB is:
 * `DYNAMODB_ENDPOINT` when set; otherwise the embedded DynamoDB under `DATA_DIR`, served by the
 * running server if there is one (its endpoint file), or started by this process when there is not.
 */

import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { Config } from '../config.js';
import { createStore, ensureTable, type Store } from './dynamo.js';
import { endpointFile, startEmbeddedDynamo } from './embedded-dynamodb.js';

export interface OpenedStore {
  store: Store;
  /** Where the data lives, for the start-up banner and the CLI. */
  location: string;
  close(): Promise<void>;
}

type Role = 'server' | 'cli';

export async function openStore(config: Config, role: Role): Promise<OpenedStore> {
  const open = (endpoint: string) =>
    createStore({ endpoint, region: config.AWS_REGION, table: config.DYNAMODB_TABLE });

  if (config.DYNAMODB_ENDPOINT) {
    const store = open(config.DYNAMODB_ENDPOINT);
    await ensureTable(store);
    return { store, location: config.DYNAMODB_ENDPOINT, close: async () => store.doc.destroy() };
  }

  if (role === 'cli') {
    const running = await endpointFile.read(config.DATA_DIR);
    if (running && (await answers(open(running)))) {
      const store = open(running);
      return {
        store,
        location: `${running} (served by the running server)`,
        close: async () => store.doc.destroy(),
      };
    }
  }

  const embedded = await startEmbeddedDynamo({ path: join(config.DATA_DIR, 'dynamodb') });
  const store = open(embedded.endpoint);
  await ensureTable(store);
  if (role === 'server') await endpointFile.write(config.DATA_DIR, embedded.endpoint);
  return {
    store,
    location: `${join(config.DATA_DIR, 'dynamodb')} (embedded, ${embedded.endpoint})`,
    close: async () => {
      store.doc.destroy();
      if (role === 'server') await endpointFile.remove(config.DATA_DIR);
      await embedded.close();
    },
  };
}

async function answers(store: Store): Promise<boolean> {
  try {
    await store.doc.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  } finally {
    store.doc.destroy();
  }
}
