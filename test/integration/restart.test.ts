/**
 * State survives a restart of `npm start`: a server process on a temporary DATA_DIR is stopped with
 * SIGTERM and started again on the same folder; the account, its balance, its keys and its ledger
 * must all still be there, and the key issued before the restart must still be accepted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// --- child processes (the same helpers as admin-cli.test.ts) -----------------------------------------

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const children = new Set<ChildProcess>();
const dataDirs: string[] = [];

async function freshDataDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'restart-'));
  dataDirs.push(dataDir);
  return dataDir;
}

/**
 * tsx runs the script in a child of its own, so each process gets its own group: killing the group
 * leaves no orphan holding the LevelDB lock or a port.
 */
function start(script: string, args: string[], dataDir: string, env: Record<string, string>) {
  const child = spawn(join(BIN, 'tsx'), [script, ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // node_modules/.bin first: its `node` is Node 22, the machine's is older.
      PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      // A developer's own DynamoDB must not stand in for the DATA_DIR under test.
      DYNAMODB_ENDPOINT: '',
      ...env,
    },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const output = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { child, output, exited };
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runCli(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const { child, output, exited } = start('functions/cli/admin.ts', args, dataDir, env);
  const timer = setTimeout(() => killGroup(child), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, ...output };
}

/** Runs a command that must succeed and returns its parsed JSON. */
async function cli<T>(dataDir: string, ...args: string[]): Promise<T> {
  const result = await runCli(dataDir, args);
  expect(result, `admin ${args.join(' ')}`).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as T;
}

interface RunningServer {
  url: string;
  demoKey: string;
  /** SIGTERM, then the exit code once the server has closed its store. */
  stop(): Promise<number | null>;
}

async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const { child, output, exited } = start('functions/local/server.ts', [], dataDir, { PORT: '0', ...env });
  const banner = /listening on (http:\/\/\S+)[\s\S]*?(lk_live_[A-Za-z0-9_-]{66})/;
  const deadline = Date.now() + 30_000;
  let match = banner.exec(output.stdout);
  while (!match) {
    if (child.exitCode !== null || Date.now() > deadline) {
      killGroup(child);
      throw new Error(`The server did not start:\n${output.stdout}\n${output.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    match = banner.exec(output.stdout);
  }
  return {
    url: match[1] as string,
    demoKey: match[2] as string,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => killGroup(child), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

afterAll(async () => {
  for (const child of children) killGroup(child);
  await Promise.all(dataDirs.map((dataDir) => rm(dataDir, { recursive: true, force: true })));
});

// --- the test -------------------------------------------------------------------------------------

interface Usage {
  balance: number;
  totals: Record<string, { calls: number }>;
}

async function lookup(server: RunningServer, apiKey: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/emails/disposable?email=a%40b.com`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  await response.arrayBuffer();
  return response.status;
}

describe('a restart of the server on the same DATA_DIR', () => {
  let dataDir: string;
  let first: RunningServer;
  let second: RunningServer | undefined;
  beforeAll(async () => {
    dataDir = await freshDataDir();
    first = await startServer(dataDir);
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('keeps accounts, balances, keys and the ledger, and the old key still works', {
    timeout: 90_000,
  }, async () => {
    const created = await cli<{ accountId: string; apiKey: string }>(
      dataDir,
      ...['accounts', 'create', '--name', 'Durable', '--credits', '40'],
    );
    const { accountId, apiKey } = created;
    await cli(dataDir, 'credits', 'grant', accountId, '2');
    expect(await lookup(first, apiKey)).toBe(200);
    expect(await lookup(first, apiKey)).toBe(200);
    // The usage record and the key's last use are written after the answer: wait for both.
    await vi.waitFor(
      async () => {
        const usage = await cli<Usage>(dataDir, 'usage', accountId);
        expect(usage.totals['emails.disposable']?.calls).toBe(2);
        const shown = await cli<{ keys: { lastUsedAt: string | null }[] }>(
          dataDir,
          'accounts',
          'show',
          accountId,
        );
        expect(shown.keys[0]?.lastUsedAt).not.toBeNull();
      },
      { timeout: 20_000, interval: 200 },
    );
    const before = {
      accounts: await cli(dataDir, 'accounts', 'list'),
      shown: await cli(dataDir, 'accounts', 'show', accountId),
      usage: await cli<Usage>(dataDir, 'usage', accountId),
    };
    expect(before.usage.balance).toBe(42);

    expect(await first.stop()).toBe(0);
    second = await startServer(dataDir);

    expect(await cli(dataDir, 'accounts', 'list')).toEqual(before.accounts);
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toEqual(before.shown);
    expect(await cli(dataDir, 'usage', accountId)).toEqual(before.usage);
    expect(await lookup(second, apiKey)).toBe(200);
    // The demo account is found again, not created twice; each start replaces its key.
    expect(await lookup(second, first.demoKey)).toBe(401);
    expect(await lookup(second, second.demoKey)).toBe(200);
  });
});
