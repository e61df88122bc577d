/**
 * Opens the store for a local process (the server or the operator CLI), as `STORE` says:
 *
 * - `sqlite` (default): DATA_DIR/lookup.sqlite, shared by the server and the CLI through WAL; one
 *   server per DATA_DIR (sqlite/server-lock.ts).
 * - `dynamodb`: `DYNAMODB_ENDPOINT` when set; otherwise the embedded DynamoDB (dynalite) under
 *   DATA_DIR/dynamodb, served by the running server if there is one (its endpoint file), or
 *   started by this process when there is not (LevelDB lets one process hold the folder).
 *
 * A DATA_DIR that still holds embedded-DynamoDB data from before SQLite was the default is refused
 * under `sqlite` until `npm run admin -- migrate` has copied it, so nothing is silently left behind.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { createDynamoStore, type DynamoStore } from './dynamodb/dynamodb-store.js';
import { endpointFile, startEmbeddedDynamo } from './dynamodb/embedded-dynamodb.js';
import { createDynamoTable, ensureTable } from './dynamodb/table.js';
import { MIGRATION_SETTING } from './migration.js';
import { holdServerLock } from './sqlite/server-lock.js';
import { createSqliteStore, type SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export interface OpenedStore<S extends Store = Store> {
  store: S;
  /** Where the data lives, for the start-up banner and the CLI. */
  location: string;
  close(): Promise<void>;
}

type Role = 'server' | 'cli';

/** Expired cursors, domain facts and slot leases: SQLite and dynalite have no TTL of their own. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

export const sqlitePath = (config: Config) => join(config.DATA_DIR, 'lookup.sqlite');
export const embeddedDynamoPath = (config: Config) => join(config.DATA_DIR, 'dynamodb');

export class UnmigratedDataError extends Error {
  constructor(config: Config) {
    super(
      `${embeddedDynamoPath(config)} holds data of the embedded DynamoDB, which STORE=sqlite (the default) ` +
        'does not read. Copy it into SQLite with `npm run admin -- migrate`, or keep using it with ' +
        `STORE=dynamodb, or move that folder away to start afresh.`,
    );
  }
}

export async function openStore(config: Config, role: Role): Promise<OpenedStore> {
  const opened =
    config.STORE === 'dynamodb' ? await openDynamo(config, role) : await openSqliteFor(config, role);
  if (role !== 'server') return opened;
  const sweep = setInterval(() => {
    opened.store.sweepExpired(Date.now()).catch(() => undefined);
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  return {
    ...opened,
    close: async () => {
      clearInterval(sweep);
      await opened.close();
    },
  };
}

/**
 * How long an operator command waits for the server's (or anyone's) lock on the SQLite file: an
 * operator at a terminal is better served by a wait than by a failure, and blocks nobody else.
 */
const CLI_LOCK_WAIT_MS = 15_000;

/** The SQLite store; a server first takes the DATA_DIR lock (one server per folder, CLIs beside it). */
async function openSqliteFor(config: Config, role: Role): Promise<OpenedStore> {
  if (role === 'cli') return openSqlite(config, { lockWaitMs: CLI_LOCK_WAIT_MS });
  const release = holdServerLock(config.DATA_DIR);
  try {
    const opened = await openSqlite(config);
    return {
      ...opened,
      close: async () => {
        await opened.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** The SQLite store under DATA_DIR, refusing while unmigrated embedded-DynamoDB data sits beside it. */
export async function openSqlite(config: Config, options: { migrating?: boolean; lockWaitMs?: number } = {}) {
  const path = sqlitePath(config);
  const store = createSqliteStore(path, { lockWaitMs: options.lockWaitMs });
  if (!options.migrating && existsSync(embeddedDynamoPath(config))) {
    if ((await store.settings.get(MIGRATION_SETTING)) === undefined) {
      await store.close();
      throw new UnmigratedDataError(config);
    }
  }
  return {
    store,
    location: `${path} (SQLite)`,
    close: () => store.close(),
  } satisfies OpenedStore<SqliteStore>;
}

export async function openDynamo(config: Config, role: Role): Promise<OpenedStore<DynamoStore>> {
  const open = (endpoint: string) =>
    createDynamoTable({ endpoint, region: config.AWS_REGION, table: config.DYNAMODB_TABLE });

  if (config.DYNAMODB_ENDPOINT) {
    const table = open(config.DYNAMODB_ENDPOINT);
    await ensureTable(table);
    const store = createDynamoStore(table);
    return { store, location: config.DYNAMODB_ENDPOINT, close: () => store.close() };
  }

  if (role === 'cli') {
    const running = await endpointFile.read(config.DATA_DIR);
    if (running) {
      const store = createDynamoStore(open(running));
      if (await answers(store))
        return { store, location: `${running} (served by the running server)`, close: () => store.close() };
      await store.close();
    }
  }

  const embedded = await startEmbeddedDynamo({ path: embeddedDynamoPath(config) });
  const table = open(embedded.endpoint);
  await ensureTable(table);
  if (role === 'server') await endpointFile.write(config.DATA_DIR, embedded.endpoint);
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

async function answers(store: Store): Promise<boolean> {
  try {
    await store.ping();
    return true;
  } catch {
    return false;
  }
}
