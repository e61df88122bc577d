/**
 * The checkpoint thread of a busy store (wal-checkpointer.ts): a connection of its own that copies
 * the WAL's committed pages into the database file every interval. A PASSIVE checkpoint takes no
 * lock a writer waits on, and its fsyncs block only this thread. It cannot catch up with a server
 * that commits all the time, though, so the WAL would only grow: once it is past `restartBytes`, a
 * RESTART checkpoint takes the write lock to copy the pages committed meanwhile and lets the next
 * commit start the WAL over from its beginning. That step holds writers up for as long as SQLite's
 * own checkpoints did, but once per `restartBytes` of WAL instead of once per 1,000 pages.
 */
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from './node-sqlite.js';
import {
  CHECKPOINT_THREAD_CLOSE,
  CHECKPOINT_THREAD_READY,
  type CheckpointThreadData,
} from './wal-checkpointer.js';

/** How long the RESTART step waits for the write lock; past it, it tries again at the next interval. */
const RESTART_LOCK_WAIT_MS = 50;

const { path, intervalMs, restartBytes } = workerData as CheckpointThreadData;
const connection = new DatabaseSync(path);
connection.exec(`PRAGMA busy_timeout = ${RESTART_LOCK_WAIT_MS}`);
const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
// A failing checkpoint throws out of the timer and ends the thread: its owner then checkpoints inline.
const timer = setInterval(() => {
  connection.exec('PRAGMA wal_checkpoint(PASSIVE)');
  if (walBytes() > restartBytes) connection.exec('PRAGMA wal_checkpoint(RESTART)');
}, intervalMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== CHECKPOINT_THREAD_CLOSE) return;
  clearInterval(timer);
  connection.close();
  parentPort?.close();
});
parentPort?.postMessage(CHECKPOINT_THREAD_READY);
