/**
 * How every CLI command runs: open the store the way `npm start` shares it (STORE), act on the
 * repositories, print the result as JSON, and close the store whatever happened.
 */
import { type Config, loadConfig } from '../../shared/config.js';
import { createRepositories, type Repositories } from '../../shared/service.js';
import { openStore } from '../../shared/store/open-store.js';

export interface CommandContext {
  repositories: Repositories;
  config: Config;
}

export async function runCommand(action: (context: CommandContext) => Promise<unknown>): Promise<void> {
  const config = loadConfig();
  const opened = await openStore(config, 'cli');
  try {
    const result = await action({ repositories: createRepositories(opened.store), config });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await opened.close();
  }
}

/** Runs a command that opens the stores it needs itself (`migrate`), printing its result as JSON. */
export async function runStandalone(action: (config: Config) => Promise<unknown>): Promise<void> {
  const result = await action(loadConfig());
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/** Operators read errors in a terminal or a log line: one line, no stack. */
export function reportFailure(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exitCode = 1;
}
