/**
 * Node's built-in SQLite, loaded without its one-time ExperimentalWarning (and only that warning:
 * every other warning, including other experimental features', is still printed).
 */
import type * as sqlite from 'node:sqlite';

function loadQuietly(): typeof sqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && message.startsWith('SQLite ')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
}

export const { DatabaseSync } = loadQuietly();
export type DatabaseSync = sqlite.DatabaseSync;
export type StatementSync = sqlite.StatementSync;
