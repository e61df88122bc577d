/**
 * `npx cdk synth` through the real CLI on a checkout-like copy (the repository's files, its
 * node_modules linked, bundles in a placeholder dist), with no AWS credentials or configuration and
 * every proxy variable pointing at a closed port, so a lookup or a download would fail the synth.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { placeholderDist } from './synth-app.js';

const root = join(import.meta.dirname, '..', '..');
const checkout = mkdtempSync(join(tmpdir(), 'infra-checkout-'));
afterAll(() => rmSync(checkout, { recursive: true, force: true }));

/** The files a clone would have: tracked and not ignored (uncommitted work included). */
function copyCheckout() {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(checkout, file)), { recursive: true });
    cpSync(join(root, file), join(checkout, file));
  }
  symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'));
  placeholderDist(join(checkout, 'dist'));
}

/** The environment of a machine that never met AWS and has no network. */
function offlineEnvironment(): Record<string, string> {
  const closed = 'http://127.0.0.1:9';
  const kept = Object.entries(process.env).filter(
    ([name]) => !/^(AWS_|CDK_|LOOKUP_)/.test(name) && !/proxy/i.test(name),
  );
  return {
    ...Object.fromEntries(kept as [string, string][]),
    HOME: checkout,
    AWS_CONFIG_FILE: join(checkout, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(checkout, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    HTTP_PROXY: closed,
    HTTPS_PROXY: closed,
    http_proxy: closed,
    https_proxy: closed,
    NO_PROXY: '',
  };
}

describe('cdk synth through the CLI', () => {
  it('synthesizes every stack offline, without credentials, from prebuilt bundles', {
    timeout: 180_000,
  }, () => {
    copyCheckout();
    const started = performance.now();
    const result = spawnSync('npx', ['cdk', 'synth', '--no-notices', '--quiet'], {
      cwd: checkout,
      env: offlineEnvironment(),
      encoding: 'utf8',
      timeout: 170_000,
    });
    const seconds = (performance.now() - started) / 1000;
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const templates = readdirSync(join(checkout, 'cdk.out')).filter((file) =>
      file.endsWith('.template.json'),
    );
    expect(templates).toContain('LookupService-dev.template.json');
    expect(templates.filter((file) => file.endsWith('.nested.template.json')).length).toBeGreaterThan(10);
    // The synth is one CLI run; reported so a slow-down shows.
    console.info(`cdk synth through the CLI: ${seconds.toFixed(1)} s`);
  });
});
