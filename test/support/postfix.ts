/**
 * A private Postfix instance on loopback for tests: Debian's `postfix` package (which .ci/run installs,
 * unconfigured, when it is missing) with its own configuration, queue and data folders in a temp
 * folder, and two smtpd listeners on 127.0.0.1: one advertising PIPELINING, one with it discarded
 * from its EHLO reply, so the same server answers pipelined and lock-step dialogues. Postfix accepts for one
 * virtual mailbox domain, answers 550 5.1.1 at RCPT for anyone not in its mailbox list, accepts
 * everyone at an optional catch-all domain, and never delivers anything (no DATA is ever sent, and the transport discards). The master runs in the
 * foreground as our child and is stopped with `postfix stop`; every wait is bounded.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const POSTFIX = '/usr/sbin/postfix';
const MASTER = '/usr/lib/postfix/sbin/master';
const WAIT_MS = 10_000;

/** Why Postfix cannot run here, or null when it can. */
export function postfixUnavailable(): string | null {
  if (!existsSync(POSTFIX) || !existsSync(MASTER)) {
    return "Debian's postfix package is not installed (.ci/run installs it where it can)";
  }
  if (process.getuid?.() !== 0) return 'starting Postfix needs root';
  return null;
}

export interface PostfixHandle {
  /** The listener that advertises PIPELINING. */
  readonly pipeliningPort: number;
  /** The listener whose EHLO reply leaves PIPELINING out. */
  readonly lockStepPort: number;
  /** Postfix's own log (its maillog file). */
  log(): Promise<string>;
  /** Stops the master and its children and removes the folder. */
  stop(): Promise<void>;
}

export interface PostfixOptions {
  /** The virtual mailbox domain. */
  domain: string;
  /** Local parts of the mailboxes that exist. */
  mailboxes: readonly string[];
  /** A second virtual domain where every address exists. */
  catchAllDomain?: string;
}

const run = promisify(execFile);

export async function startPostfix({
  domain,
  mailboxes,
  catchAllDomain,
}: PostfixOptions): Promise<PostfixHandle> {
  const root = await mkdtemp(join(tmpdir(), 'postfix-'));
  // Postfix's daemons drop to the postfix user: the folder must be traversable, data/ theirs.
  await chmod(root, 0o755);
  const [etc, queue, data] = ['etc', 'queue', 'data'].map((name) => join(root, name)) as [
    string,
    string,
    string,
  ];
  for (const folder of [etc, queue, data]) await mkdir(folder);
  const { uid, gid } = await postfixUser();
  await chown(data, uid, gid);
  const [pipeliningPort, lockStepPort] = [await freePort(), await freePort()];
  const maillog = join(root, 'maillog');
  await writeFile(
    join(etc, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${queue}`,
      `data_directory = ${data}`,
      'mail_owner = postfix',
      'setgid_group = postdrop',
      'inet_interfaces = 127.0.0.1',
      'inet_protocols = ipv4',
      `myhostname = mx.${domain}`,
      `mydomain = ${domain}`,
      'mydestination =',
      'relay_domains =',
      'mynetworks = 127.0.0.0/8',
      `virtual_mailbox_domains = ${[domain, catchAllDomain].filter(Boolean).join(', ')}`,
      `virtual_mailbox_maps = texthash:${join(etc, 'mailboxes')}`,
      'virtual_transport = discard:',
      // No reverse DNS of the client, and no tarpit: a find refuses up to 16 candidates, beyond
      // the default soft error limit (10), after which every reply would wait a second.
      'smtpd_peername_lookup = no',
      'smtpd_error_sleep_time = 0',
      'smtpd_soft_error_limit = 100',
      'smtpd_hard_error_limit = 100',
      `maillog_file = ${maillog}`,
      `maillog_file_prefixes = ${root}`,
      'biff = no',
      '',
    ].join('\n'),
  );
  const entries = mailboxes.map((local) => `${local}@${domain}`);
  // `@domain` is the catch-all lookup of virtual_mailbox_maps.
  if (catchAllDomain) entries.push(`@${catchAllDomain}`);
  await writeFile(join(etc, 'mailboxes'), entries.map((entry) => `${entry} ok\n`).join(''));
  await writeFile(
    join(etc, 'master.cf'),
    [
      `127.0.0.1:${pipeliningPort} inet n - n - - smtpd`,
      `127.0.0.1:${lockStepPort} inet n - n - - smtpd -o smtpd_discard_ehlo_keywords=pipelining`,
      'cleanup unix n - n - 0 cleanup',
      'qmgr unix n - n 300 1 qmgr',
      'rewrite unix - - n - - trivial-rewrite',
      'bounce unix - - n - 0 bounce',
      'defer unix - - n - 0 bounce',
      'trace unix - - n - 0 bounce',
      'verify unix - - n - 1 verify',
      'flush unix n - n 1000? 0 flush',
      'proxymap unix - - n - - proxymap',
      'anvil unix - - n - 1 anvil',
      'scache unix - - n - 1 scache',
      'discard unix - - n - - discard',
      'error unix - - n - - error',
      'postlog unix-dgram n - n - 1 postlogd',
      '',
    ].join('\n'),
  );

  const log = () => readFile(maillog, 'utf8').catch(() => '');
  // start-fg keeps the master attached to this process: it cannot outlive a stop() that was run.
  const master = spawn(POSTFIX, ['-c', etc, 'start-fg'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => master.once('exit', () => resolve()));
  const stop = async () => {
    await run(POSTFIX, ['-c', etc, 'stop'], { timeout: WAIT_MS }).catch(() => undefined);
    if (!(await within(exited, WAIT_MS))) killMaster(master, queue);
    await rm(root, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      Promise.all([listening(pipeliningPort), listening(lockStepPort)]),
      exited.then(() => {
        throw new Error('the master exited');
      }),
    ]);
  } catch (error) {
    const tail = (await log()).split('\n').slice(-5).join('\n');
    await stop();
    throw new Error(`Postfix did not start: ${(error as Error).message}\n${tail}`);
  }
  return { pipeliningPort, lockStepPort, log, stop };
}

async function postfixUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['postfix'], { timeout: WAIT_MS });
  const uid = Number(/uid=(\d+)/.exec(stdout)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(stdout)?.[1]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error(`No postfix user: ${stdout}`);
  return { uid, gid };
}

/** Last resort when `postfix stop` did not end the master: SIGKILL it by its pid file. */
function killMaster(master: ChildProcess, queue: string): void {
  master.kill('SIGKILL');
  void readFile(join(queue, 'pid', 'master.pid'), 'utf8').then(
    (pid) => process.kill(Number(pid.trim()), 'SIGKILL'),
    () => undefined,
  );
}

async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = await Promise.race([promise.then(() => true), timeout]);
  clearTimeout(timer);
  return settled;
}

/** Resolves once `port` accepts a connection; rejects after WAIT_MS. */
async function listening(port: number): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (performance.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
