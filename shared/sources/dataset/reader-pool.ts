/**
 * Dataset reads on reader threads, for `npm start`: node:sqlite answers synchronously, so in-thread a
 * broad full-text search at 1M profiles held the server's event loop for 25–100 ms, and every
 * unrelated request (a health check, a free check, the documentation) waited behind it. The pool runs
 * the DataSource on a few worker threads (reader-thread.ts), each with its own read-only connection,
 * and forwards each call of the port to the first free one; calls wait in order when all are busy.
 *
 * The abort signal stays here, since it cannot cross threads: a call aborted while waiting never
 * starts; one aborted while running is answered with the signal's reason at once, and its thread may
 * finish it for ABANDONED_GRACE_MS before it is terminated and replaced (termination takes effect when
 * SQLite next hands control back to JavaScript, so a thread is never held for longer than its query).
 * Threads start when calls need them, up to the pool's size: a server that reads no dataset starts
 * none, and one stopped right after its start is not busy loading modules (under tsx, a stop signal
 * the process is too busy to acknowledge within 30 ms ends it with exit code 143). A thread that dies
 * fails its call and is replaced the same way.
 *
 * Lambda keeps reading in-thread (open-dataset.ts): one request per environment leaves nothing to
 * hold up, and a thread would add its start-up to every cold start (docs/benchmarks.md).
 */

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../../bundle-assets.js';
import type { DataSource } from '../data-source.js';
import {
  PORT_METHODS,
  type PortMethod,
  type ReaderAnswer,
  type ReaderCall,
  type ReaderThreadData,
  rebuildError,
} from './reader-messages.js';

/** How long a thread may go on with a call its caller gave up on before it is replaced. */
export const ABANDONED_GRACE_MS = 1_000;

/**
 * One reader thread per core but one, which stays the event loop's (with as many threads as cores, a
 * health check waited longer behind broad searches: docs/benchmarks.md); at least one, and at most
 * four, since each holds a page cache of its own.
 */
export function defaultReaderThreads(): number {
  return Math.min(4, Math.max(1, availableParallelism() - 1));
}

export interface ReaderPoolOptions {
  threads: number;
  abandonedGraceMs?: number;
}

interface PendingCall {
  call: ReaderCall;
  signal: AbortSignal;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Answered (or given up on): a late answer from its thread is dropped. */
  settled: boolean;
  onAbort(): void;
}

interface ReaderThread {
  worker: Worker;
  running: PendingCall | null;
  /** Set when the pool terminated it: its exit is expected. */
  retired: boolean;
  graceTimer?: NodeJS.Timeout;
}

/** The reader thread's own bundle, which `npm start` writes beside the server's (functions/local/start.mjs). */
export const READER_THREAD_BUNDLE = 'reader-thread.mjs';

export class ReaderPool {
  private readonly threads = new Set<ReaderThread>();
  private readonly idle: ReaderThread[] = [];
  private readonly waiting: PendingCall[] = [];
  private readonly graceMs: number;
  private closed = false;
  private started = 0;

  constructor(
    private readonly path: string,
    private readonly options: ReaderPoolOptions,
  ) {
    this.graceMs = options.abandonedGraceMs ?? ABANDONED_GRACE_MS;
  }

  /** Threads started so far, replacements included (for tests and the benchmark). */
  get threadsStarted(): number {
    return this.started;
  }

  /** Runs one port method on a reader thread. */
  run(method: PortMethod, args: unknown[], signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (this.closed) return reject(new Error('The dataset reader pool is closed.'));
      const pending: PendingCall = {
        call: { method, args },
        signal,
        resolve,
        reject,
        settled: false,
        onAbort: () => this.abandon(pending),
      };
      signal.addEventListener('abort', pending.onAbort, { once: true });
      this.waiting.push(pending);
      this.dispatch();
    });
  }

  /** Ends every thread; calls still waiting or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('The dataset reader pool is closed.');
    for (const pending of this.waiting.splice(0)) this.settle(pending, () => pending.reject(stopped));
    await Promise.all(
      [...this.threads].map((thread) => {
        if (thread.running) this.settle(thread.running, () => thread.running?.reject(stopped));
        return this.retire(thread);
      }),
    );
  }

  private startThread(): ReaderThread {
    const { url, execArgv } = threadEntry(
      READER_THREAD_BUNDLE,
      new URL('./reader-thread.ts', import.meta.url),
    );
    const workerData: ReaderThreadData = { path: this.path };
    const thread: ReaderThread = {
      worker: new Worker(url, { workerData, execArgv }),
      running: null,
      retired: false,
    };
    // An idle thread must not keep the process alive; a running call does (see dispatch).
    thread.worker.unref();
    thread.worker.on('message', (answer: ReaderAnswer) => this.answered(thread, answer));
    let failure: Error | undefined;
    thread.worker.on('error', (error) => {
      failure = error;
    });
    thread.worker.on('exit', (code) => {
      if (thread.retired) return;
      this.forget(thread);
      const running = thread.running;
      if (running)
        this.settle(running, () =>
          running.reject(
            new Error(`The dataset reader thread stopped (exit code ${code}).`, { cause: failure }),
          ),
        );
      this.dispatch();
    });
    this.threads.add(thread);
    this.started += 1;
    return thread;
  }

  /** Hands waiting calls to idle threads, starting threads up to the pool's size (after one died). */
  private dispatch(): void {
    while (this.waiting.length > 0 && !this.closed) {
      let thread = this.idle.pop();
      if (!thread) {
        if (this.threads.size >= this.options.threads) return;
        thread = this.startThread();
      }
      const pending = this.waiting.shift() as PendingCall;
      thread.running = pending;
      thread.worker.ref();
      thread.worker.postMessage(pending.call);
    }
  }

  private answered(thread: ReaderThread, answer: ReaderAnswer): void {
    const pending = thread.running;
    thread.running = null;
    clearTimeout(thread.graceTimer);
    thread.worker.unref();
    if (pending)
      this.settle(pending, () =>
        'error' in answer ? pending.reject(rebuildError(answer.error)) : pending.resolve(answer.value),
      );
    this.idle.push(thread);
    this.dispatch();
  }

  /** The caller gave up: answer it now; a thread still busy with it has the grace period to finish. */
  private abandon(pending: PendingCall): void {
    this.settle(pending, () => pending.reject(pending.signal.reason));
    const queued = this.waiting.indexOf(pending);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      return;
    }
    const thread = [...this.threads].find((candidate) => candidate.running === pending);
    if (!thread) return;
    thread.graceTimer = setTimeout(() => {
      if (thread.running !== pending) return;
      void this.retire(thread);
      this.dispatch();
    }, this.graceMs);
  }

  private settle(pending: PendingCall, outcome: () => void): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.signal.removeEventListener('abort', pending.onAbort);
    outcome();
  }

  private forget(thread: ReaderThread): void {
    this.threads.delete(thread);
    const index = this.idle.indexOf(thread);
    if (index >= 0) this.idle.splice(index, 1);
  }

  private async retire(thread: ReaderThread): Promise<void> {
    thread.retired = true;
    clearTimeout(thread.graceTimer);
    this.forget(thread);
    await thread.worker.terminate();
  }
}

/** The DataSource port over a reader pool: every method forwarded, its signal kept on this side. */
export function pooledDataSource(pool: ReaderPool): DataSource {
  const source: Record<string, unknown> = Object.create(null);
  for (const method of PORT_METHODS) {
    source[method] = (...args: unknown[]) =>
      pool.run(method, args.slice(0, -1), args[args.length - 1] as AbortSignal);
  }
  return source as unknown as DataSource;
}
