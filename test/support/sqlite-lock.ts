/**
 * Another OS process holding the write lock of an SQLite database, as an operator's `sqlite3` shell
 * with an open `BEGIN IMMEDIATE` (or a backup, or a long CLI command) would: a plain `node` child
 * with node:sqlite, so the test needs nothing the project does not already have.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** The holder's program: takes the lock, says so, and keeps it until stdin closes or `maxMs` passes. */
const HOLDER = `
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
const release = () => { db.exec('COMMIT'); db.close(); process.exit(0); };
setTimeout(release, Number(process.argv[2]));
process.stdin.on('end', release).resume();
`;

export interface HeldLock {
  /** Commits the holder's (empty) transaction and waits for the process to end. */
  release(): Promise<void>;
}

/** Resolves once the other process holds the lock; it lets go by itself after `maxMs`. */
export async function holdWriteLock(databasePath: string, maxMs: number): Promise<HeldLock> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '-e', HOLDER, databasePath, String(maxMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  let said = '';
  child.stdout?.setEncoding('utf8');
  for await (const chunk of child.stdout as AsyncIterable<string>) {
    said += chunk;
    if (said.includes('locked')) break;
  }
  if (!said.includes('locked')) throw new Error(`the lock holder did not take the lock: ${said}`);
  return {
    async release() {
      if (child.exitCode === null) child.stdin?.end();
      await exited;
    },
  };
}
