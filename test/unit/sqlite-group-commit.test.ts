/**
 * The SQLite adapter's group commit: writes queued in one turn of the event loop share one COMMIT,
 * a failing write rolls back only its own changes (the batch runs again, each write in a
 * savepoint), and every promise settles only once the commit is done.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../shared/store/sqlite/database.js';
import { DatabaseSync } from '../../shared/store/sqlite/node-sqlite.js';
import { StoreBusyError } from '../../shared/store/store.js';

let database: Database;
afterEach(() => database?.close());

const setting = (name: string) =>
  database.statement('SELECT value FROM settings WHERE name = ?').get(name)?.value as string | undefined;
const put = (name: string, value: string) =>
  database.statement('INSERT INTO settings (name, value) VALUES (?, ?)').run(name, value);

describe('Database.write', () => {
  it('keeps nothing of a lone write that fails, and commits the next one', async () => {
    database = new Database(':memory:');
    await expect(
      database.write(() => {
        put('lone', '1');
        throw new Error('the lone write fails after changing a row');
      }),
    ).rejects.toThrow('the lone write fails');
    expect(setting('lone')).toBeUndefined();
    await database.write(() => put('next', '2'));
    expect(setting('next')).toBe('2');
  });

  it('commits the writes of one turn together, and a failing one rolls back only itself', async () => {
    database = new Database(':memory:');
    const outcomes = await Promise.allSettled([
      database.write(() => put('first', '1')),
      database.write(() => {
        put('second', '2');
        throw new Error('the second write fails after changing a row');
      }),
      database.write(() => {
        put('third', '3');
        return 'third result';
      }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseFulfilledResult<string>).value).toBe('third result');
    expect([setting('first'), setting('second'), setting('third')]).toEqual(['1', undefined, '3']);
  });

  it('applies each surviving write of a batch with a failure exactly once, and answers what it committed', async () => {
    database = new Database(':memory:');
    put('counter', '0');
    // Each write reads the counter and adds one: a write applied twice, or one that saw a state it
    // did not commit on, would show in the count and in what it answered.
    const increment = () => {
      const next = Number(setting('counter')) + 1;
      database.statement("UPDATE settings SET value = ? WHERE name = 'counter'").run(String(next));
      return next;
    };
    const outcomes = await Promise.allSettled([
      database.write(increment),
      database.write(() => {
        increment();
        throw new Error('the second write fails after counting');
      }),
      database.write(increment),
      database.write(increment),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined))).toEqual([
      1,
      undefined,
      2,
      3,
    ]);
    expect(setting('counter')).toBe('3');
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe(
      'the second write fails after counting',
    );
  });

  it('settles nothing before the commit: inside a write, the transaction is still open', async () => {
    database = new Database(':memory:');
    let openDuringWork = false;
    const written = database.write(() => {
      openDuringWork = database.db.isTransaction;
      put('name', 'value');
    });
    expect(database.db.isTransaction).toBe(false);
    await written;
    expect(openDuringWork).toBe(true);
    expect(database.db.isTransaction).toBe(false);
    expect(setting('name')).toBe('value');
  });

  it('rejects every queued write when the commit itself cannot happen', async () => {
    database = new Database(':memory:');
    // A transaction left open by hand makes BEGIN fail: no write of the batch may report success.
    database.db.exec('BEGIN');
    const outcomes = await Promise.allSettled([
      database.write(() => put('a', '1')),
      database.write(() => put('b', '2')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    database.db.exec('ROLLBACK');
    expect([setting('a'), setting('b')]).toEqual([undefined, undefined]);
  });

  describe('while another connection holds the write lock', () => {
    let folder: string;
    let other: DatabaseSync;
    afterEach(() => {
      if (other?.isOpen) other.close();
      rmSync(folder, { recursive: true, force: true });
    });

    function lockedDatabase(lockWaitMs: number): Database {
      folder = mkdtempSync(join(tmpdir(), 'group-commit-'));
      const path = join(folder, 'lookup.sqlite');
      database = new Database(path, { lockWaitMs });
      other = new DatabaseSync(path);
      other.exec('BEGIN IMMEDIATE');
      return database;
    }

    /** The longest the event loop went without a turn while `work` ran. */
    async function longestStall(work: Promise<unknown>): Promise<number> {
      let longest = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 5);
      await work.catch(() => undefined);
      clearInterval(ticker);
      return longest;
    }

    it('waits without blocking the event loop, and lands once the lock is let go', async () => {
      lockedDatabase(2_000);
      const written = database.write(() => put('waited', 'yes'));
      setTimeout(() => other.exec('COMMIT'), 300);
      // SQLite's own busy wait is a few ms per attempt; the wait for the lock happens on timers.
      expect(await longestStall(written)).toBeLessThan(100);
      await written;
      expect(setting('waited')).toBe('yes');
    });

    it('fails a write with StoreBusyError once its wait is over, having written nothing', async () => {
      lockedDatabase(300);
      const started = performance.now();
      const outcomes = await Promise.allSettled([
        database.write(() => put('required', '1')),
        database.write(() => put('best effort', '2'), 'bestEffort'),
      ]);
      const waited = performance.now() - started;
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      for (const outcome of outcomes)
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StoreBusyError);
      expect(waited).toBeGreaterThanOrEqual(290);
      expect(waited).toBeLessThan(1_500);
      other.exec('ROLLBACK');
      expect([setting('required'), setting('best effort')]).toEqual([undefined, undefined]);
      // The lock is free again: the next write lands at once.
      await database.write(() => put('later', '3'));
      expect(setting('later')).toBe('3');
    });
  });
});
