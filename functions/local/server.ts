/**
 * `npm start`: the whole service in one process on http://HOST:PORT, with its state under DATA_DIR
 * (SQLite by default, see STORE), and a demo account whose fresh key is printed at every start. A
 * start-up that cannot succeed (a bad variable, a busy DATA_DIR, a taken port) ends with one line on
 * stderr naming the setting and what to do, and exit code 1.
 */

import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { catalog } from '../../schemas/catalog.js';
import type { BatchWorkerPool } from '../../shared/batches/batch-worker.js';
import { mountBatches } from '../../shared/batches/mount-batches.js';
import type { Config } from '../../shared/config.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { ApiLane } from '../../shared/http/api-lane.js';
import { mountDocumentation } from '../../shared/http/mount-documentation.js';
import { createNodeServer } from '../../shared/http/node-server.js';
import { mountMcp } from '../../shared/mcp/mount-mcp.js';
import { inProcessTools } from '../../shared/mcp/tool-dispatch.js';
import { mountAuthorizationServer } from '../../shared/oauth/mount-authorization-server.js';
import { createAllImplementations } from '../../shared/operations/index.js';
import { createService } from '../../shared/service.js';
import { DatasetFileError } from '../../shared/sources/dataset/database/dataset-connection.js';
import { readDatasetsOnThreads } from '../../shared/sources/dataset/open-dataset.js';
import {
  causeText,
  datasetFailure,
  listenFailure,
  loadConfigOrExplain,
  openStoreOrExplain,
  StartUpFailure,
} from '../../shared/start-up-failure.js';
import type { OpenedStore } from '../../shared/store/local-store.js';
import { banner, baseUrlOf, issueDemoKey } from './demo-key.js';
import { reconcileOnSchedule } from './reconcile-schedule.js';

const { server, opened, demoKey, config, batchWorkers } = await start().catch((error: unknown) => {
  const line = error instanceof StartUpFailure ? error.message : `npm start failed: ${causeText(error)}`;
  process.stderr.write(`${line}\n`);
  // The embedded store may still hold a listening socket; nothing else is left to do.
  process.exit(1);
});
printBanner(server.address() as AddressInfo, opened, demoKey, config);

/** Config, store, service, demo key, then the listening socket; the store is closed if a later step fails. */
async function start(): Promise<{
  server: Server;
  opened: OpenedStore;
  demoKey: string;
  config: Config;
  batchWorkers: BatchWorkerPool;
}> {
  const config = loadConfigOrExplain();
  const opened = await openStoreOrExplain(config, 'server');
  // One process serves every request here: a broad dataset search must not hold up the others.
  readDatasetsOnThreads(config.DATASET_READER_THREADS);
  try {
    const service = createService({
      config,
      store: opened.store,
      implementations: createAllImplementations,
      operations: catalog,
    });
    mountDocumentation(service);
    const batches = mountBatches(service, opened.store);
    mountMcp(service, inProcessTools(service.operations, service.pipeline), { batches: batches.tools });
    mountConsole(service, opened.store);
    const batchWorkers = batches.pool;
    if (!config.OAUTH_ISSUER) mountAuthorizationServer(service);
    const demoKey = await issueDemoKey(service.repositories, config, 'npm start');
    reconcileOnSchedule(service.repositories, config, service.logger);
    const server = createNodeServer(
      service.app,
      service.logger,
      config,
      new ApiLane(service.apiEndpoints, service.pipeline, service.requestEdge),
    );
    server.listen(config.PORT, config.HOST);
    await once(server, 'listening').catch((error: unknown) => {
      throw listenFailure(config, error);
    });
    return { server, opened, demoKey, config, batchWorkers };
  } catch (error) {
    // Leaves no endpoint file behind for the CLI to follow to a store that is gone; a failing close
    // must not hide the failure that matters.
    await opened.close().catch(() => undefined);
    throw error instanceof DatasetFileError ? datasetFailure(config, error) : error;
  }
}

function printBanner(info: AddressInfo, opened: OpenedStore, demoKey: string, config: Config): void {
  process.stdout.write(
    banner({
      base: baseUrlOf(info),
      state: opened.location,
      data: config.DATASET ?? 'the generated sample (set DATASET to serve an imported dataset)',
      demoKey,
    }),
  );
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close(async () => {
      // Items running finish and are recorded; the rest wait in the store for the next start.
      await batchWorkers.stop();
      await opened.close();
      process.exit(0);
    });
    // Idle keep-alive connections would hold the close open.
    server.closeAllConnections();
  });
}
