/**
 * scripts/make-once.ts with real processes: of several asking at once, one makes the output and the
 * others wait for it; a lock whose holder died, or never named itself, is taken over at once; a lock
 * whose holder lives is waited on.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeOnce } from '../../scripts/make-once.js';
import { ROOT } from '../support/process-group.js';

const folder = mkdtempSync(join(tmpdir(), 'make-once-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let cases = 0;
/** A lock and an output of a case of its own. */
function fresh() {
  cases += 1;
  return { lock: join(folder, `case-${cases}`, 'lock'), output: join(folder, `case-${cases}`, 'output') };
}

/** One process that asks for `output` and takes half a second to make it, appending its pid. */
const maker = `
import { appendFileSync, existsSync } from 'node:fs';
import { makeOnce } from ${JSON.stringify(join(ROOT, 'scripts', 'make-once.ts'))};
const [lock, output] = process.argv.slice(-2);
await makeOnce(lock, () => existsSync(output), () => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  appendFileSync(output, process.pid + '\\n');
});
`;

describe('makeOnce', () => {
  it('makes the output once when three processes ask at the same time', async () => {
    const { lock, output } = fresh();
    const script = join(folder, 'maker.mts');
    writeFileSync(script, maker);
    const children = [1, 2, 3].map(() =>
      spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [script, lock, output], { stdio: 'inherit' }),
    );
    const codes = await Promise.all(children.map(async (child) => (await once(child, 'exit'))[0]));
    expect(codes).toEqual([0, 0, 0]);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over at once a lock whose holder died', async () => {
    const { lock, output } = fresh();
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, 'pid'), String(ended));
    let waited = false;
    await makeOnce(
      lock,
      () => existsSync(output),
      () => writeFileSync(output, 'made'),
      () => (waited = true),
    );
    // Waiting once is allowed (the first look finds the lock held); making it is what counts.
    expect(readFileSync(output, 'utf8')).toBe('made');
    expect(existsSync(lock)).toBe(false);
    expect(waited).toBe(true);
  });

  it('takes over a lock that never named its holder, once it is older than a few seconds', async () => {
    const { lock, output } = fresh();
    mkdirSync(lock, { recursive: true });
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    utimesSync(lock, tenSecondsAgo, tenSecondsAgo);
    await makeOnce(
      lock,
      () => existsSync(output),
      () => writeFileSync(output, 'made'),
    );
    expect(readFileSync(output, 'utf8')).toBe('made');
  });

  it('waits for a living holder and then makes nothing itself', async () => {
    const { lock, output } = fresh();
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, 'pid'), String(process.pid));
    let waits = 0;
    let made = false;
    const asked = makeOnce(
      lock,
      () => existsSync(output),
      () => (made = true),
      () => (waits += 1),
    );
    // The holder (this process, alive) finishes a second later.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    writeFileSync(output, 'made by the holder');
    rmSync(lock, { recursive: true });
    await asked;
    expect(made).toBe(false);
    expect(waits).toBe(1);
  });
});
