/**
 * Makes an output of the checkout (the Lambda bundles, the cloud assembly) at most once however many
 * processes ask for it at the same time: test files running side by side, or two `npm run
 * start:synth`. The first to take the lock (a directory: mkdir is atomic) makes it; the others wait
 * and then find it current.
 */
import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A lock older than this belongs to a process that died making the output. */
const STALE_LOCK_MS = 10 * 60_000;
const POLL_MS = 500;

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock, { recursive: false });
    return true;
  } catch {
    const held = statSync(lock, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmdirSync(lock);
    return false;
  }
}

/** Runs `make` under `lock` unless `isCurrent()`, or waits for the process that holds `lock` to make it. */
export async function makeOnce(lock: string, isCurrent: () => boolean, make: () => void): Promise<void> {
  mkdirSync(dirname(lock), { recursive: true });
  while (!isCurrent()) {
    if (!tryLock(lock)) {
      await sleep(POLL_MS);
      continue;
    }
    try {
      if (!isCurrent()) make();
      return;
    } finally {
      rmdirSync(lock);
    }
  }
}
