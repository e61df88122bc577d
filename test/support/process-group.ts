/**
 * What the child-process helpers share, free of any test-runner import so benchmarks can use them
 * too: the project's root, and stopping a child together with everything it started.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Kills the child's whole process group (it must have been started `detached`). */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
