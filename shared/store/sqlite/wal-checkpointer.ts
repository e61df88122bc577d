/**
 * Checkpoints of a busy SQLite store on a thread of their own. SQLite checkpoints inline by default:
 * the commit that takes the WAL past 1,000 pages copies them into the database file and fsyncs it,
 * on the server's only thread. Under load that was one commit in a hundred holding the event loop
 * for ~14 ms, and 60 % of all the time spent committing (docs/benchmarks.md). Here a worker thread
 * (checkpoint-thread.ts) checkpoints every interval instead, and the server's connection stops
 * checkpointing once the thread is ready. Should the thread fail, the connection checkpoints inline
 * again: the WAL never grows unchecked.
 */
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../../bundle-assets.js';

export interface CheckpointSchedule {
  /** How often the thread copies the WAL into the file. */
  intervalMs: number;
  /** The WAL's size past which the thread starts it over (see checkpoint-thread.ts). */
  restartBytes: number;
}

export interface CheckpointThreadData extends CheckpointSchedule {
  path: string;
}

/** What the thread tells its owner: it checkpoints from now on. */
export const CHECKPOINT_THREAD_READY = 'ready';
/** What the owner tells the thread: close the connection and end. */
export const CHECKPOINT_THREAD_CLOSE = 'close';

/** The checkpoint thread's own bundle, which `npm start` writes beside the server's (functions/local/start.mjs). */
export const CHECKPOINT_THREAD_BUNDLE = 'checkpoint-thread.mjs';

export interface CheckpointerEvents {
  /** The thread checkpoints from now on. */
  ready(): void;
  /** The thread ended without being closed (its error, if it threw). */
  lost(error?: Error): void;
}

export class WalCheckpointer {
  readonly thread: Worker;
  private closed = false;

  constructor(path: string, schedule: CheckpointSchedule, events: CheckpointerEvents) {
    const { url, execArgv } = threadEntry(
      CHECKPOINT_THREAD_BUNDLE,
      new URL('./checkpoint-thread.ts', import.meta.url),
    );
    const workerData: CheckpointThreadData = { path, ...schedule };
    this.thread = new Worker(url, { workerData, execArgv });
    // The thread never keeps the process alive: a process that ends leaves a WAL the next open reads.
    this.thread.unref();
    this.thread.on('message', (message) => {
      if (message === CHECKPOINT_THREAD_READY && !this.closed) events.ready();
    });
    let failure: Error | undefined;
    this.thread.on('error', (error) => {
      failure = error;
    });
    this.thread.on('exit', () => {
      if (!this.closed) events.lost(failure);
    });
  }

  /** Asks the thread to close its connection and end; nothing is reported after this. */
  close(): void {
    this.closed = true;
    this.thread.postMessage(CHECKPOINT_THREAD_CLOSE);
  }
}
