/**
 * What the child-process helpers share, free of any test-runner import so benchmarks can use them
 * too: the project's root, the npm scripts' commands, and stopping a child together with everything it
 * started.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Kills the child's whole process group (it must have been started `detached`). */
export { killGroup } from '../../local-aws/lambda-instance.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * An npm script's command in the checkout `root`, as its package.json states it (`npm start`: `node
 * functions/local/start.mjs`, `tsx functions/local/server.ts` in checkouts before the bundle; `npm
 * run admin`: `node functions/cli/launch.mjs admin`): the tests and the benches run them exactly so.
 */
export function npmScriptCommand(root: string, script: 'start' | 'admin' | 'data' = 'start'): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return (scripts[script] ?? '').split(' ');
}
