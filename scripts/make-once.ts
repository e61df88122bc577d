/**
 * Makes an output of the checkout (the Lambda bundles, the cloud assembly) at most once however many
 * processes ask for it at the same time: test files running side by side, or two `npm run
 * start:synth`. The first to take the lock (a directory: mkdir is atomic) makes it; the others wait
 * and then find it current. The lock names its holder's process, so a holder that died (an
 * interrupted start:synth) does not keep the next one waiting.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The outputs of a checkout made under a lock, each with its own: `npm run build`'s and the synth's. */
export type CheckoutOutput = 'build' | 'synth';

/** The lock of `output` in the checkout at `root`, shared by everything that makes that output. */
export function lockOf(root: string, output: CheckoutOutput): string {
  return join(root, '.build', `${output}.lock`);
}

/** A lock older than this belongs to a process that died making the output, whoever it names. */
const STALE_LOCK_MS = 10 * 60_000;
/** Between taking the directory and naming the holder: a lock without a name is this young. */
const NAMING_GRACE_MS = 5_000;
const POLL_MS = 500;

const holderFile = (lock: string) => join(lock, 'pid');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the lock's holder is gone: its process ended, or it never named itself in time. */
function isAbandoned(lock: string, takenAtMs: number): boolean {
  if (Date.now() - takenAtMs > STALE_LOCK_MS) return true;
  let holder: number;
  try {
    holder = Number.parseInt(readFileSync(holderFile(lock), 'utf8'), 10);
  } catch {
    return Date.now() - takenAtMs > NAMING_GRACE_MS;
  }
  return !Number.isInteger(holder) || !isAlive(holder);
}

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock, { recursive: false });
  } catch {
    const held = statSync(lock, { throwIfNoEntry: false });
    if (held && isAbandoned(lock, held.mtimeMs)) rmSync(lock, { recursive: true, force: true });
    return false;
  }
  writeFileSync(holderFile(lock), String(process.pid));
  return true;
}

/**
 * Runs `make` under `lock` unless `isCurrent()`, or waits for the process that holds `lock` to make
 * it; `waiting` is told once when this process has to wait.
 */
export async function makeOnce(
  lock: string,
  isCurrent: () => boolean,
  make: () => void,
  waiting?: () => void,
): Promise<void> {
  mkdirSync(dirname(lock), { recursive: true });
  let told = false;
  while (!isCurrent()) {
    if (!tryLock(lock)) {
      if (!told) waiting?.();
      told = true;
      await sleep(POLL_MS);
      continue;
    }
    try {
      if (!isCurrent()) make();
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
