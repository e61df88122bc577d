/**
 * What a local process (the server, the operator CLI) opens under DATA_DIR and gets back: the
 * places of each store's files and the opened store. Shared by open-store.ts and its DynamoDB side,
 * open-dynamo.ts, which is loaded only when DynamoDB is used.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Store } from './store.js';

export interface OpenedStore<S extends Store = Store> {
  store: S;
  /** Where the data lives, for the start-up banner and the CLI. */
  location: string;
  close(): Promise<void>;
}

export type Role = 'server' | 'cli';

export const sqlitePath = (config: Config) => join(config.DATA_DIR, 'lookup.sqlite');
export const embeddedDynamoPath = (config: Config) => join(config.DATA_DIR, 'dynamodb');
/** `npm run start:synth`'s state: its embedded DynamoDB, secrets and the record of its table. */
export const synthStatePath = (config: Config) => join(config.DATA_DIR, 'synth');
