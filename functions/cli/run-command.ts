/**
 * How every CLI command runs and fails: open the store of the server running on DATA_DIR, or the
 * one STORE names (shared/store/open-store.ts), say which on a terminal, act
 * on the repositories, print the result as JSON on stdout, and close the store whatever happened. A
 * failure is one JSON line on stderr, `{"error":{"code","message"}}`, and exit code 1.
 */
import { CommanderError } from 'commander';
import { AccountNotFoundError } from '../../shared/accounts/accounts.js';
import { ApiKeyNotFoundError } from '../../shared/auth/api-keys.js';
import type { Config } from '../../shared/config.js';
import { createRepositories, type Repositories } from '../../shared/service.js';
import { DatasetFormatError } from '../../shared/sources/dataset/dataset-files.js';
import { loadConfigOrExplain, openStoreOrExplain, StartUpFailure } from '../../shared/start-up-failure.js';
import { type CliErrorCode, CommandRefusedError } from './command-refused.js';

export interface CommandContext {
  repositories: Repositories;
  config: Config;
}

export async function runCommand(action: (context: CommandContext) => Promise<unknown>): Promise<void> {
  const config = loadConfigOrExplain();
  const opened = await openStoreOrExplain(config, 'cli');
  // Which store the command acts on, for the person at the terminal (scripts read stdout's JSON and
  // an empty stderr on success): the running server's when one serves DATA_DIR.
  if (process.stderr.isTTY) process.stderr.write(`store: ${opened.location}\n`);
  try {
    printResult(await action({ repositories: createRepositories(opened.store), config }));
  } finally {
    await opened.close();
  }
}

/** Commander's code for a help page shown because no command was named. */
const HELP_INSTEAD_OF_COMMAND = 'commander.help';

function describe(error: unknown): { code: CliErrorCode; message: string } {
  if (error instanceof StartUpFailure) return { code: error.code, message: error.message };
  if (error instanceof AccountNotFoundError || error instanceof ApiKeyNotFoundError) {
    return { code: 'not_found', message: error.message };
  }
  if (error instanceof CommandRefusedError) return { code: error.code, message: error.message };
  if (error instanceof DatasetFormatError) return { code: 'invalid_argument', message: error.message };
  if (error instanceof CommanderError) {
    const message =
      error.code === HELP_INSTEAD_OF_COMMAND
        ? 'A command is missing; --help lists the commands.'
        : error.message.replace(/^error: /, '');
    return { code: 'invalid_argument', message };
  }
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

/** Runs a command that opens the stores it needs itself (`migrate`), printing its result as JSON. */
export async function runStandalone(action: (config: Config) => Promise<unknown>): Promise<void> {
  printResult(await action(loadConfigOrExplain()));
}

/** A command's result as scripts and people read it: indented JSON on stdout. */
export function printResult(result: unknown): void {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/** Reports a failure for scripts and terminals alike; help and version pages are not failures. */
export function reportFailure(error: unknown): void {
  if (error instanceof CommanderError && error.exitCode === 0) return;
  process.stderr.write(`${JSON.stringify({ error: describe(error) })}\n`);
  process.exitCode = 1;
}
