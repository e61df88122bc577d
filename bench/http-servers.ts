/**
 * What the over-HTTP benchmarks (bench/http-load.ts, bench/connection-scaling.ts) share: the service
 * as a checkout's `npm start` runs it (its package.json's command) and the bare Hono route
 * (bench/bare-server.ts, by the checkout's tsx), each in its own process group and awaited by its banner, the two paths they load (the
 * free disposable check and a billed profile lookup), and one autocannon load of a target.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { npmScriptCommand } from '../test/support/process-group.js';

/** This checkout. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BARE_ROUTE = 'bench/bare-server.ts';
const DURABLE_ROUTE = 'bench/durable-route-server.ts';
export const FREE_PATH = '/v1/emails/disposable?email=someone%40example.com';
export const BILLED_PATH = '/v1/profiles/details/by-username?username=amelia-hartmann';
/** The path bench/bare-server.ts answers. */
export const BARE_PATH = '/bare';
/** The path bench/durable-route-server.ts answers. */
export const DURABLE_PATH = '/durable';

export interface Started {
  url: string;
  /** The demo account's key, from the service's banner. */
  key?: string;
  /** The server's process group (its node process, and tsx's parent where tsx runs it), whose CPU time a bench may count. */
  group: number;
  stop(): Promise<void>;
}

/**
 * Runs `command` (a program of the checkout's node_modules/.bin and its arguments) in the checkout
 * `root`, in its own process group, and waits for its banner: the service's ends with its demo key,
 * the bare route's with its address.
 */
async function startScript(
  root: string,
  [program, ...args]: string[],
  banner: RegExp,
  env: Record<string, string>,
): Promise<Started> {
  const bin = join(root, 'node_modules', '.bin');
  const child: ChildProcess = spawn(join(bin, program as string), args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, LOG_LEVEL: 'silent', ...env },
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!banner.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      throw new Error(`${[program, ...args].join(' ')} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = /listening on (http:\/\/\S+)/.exec(output) as RegExpExecArray;
  return {
    url: url[1] as string,
    key: /lk_live_[A-Za-z0-9_-]+/.exec(output)?.[0],
    group: child.pid as number,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The service as `npm start` builds it, on a fresh DATA_DIR, with room for the whole run. */
export function startService(
  root: string,
  store: 'sqlite' | 'dynamodb',
  nodeOptions = '',
): Promise<Started & { dataDir: string }> {
  return onFreshDataDir(`bench-${store}-`, (dataDir) =>
    startScript(root, npmScriptCommand(root), /lk_live_\S+/, {
      DATA_DIR: dataDir,
      STORE: store,
      PORT: '0',
      DEMO_ACCOUNT_CREDITS: '1000000000',
      DEFAULT_RATE_LIMIT: '1000000',
      NODE_OPTIONS: nodeOptions,
    }),
  );
}

/** A server started on a DATA_DIR of its own, removed when it stops (or fails to start). */
async function onFreshDataDir(
  prefix: string,
  start: (dataDir: string) => Promise<Started>,
): Promise<Started & { dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const started = await start(dataDir).catch(async (error: unknown) => {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...started,
    dataDir,
    async stop() {
      await started.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the bench's own routes print once they listen. */
const ROUTE_BANNER = /listening on http:\/\/\S+\n/;

/** The bare Hono route of the checkout `root`, served as `npm start` serves the app. */
export function startBareRoute(root: string): Promise<Started> {
  return startScript(root, ['tsx', BARE_ROUTE], ROUTE_BANNER, {});
}

/** The bare route plus one group-committed ledger row per request, on a DATA_DIR of its own. */
export function startDurableRoute(root: string): Promise<Started> {
  return onFreshDataDir('bench-durable-', (dataDir) =>
    startScript(root, ['tsx', DURABLE_ROUTE], ROUTE_BANNER, { DATA_DIR: dataDir }),
  );
}

export interface LoadTarget {
  url: string;
  key?: string;
}

/** One autocannon load of `target` from this process. */
export function loadWithAutocannon(
  target: LoadTarget,
  connections: number,
  seconds: number,
): Promise<autocannon.Result> {
  const headers = target.key ? { Authorization: `Bearer ${target.key}` } : undefined;
  return autocannon({ url: target.url, connections, duration: seconds, headers });
}
