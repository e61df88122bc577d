/**
 * What the child-process helpers share, free of any test-runner import so benchmarks can use them
 * too: the project's root, and stopping a child together with everything it started.
 */
import { fileURLToPath } from 'node:url';

/** Kills the child's whole process group (it must have been started `detached`). */
export { killGroup } from '../../local-aws/lambda-instance.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
