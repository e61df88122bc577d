/**
 * The service's own programs as child processes, for tests: the operator CLI (one process per
 * command, JSON on stdout), the data CLI and the local server (`npm start`), each on a DATA_DIR of
 * the test's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { expect } from 'vitest';
import { killGroup, npmScriptCommand, ROOT } from './process-group.js';

const BIN = join(ROOT, 'node_modules', '.bin');
const children = new Set<ChildProcess>();
/** STORE of the processes started from now on; empty: the default (SQLite). */
let childStore = '';

export function useStore(kind: '' | 'sqlite' | 'dynamodb'): void {
  childStore = kind;
}
const dataDirs: string[] = [];

export async function freshDataDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lookup-data-'));
  dataDirs.push(dataDir);
  return dataDir;
}

/** The script an npm script runs with Node, and the arguments it gives it: tests run the same. */
function npmScript(name: 'start' | 'admin' | 'data'): { script: string; args: string[] } {
  const [runner, script, ...args] = npmScriptCommand(ROOT, name);
  if (runner !== 'node' || !script) throw new Error(`npm run ${name} is not "node <script> …"`);
  return { script, args };
}

/** The script `npm start` runs (`node functions/local/start.mjs`). */
export const NPM_START_SCRIPT = npmScript('start').script;
/** `npm run admin` and `npm run data` (`node functions/cli/launch.mjs admin`). */
const ADMIN_CLI = npmScript('admin');
const DATA_CLI = npmScript('data');

/**
 * A script: JavaScript (`npm start`'s and the CLIs' launchers) by Node, TypeScript by tsx. tsx runs it in a child of
 * its own, so each process gets its own group: killing the group leaves no orphan holding the LevelDB
 * lock or a port.
 */
function start(script: string, args: string[], dataDir: string, env: Record<string, string>) {
  const runner = script.endsWith('.mjs') ? 'node' : 'tsx';
  const child = spawn(join(BIN, runner), [script, ...args], {
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
      STORE: childStore,
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

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runToExit(
  script: string,
  args: string[],
  dataDir: string,
  env: Record<string, string>,
): Promise<CliResult> {
  const { child, output, exited } = start(script, args, dataDir, env);
  const timer = setTimeout(() => killGroup(child), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, ...output };
}

export function runCli(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  return runToExit(ADMIN_CLI.script, [...ADMIN_CLI.args, ...args], dataDir, env);
}

/** Runs `npm run data -- <args>` to its exit; the data CLI opens no store, so no DATA_DIR of its own. */
export function runDataCli(args: string[]): Promise<CliResult> {
  return runToExit(DATA_CLI.script, [...DATA_CLI.args, ...args], '', {});
}

/** Runs `npm start` expected to fail at start-up: its exit code and output (killed after 20 s). */
export function runFailingServer(dataDir: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runToExit(NPM_START_SCRIPT, [], dataDir, { PORT: '0', ...env });
}

/** Runs a command that must succeed and returns its parsed JSON. */
export async function cli<T>(dataDir: string, ...args: string[]): Promise<T> {
  const result = await runCli(dataDir, args);
  expect(result, `admin ${args.join(' ')}`).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as T;
}

export interface RunningServer {
  url: string;
  demoKey: string;
  /** What the server wrote on stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code once the server has closed its store. */
  stop(): Promise<number | null>;
  /** SIGKILL to the whole process group (`kill -9`): a crash, with no chance to settle anything. */
  crash(): Promise<void>;
}

/** `npm start` (or another server script that prints the same banner) on `dataDir`. */
export async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
  script = NPM_START_SCRIPT,
  startUpMs = 30_000,
): Promise<RunningServer> {
  const { child, output, exited } = start(script, [], dataDir, { PORT: '0', ...env });
  const banner = /listening on (http:\/\/\S+)[\s\S]*?(lk_live_[A-Za-z0-9_-]{66})/;
  const deadline = Date.now() + startUpMs;
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
    output: () => output.stdout + output.stderr,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => killGroup(child), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async crash() {
      killGroup(child);
      await exited;
    },
  };
}

/** Kills every process a test file started and removes its folders; register with afterAll. */
export async function cleanUpProcesses(): Promise<void> {
  for (const child of children) killGroup(child);
  await Promise.all(dataDirs.splice(0).map((dataDir) => rm(dataDir, { recursive: true, force: true })));
}
