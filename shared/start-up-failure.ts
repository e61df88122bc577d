/**
 * What a local process (`npm start`, the operator CLI) tells its operator when it cannot start: one
 * line naming the setting at fault and what to do about it, with a short code for the CLI's JSON.
 * Library stacks are for bugs; a taken port, a bad variable or a busy data folder are not bugs.
 */
import type { Config } from './config.js';
import { ConfigError, loadConfig } from './config.js';
import type { OpenedStore } from './store/local-store.js';
import { AmbiguousDataDirError, openStore, UnmigratedDataError } from './store/open-store.js';
import { DataDirInUseError } from './store/sqlite/server-lock.js';

export type StartUpFailureCode =
  | 'invalid_configuration'
  | 'store_unavailable'
  | 'cannot_listen'
  /** npm run start:synth could not build, synthesize or read the AWS app. */
  | 'synth_failed';

export class StartUpFailure extends Error {
  constructor(
    readonly code: StartUpFailureCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A library's message as part of a sentence: its first line, short. */
export function causeText(error: unknown): string {
  const text =
    (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() || 'no reason given';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `loadConfig`, with the variable at fault and the way out in the message. */
export function loadConfigOrExplain(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new StartUpFailure(
      'invalid_configuration',
      `${error.message}. Correct that environment variable (README.md, Configuration) and try again.`,
      { cause: error },
    );
  }
}

/** A dataset database that cannot be served, told with the setting that names it. */
export function datasetFailure(config: Config, error: Error): StartUpFailure {
  return new StartUpFailure(
    'invalid_configuration',
    `DATASET=${config.DATASET ?? '(unset: the generated sample)'}: ${causeText(error)} Set DATASET to a file built by npm run data -- import, or unset it for the sample.`,
    { cause: error },
  );
}

/** `openStore`, with any failure to open it told as one line naming where the store is. */
export async function openStoreOrExplain(config: Config, role: 'server' | 'cli'): Promise<OpenedStore> {
  try {
    return await failOnUncaughtException(() => openStore(config, role));
  } catch (error) {
    throw new StartUpFailure('store_unavailable', storeFailureMessage(config, error), { cause: error });
  }
}

function storeFailureMessage(config: Config, error: unknown): string {
  // These already say what to do.
  if (error instanceof UnmigratedDataError || error instanceof AmbiguousDataDirError) return error.message;
  if (error instanceof DataDirInUseError) return dataDirInUseMessage(config);
  if (config.DYNAMODB_ENDPOINT) {
    return (
      `Cannot open the store at DYNAMODB_ENDPOINT=${config.DYNAMODB_ENDPOINT} (${causeText(error)}). ` +
      'Check that it is running and reachable, or unset DYNAMODB_ENDPOINT to keep the store in DATA_DIR.'
    );
  }
  return (
    `Cannot open the store in DATA_DIR=${config.DATA_DIR} (${causeText(error)}). ` +
    'Stop any other npm start using that folder, check that it is a folder you may write to, ' +
    'or set DATA_DIR to another folder.'
  );
}

/** One server per DATA_DIR: `npm start` and `npm run start:synth` hold the same lock. */
export function dataDirInUseMessage(config: Config): string {
  return `Another server (npm start or npm run start:synth) is using DATA_DIR=${config.DATA_DIR}: stop it, or set DATA_DIR to another folder.`;
}

/** The reason `server.listen` failed, told with the HOST or PORT to change. */
export function listenFailure(config: Config, error: unknown): StartUpFailure {
  return new StartUpFailure('cannot_listen', listenFailureMessage(config, error), { cause: error });
}

function listenFailureMessage({ HOST: host, PORT: port }: Config, error: unknown): string {
  switch ((error as { code?: string }).code) {
    case 'EADDRINUSE':
      return `PORT ${port} on HOST ${host} is already in use: stop the program using it, or set PORT to a free port.`;
    case 'EACCES':
      return `Not allowed to listen on PORT ${port}: set PORT to a port above 1023, or run with the right to bind it.`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `HOST ${host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1 by default).`;
    default:
      return `Cannot listen on HOST ${host}, PORT ${port} (${causeText(error)}): check HOST and PORT.`;
  }
}

/**
 * Runs a step and fails it also on an exception thrown from a callback while it runs, which would
 * otherwise end the process with a stack: the embedded DynamoDB (dynalite) throws "Database is
 * closed" from its request handler when another process holds the LevelDB lock of DATA_DIR.
 */
async function failOnUncaughtException<T>(step: () => Promise<T>): Promise<T> {
  let onUncaught: (error: Error) => void = () => {};
  const thrown = new Promise<never>((_, reject) => {
    onUncaught = reject;
  });
  process.once('uncaughtException', onUncaught);
  try {
    return await Promise.race([step(), thrown]);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
}
