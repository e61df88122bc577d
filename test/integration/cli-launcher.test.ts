/**
 * `npm run admin` and `npm run data` run the CLIs from their bundle in dist/cli/
 * (functions/cli/launch.mjs), which must always be the checkout as it is: a bundle older than any
 * source is built again before the command runs.
 */
import { execFile } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/process-group.js';
import { cleanUpProcesses, freshDataDir, runCli, runDataCli } from '../support/processes.js';

afterAll(cleanUpProcesses);

const bundleOf = (name: string) => join(ROOT, 'dist', 'cli', `${name}.mjs`);

describe('the CLI launcher', () => {
  it('builds a bundle older than the sources again, then runs the command from it', async () => {
    const dataDir = await freshDataDir();
    expect(await runCli(dataDir, ['accounts', 'list'])).toMatchObject({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
    // Older than every source: the next command must not run it as it is.
    utimesSync(bundleOf('admin'), new Date(0), new Date(0));
    const before = Date.now();
    expect(await runCli(dataDir, ['accounts', 'list'])).toMatchObject({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
    expect(statSync(bundleOf('admin')).mtimeMs).toBeGreaterThanOrEqual(before - 1000);

    // One build makes both CLIs' bundles.
    utimesSync(bundleOf('data'), new Date(0), new Date(0));
    const help = await runDataCli(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: data/);
    expect(statSync(bundleOf('data')).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
  });

  it('refuses a program it does not know with its usage, running nothing', async () => {
    const refused = await promisify(execFile)(
      join(ROOT, 'node_modules', '.bin', 'node'),
      ['functions/cli/launch.mjs', 'constructor', 'accounts', 'list'],
      { cwd: ROOT },
    ).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Usage: node functions/cli/launch.mjs <admin|data> [arguments]\n',
    });
  });
});
