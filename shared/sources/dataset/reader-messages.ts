/**
 * What the main thread and a dataset reader thread (reader-thread.ts) say to each other: a call of
 * one DataSource method, by name, with its arguments but no signal (a signal cannot cross threads;
 * the pool keeps it), and its answer or its error. Errors cross as plain descriptions and are rebuilt
 * as the same classes on the main thread, so a reader thread's refusals render exactly as an
 * in-thread reader's: structured cloning alone would turn every one into a bare Error, and so a 500.
 */
import type { ErrorDetail } from '../../../schemas/errors.js';
import { InvalidRequestError, ResourceNotFoundError } from '../../errors.js';
import type { DataSource } from '../data-source.js';
import { DatasetFileError } from './database/dataset-connection.js';
import { DatasetSource } from './dataset-source.js';

export type PortMethod = keyof DataSource;

/**
 * The port's methods a reader thread answers and the pool forwards: the dataset source's own, read
 * from its class (whose prototype holds nothing else), so a query added to the port crosses threads
 * with no edit here.
 */
export const PORT_METHODS = Object.getOwnPropertyNames(DatasetSource.prototype).filter(
  (name) => name !== 'constructor',
) as PortMethod[];

/** What a reader thread is started with. */
export interface ReaderThreadData {
  /** The dataset database, resolved. */
  path: string;
}

/** One call: the method's arguments without the trailing AbortSignal. */
export interface ReaderCall {
  method: PortMethod;
  args: unknown[];
}

export type ThreadError =
  | { kind: 'ResourceNotFoundError'; message: string }
  | { kind: 'InvalidRequestError'; message: string; details: ErrorDetail[] }
  | { kind: 'DatasetFileError'; message: string }
  | { kind: 'other'; name: string; message: string; stack: string | undefined };

export type ReaderAnswer = { value: unknown } | { error: ThreadError };

/** An error thrown in a reader thread, as plain data. */
export function describeError(error: unknown): ThreadError {
  if (error instanceof ResourceNotFoundError)
    return { kind: 'ResourceNotFoundError', message: error.message };
  if (error instanceof InvalidRequestError)
    return { kind: 'InvalidRequestError', message: error.message, details: error.details };
  if (error instanceof DatasetFileError) return { kind: 'DatasetFileError', message: error.message };
  if (error instanceof Error)
    return { kind: 'other', name: error.name, message: error.message, stack: error.stack };
  return { kind: 'other', name: 'Error', message: String(error), stack: undefined };
}

/** The error a reader thread described, as the class it was thrown as. */
export function rebuildError(described: ThreadError): Error {
  switch (described.kind) {
    case 'ResourceNotFoundError':
      return new ResourceNotFoundError(described.message);
    case 'InvalidRequestError':
      return new InvalidRequestError(described.details, described.message);
    case 'DatasetFileError':
      return new DatasetFileError(described.message);
    default: {
      // Anything else stays what it is today in-thread: a failure the pipeline answers with a 500.
      const error = new Error(described.message);
      error.name = described.name;
      if (described.stack) error.stack = described.stack;
      return error;
    }
  }
}
