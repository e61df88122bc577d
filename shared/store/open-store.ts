/**
 * Opens the store for a local process (the server or the operator CLI), as `STORE` says:
 *
 * - `sqlite` (default): DATA_DIR/lookup.sqlite, shared by the server and the CLI through WAL; one
 *   server per DATA_DIR (sqlite/server-lock.ts).
 * - `dynamodb`: `DYNAMODB_ENDPOINT` when set (AWS's own endpoint, `https://dynamodb.<region>.amazonaws.com`,
 *   is signed with the SDK's AWS credentials and its table must exist: the CDK stack owns it);
 *   otherwise the embedded DynamoDB (dynalite) under DATA_DIR/dynamodb, served by the running
 *   server if there is one (its endpoint file), or started by this process when there is not
 *   (LevelDB lets one process hold the folder).
 *
 * The CLI without DYNAMODB_ENDPOINT first follows a server running on DATA_DIR, whatever STORE says:
 * `npm run start:synth` (its table, through its DynamoDB as the operator, by the record it keeps in
 * DATA_DIR/synth) or `npm start` on the embedded DynamoDB; both at once is refused as ambiguous.
 *
 * A DATA_DIR that still holds embedded-DynamoDB data from before SQLite was the default is refused
 * under `sqlite` until `npm run admin -- migrate` has copied it, so nothing is silently left behind.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { endpointFile } from './dynamodb/endpoint-file.js';
import {
  embeddedDynamoPath,
  type OpenedStore,
  type Role,
  sqlitePath,
  synthStatePath,
} from './local-store.js';
import { MIGRATION_SETTING } from './migration.js';
import type { DatabaseOptions } from './sqlite/database.js';
import { holdServerLock } from './sqlite/server-lock.js';
import { createSqliteStore, type SqliteStore } from './sqlite/sqlite-store.js';

/** Expired cursors, domain facts and slot leases: SQLite and dynalite have no TTL of their own. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

export class UnmigratedDataError extends Error {
  constructor(config: Config) {
    super(
      `${embeddedDynamoPath(config)} holds data of the embedded DynamoDB, which STORE=sqlite (the default) ` +
        'does not read. Copy it into SQLite with `npm run admin -- migrate`, or keep using it with ' +
        `STORE=dynamodb, or move that folder away to start afresh.`,
    );
  }
}

/** Two servers answer on one DATA_DIR (npm start on the embedded DynamoDB and start:synth). */
export class AmbiguousDataDirError extends Error {
  constructor(config: Config, servers: string[]) {
    super(
      `Both ${servers.join(' and ')} are serving DATA_DIR=${config.DATA_DIR}, each with its own store: ` +
        'stop one of them, or run them on separate DATA_DIRs.',
    );
  }
}

export async function openStore(config: Config, role: Role): Promise<OpenedStore> {
  const running = role === 'cli' && !config.DYNAMODB_ENDPOINT ? await openRunningServer(config) : undefined;
  if (running) return running;
  const opened =
    config.STORE === 'dynamodb'
      ? await (await import('./open-dynamo.js')).openDynamo(config, role)
      : await openSqliteFor(config, role);
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
    const opened = await openSqlite(config, { backgroundCheckpoints: true });
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
export async function openSqlite(
  config: Config,
  options: { migrating?: boolean } & Pick<DatabaseOptions, 'lockWaitMs' | 'backgroundCheckpoints'> = {},
) {
  const path = sqlitePath(config);
  const { lockWaitMs, backgroundCheckpoints } = options;
  const store = createSqliteStore(path, { lockWaitMs, backgroundCheckpoints });
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

/** The table a server running on DATA_DIR serves: start:synth's or npm start's embedded DynamoDB. */
async function openRunningServer(config: Config): Promise<OpenedStore | undefined> {
  const records = (
    await Promise.all([endpointFile.read(config.DATA_DIR), endpointFile.read(synthStatePath(config))])
  ).filter((served) => served !== undefined);
  if (records.length === 0) return undefined;
  const { openServedTable } = await import('./open-dynamo.js');
  const running = (await Promise.all(records.map(openServedTable))).filter((opened) => opened !== undefined);
  if (running.length > 1) {
    await Promise.all(running.map((opened) => opened.close()));
    throw new AmbiguousDataDirError(
      config,
      running.map((opened) => opened.server),
    );
  }
  return running[0];
}
