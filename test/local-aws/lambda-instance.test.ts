/**
 * How an environment of the Lambda stand-in ends: a stopped one is let go and exits on its own (its
 * exit handlers run, as Node's `--cpu-prof` needs to write a profile), a timed-out one is killed at
 * once, as Lambda ends an environment whose invocation timed out. The handler records whether its
 * process reached its own exit.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaInstance } from '../../local-aws/lambda-instance.js';

let folder: string;
let taskRoot: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lambda-instance-'));
  taskRoot = join(folder, 'task');
  await mkdir(taskRoot);
  await writeFile(
    join(taskRoot, 'index.mjs'),
    [
      "import { writeFileSync } from 'node:fs';",
      "process.on('exit', () => writeFileSync(process.env.MARKER, 'exited on its own'));",
      // A hung invocation leaves the event loop free: only a kill keeps the process from exiting.
      'export const handler = async (event) => (event.hang ? new Promise(() => {}) : { ok: true });',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function startInstance(
  marker: string,
  launcher?: Parameters<typeof LambdaInstance.start>[0]['launcher'],
): Promise<LambdaInstance> {
  return LambdaInstance.start({
    functionName: 'lookup-instance-test',
    taskRoot,
    handler: 'index.handler',
    memoryMb: 128,
    environment: { PATH: process.env.PATH ?? '', MARKER: join(folder, marker) },
    ...(launcher ? { launcher } : {}),
  });
}

describe('LambdaInstance', () => {
  it('lets a stopped runtime exit on its own, then ends what is left of its group', async () => {
    const instance = await startInstance('stopped');
    expect(await instance.invoke({}, 10_000)).toMatchObject({ kind: 'result', result: { ok: true } });
    await instance.stop();
    expect(instance.alive).toBe(false);
    expect(existsSync(join(folder, 'stopped'))).toBe(true);
  });

  it('kills an environment whose invocation timed out, without letting it exit on its own', async () => {
    const instance = await startInstance('timed-out');
    expect(await instance.invoke({ hang: true }, 500)).toMatchObject({ kind: 'timeout' });
    expect(instance.alive).toBe(false);
    expect(existsSync(join(folder, 'timed-out'))).toBe(false);
  });

  // The cold-start benchmark counts instructions by starting Node under valgrind this way.
  it('starts Node through a launcher, which is handed the arguments of Node', async () => {
    const execPath = join(folder, 'launcher');
    await writeFile(
      execPath,
      `#!/bin/sh\necho "$@" > "${join(folder, 'launched')}"\nexec "${process.execPath}" "$@"\n`,
      { mode: 0o755 },
    );
    const instance = await startInstance('launched-exit', { execPath, stopGraceMs: 10_000 });
    expect(await instance.invoke({}, 10_000)).toMatchObject({ kind: 'result', result: { ok: true } });
    await instance.stop();
    expect(await readFile(join(folder, 'launched'), 'utf8')).toMatch(
      /--max-old-space-size=\d+ \S*lambda-runtime\.mjs/,
    );
    expect(existsSync(join(folder, 'launched-exit'))).toBe(true);
  });
});
