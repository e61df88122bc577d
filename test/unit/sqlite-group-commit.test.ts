/**
 * The SQLite adapter's group commit: writes queued in one turn of the event loop share one COMMIT,
 * each in its own savepoint, so a failing write rolls back only its own changes, and every promise
 * settles only once the commit is done.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../shared/store/sqlite/database.js';

let database: Database;
afterEach(() => database?.close());

const setting = (name: string) =>
  database.statement('SELECT value FROM settings WHERE name = ?').get(name)?.value as string | undefined;
const put = (name: string, value: string) =>
  database.statement('INSERT INTO settings (name, value) VALUES (?, ?)').run(name, value);

describe('Database.write', () => {
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
});
