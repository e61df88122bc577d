/**
 * Checkpoints of a busy server store on a thread of their own (wal-checkpointer.ts): the server's
 * connection stops checkpointing once the thread is ready, the thread copies the WAL into the file
 * and starts it over once it is past its bound, and a lost thread hands checkpoints back.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../shared/store/sqlite/database.js';
import { WalCheckpointer } from '../../shared/store/sqlite/wal-checkpointer.js';

let folder: string;
let database: Database | undefined;
let checkpointer: WalCheckpointer | undefined;
afterEach(() => {
  checkpointer?.close();
  database?.close();
  checkpointer = undefined;
  database = undefined;
  rmSync(folder, { recursive: true, force: true });
});

function openDatabase(backgroundCheckpoints: boolean): { database: Database; path: string } {
  folder = mkdtempSync(join(tmpdir(), 'checkpoints-'));
  const path = join(folder, 'lookup.sqlite');
  database = new Database(path, { backgroundCheckpoints });
  return { database, path };
}

const autocheckpointPages = (db: Database) =>
  (db.db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
const bytes = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/** `count` commits one after another, each adding a row of `size` characters. */
async function commit(db: Database, count: number, size = 100): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const name = `row ${performance.now()} ${index}`;
    await db.write(() =>
      db.statement('INSERT INTO settings (name, value) VALUES (?, ?)').run(name, 'x'.repeat(size)),
    );
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('background checkpoints', () => {
  it('start once the store is busy; its own connection then stops checkpointing, and the thread copies the WAL into the file', async () => {
    const opened = openDatabase(true);
    await commit(opened.database, 150);
    expect(autocheckpointPages(opened.database)).toBe(1000);
    await commit(opened.database, 60);
    await until(() => autocheckpointPages(opened.database) === 0, 'the checkpoint thread is ready');

    const fileBefore = bytes(opened.path);
    await commit(opened.database, 200, 2_000);
    // The file grows only by checkpoints, which this connection no longer makes.
    await until(() => bytes(opened.path) > fileBefore + 200 * 2_000, 'the thread copied the new rows');
    expect(autocheckpointPages(opened.database)).toBe(0);
  });

  it('never start for a store without the option', async () => {
    const opened = openDatabase(false);
    await commit(opened.database, 250);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(autocheckpointPages(opened.database)).toBe(1000);
  });
});

describe('WalCheckpointer', () => {
  it('starts the WAL over once it is past its bound, so the WAL stays small however much is written', async () => {
    const opened = openDatabase(false);
    opened.database.db.exec('PRAGMA wal_autocheckpoint = 0');
    let ready = false;
    checkpointer = new WalCheckpointer(
      opened.path,
      { intervalMs: 20, restartBytes: 256 * 1024 },
      { ready: () => (ready = true), lost: () => undefined },
    );
    await until(() => ready, 'the thread is ready');
    // About 2,000 pages of WAL frames in all (8 MB), a few at a time.
    for (let round = 0; round < 40; round += 1) {
      await commit(opened.database, 25, 3_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(bytes(`${opened.path}-wal`)).toBeLessThan(3 * 1024 * 1024);
    expect(bytes(opened.path)).toBeGreaterThan(1_000 * 3_000);
  });

  it('reports a thread that ends without being closed, and nothing once closed', async () => {
    const opened = openDatabase(false);
    const events: string[] = [];
    const record = { ready: () => events.push('ready'), lost: () => events.push('lost') };
    const lostOne = new WalCheckpointer(opened.path, { intervalMs: 1_000, restartBytes: 1 }, record);
    await until(() => events.includes('ready'), 'the first thread is ready');
    await lostOne.thread.terminate();
    await until(() => events.includes('lost'), 'the lost thread is reported');

    checkpointer = new WalCheckpointer(opened.path, { intervalMs: 1_000, restartBytes: 1 }, record);
    await until(() => events.filter((event) => event === 'ready').length === 2, 'the second thread is ready');
    const exited = new Promise((resolve) => checkpointer?.thread.once('exit', resolve));
    checkpointer.close();
    await exited;
    expect(events).toEqual(['ready', 'lost', 'ready']);
  });
});
