/**
 * One server per DATA_DIR. The CLI shares the database with a running server, but a second
 * server would rotate the first one's demo key and double the expiry sweeps, and the CLI must know
 * which server's store to write to (`npm run start:synth` takes the same lock), so the server holds an
 * exclusive SQLite lock on DATA_DIR/server.lock for as long as it runs. The operating system drops
 * the lock when the process ends, however it ends: no stale lock file to clean up after a crash.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from './node-sqlite.js';

export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(`another server is using DATA_DIR=${dataDir}`);
    this.name = 'DataDirInUseError';
  }
}

/** Takes the lock or throws DataDirInUseError; the returned function releases it. */
export function holdServerLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lock = new DatabaseSync(join(dataDir, 'server.lock'));
  try {
    // No busy timeout: a held lock is an answer, not something to wait out.
    lock.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;');
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode === SQLITE_BUSY) throw new DataDirInUseError(dataDir);
    throw error;
  }
  return () => lock.close();
}

const SQLITE_BUSY = 5;
