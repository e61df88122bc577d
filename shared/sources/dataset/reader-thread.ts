/**
 * A dataset reader thread (started by reader-pool.ts): the whole DatasetSource over its own read-only
 * connection to the dataset database, answering one call at a time. SQLite's synchronous queries run
 * here, so a broad search holds up this thread only, never the server's event loop. The reader's own
 * re-import check (at most once a second, by the file's identity) runs here too.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseDatasetReader } from './database/database-reader.js';
import { DatasetSource } from './dataset-source.js';
import {
  describeError,
  PORT_METHODS,
  type ReaderAnswer,
  type ReaderCall,
  type ReaderThreadData,
} from './reader-messages.js';

const port = parentPort;
if (!port) throw new Error('reader-thread.ts runs as a worker thread of the reader pool.');
const { path } = workerData as ReaderThreadData;

type PortCall = (this: DatasetSource, ...parameters: unknown[]) => Promise<unknown>;

/** The port's methods by name: a name from a message picks a function through this map only. */
const methods = new Map<string, PortCall>(
  PORT_METHODS.map((name) => [name, DatasetSource.prototype[name] as PortCall]),
);

/** The pool gives up on a call on its own thread; here nothing is ever aborted. */
const neverAborted = new AbortController().signal;

let opened: DatasetSource | undefined;
/** Opened on first use: a file that cannot be opened fails the call that needed it, and the next call tries again. */
const source = () => {
  opened ??= new DatasetSource(new DatabaseDatasetReader(path));
  return opened;
};

port.on('message', async ({ method, args }: ReaderCall) => {
  let answer: ReaderAnswer;
  try {
    const call = methods.get(method);
    if (!call) throw new Error(`${String(method)} is not a method of the data source.`);
    answer = { value: await call.apply(source(), [...args, neverAborted]) };
  } catch (error) {
    answer = { error: describeError(error) };
  }
  port.postMessage(answer);
});
