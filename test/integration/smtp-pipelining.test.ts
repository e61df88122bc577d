/**
 * Pipelined (RFC 2920) and lock-step dialogues give the same verdicts. Every reply of the
 * classifier's table (test/support/rcpt-replies.ts) is replayed as the probe's answer, as the
 * target's, and as a find's third candidate's, by mail servers on loopback that advertise
 * PIPELINING and by the same servers that do not: a hand-written one that sends each reply byte for
 * byte (multi-line replies included) and closes after a 421, and `smtp-server` for the single-line
 * ones. Then hosts that advertise PIPELINING but answer a group out of step (a dropped connection, a
 * reply missing, a 421): they cost one lock-step retry with the lock-step verdict, and are
 * remembered as lock-step for SMTP_LOCK_STEP_MEMORY_SECONDS, which both store adapters keep. verify
 * and find run on their real dependencies: dns2 on loopback, the SQLite store, the domain memory,
 * the host slots.
 */
import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { candidates, nameParts, nameSpellings } from '../../shared/emails/candidates.js';
import { packagedDisposableDomains } from '../../shared/emails/disposable-domains.js';
import { DomainMemory } from '../../shared/emails/domain-memory.js';
import { findEmail } from '../../shared/emails/find-email.js';
import type { SmtpSettings } from '../../shared/emails/mail-server.js';
import { MxResolver } from '../../shared/emails/mx-resolver.js';
import { type EmailCheckDependencies, verdictOf, verifyEmail } from '../../shared/emails/verify-email.js';
import { HostSlots } from '../../shared/limits/host-slots.js';
import { createLogger } from '../../shared/logger.js';
import { createSqliteStore, type SqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import { type DnsServerHandle, startDnsServer, type Zone } from '../support/dns-server.js';
import { openTestStore, storeKinds } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { RCPT_REPLY_CASES, type RcptReplyCase } from '../support/rcpt-replies.js';

const MX = 'mx.table.test';
const FIND_NAME = { firstName: 'Marieke', lastName: 'Jansen' };
const UNKNOWN = '550 5.1.1 <x>: Recipient address rejected: User unknown in virtual mailbox table';
/** Recipients a transaction of `limit.test` takes before it answers 452. */
const LIMIT = 3;

/** The candidates find tries for FIND_NAME at `domain`, in order. */
function findCandidates(domain: string): string[] {
  const parts = nameParts(nameSpellings(FIND_NAME.firstName), nameSpellings(FIND_NAME.lastName));
  return candidates(parts, domain).map((candidate) => candidate.address);
}

/**
 * The reply to one recipient, by domain: `probe-N.test` answers case N to every recipient,
 * `target-N.test` refuses the probe as unknown and answers case N to the target, `find-N.test`
 * answers case N to the third candidate and refuses the others, `ok.test` has `jane` only, and
 * `limit.test` has the sixth candidate only and answers 452 past LIMIT recipients a transaction.
 */
function replyTo(recipient: string, recipientsInTransaction: number): string {
  const at = recipient.lastIndexOf('@');
  const local = recipient.slice(0, at);
  const domain = recipient.slice(at + 1);
  const [, kind, index] = /^(probe|target|find)-(\d+)\.test$/.exec(domain) ?? [];
  const wire = RCPT_REPLY_CASES[Number(index)]?.wire ?? UNKNOWN;
  if (kind === 'probe') return wire;
  if (kind === 'target') return local.startsWith('probe-') ? UNKNOWN : wire;
  if (kind === 'find') return recipient === findCandidates(domain)[2] ? wire : UNKNOWN;
  if (domain === 'limit.test') {
    if (recipientsInTransaction > LIMIT) return '452 4.5.3 Too many recipients';
    return recipient === findCandidates(domain)[5] ? '250 2.1.5 Ok' : UNKNOWN;
  }
  return local === 'jane' ? '250 2.1.5 Ok' : UNKNOWN;
}

/** What a scripted host does with a group (a chunk carrying more than one command). */
type Misbehaviour = 'drop' | 'missing' | '421';

interface ScriptedMx {
  port: number;
  /** The command lines of each chunk received, with when it arrived (performance.now()). */
  chunks: { lines: string[]; at: number }[];
  connections: number;
  close(): Promise<void>;
}

/**
 * A hand-written ESMTP server that answers commands in order however they arrive (pipelined or
 * not), advertises PIPELINING when asked to, sends each reply exactly as the table has it, and
 * closes the connection after a 421 as real servers do.
 */
async function startScriptedMx(pipelining: boolean, misbehaviour?: Misbehaviour): Promise<ScriptedMx> {
  const sockets = new Set<net.Socket>();
  const mx: ScriptedMx = { port: 0, chunks: [], connections: 0, close: async () => {} };
  const server = net.createServer((socket) => {
    mx.connections += 1;
    sockets.add(socket);
    // Replies are small writes in a row: Nagle would hold the second one for the client's ACK.
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.write(`220 ${MX} ESMTP\r\n`);
    let buffered = '';
    let recipients = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\r\n');
      buffered = lines.pop() ?? '';
      mx.chunks.push({ lines, at: performance.now() });
      const group = lines.length > 1;
      if (group && misbehaviour === 'drop') {
        socket.destroy();
        return;
      }
      const answered = group && misbehaviour === 'missing' ? lines.slice(0, -1) : lines;
      for (const line of answered) {
        const verb = line.slice(0, 4).toUpperCase();
        let reply: string;
        if (verb === 'EHLO')
          reply = `250-${MX}\r\n${pipelining ? '250-PIPELINING\r\n' : ''}250 ENHANCEDSTATUSCODES`;
        else if (verb === 'MAIL' || verb === 'RSET') {
          recipients = 0;
          reply = '250 2.0.0 Ok';
        } else if (verb === 'RCPT') {
          recipients += 1;
          reply =
            group && misbehaviour === '421'
              ? '421 4.3.2 Service shutting down'
              : replyTo(/<([^>]*)>/.exec(line)?.[1] ?? '', recipients);
        } else if (verb === 'QUIT') reply = '221 2.0.0 Bye';
        else reply = '502 5.5.2 Error: command not recognized';
        socket.write(`${reply}\r\n`);
        if (reply.startsWith('421') || reply.startsWith('221')) {
          socket.end();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mx.port = (server.address() as net.AddressInfo).port;
  mx.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return mx;
}

/** `smtp-server` answering by the same table (single-line replies only: it writes its own lines). */
async function startSmtpServer(pipelining: boolean): Promise<{ port: number; close(): Promise<void> }> {
  const recipientCounts = new Map<string, number>();
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    hidePIPELINING: !pipelining,
    closeTimeout: 100,
    disableReverseLookup: true,
    onMailFrom(_address, session, callback) {
      recipientCounts.set(session.id, 0);
      callback();
    },
    onRcptTo(address, session, callback) {
      const count = (recipientCounts.get(session.id) ?? 0) + 1;
      recipientCounts.set(session.id, count);
      const wire = replyTo(address.address, count);
      const code = Number(wire.slice(0, 3));
      if (code < 300) return callback();
      callback(Object.assign(new Error(wire.slice(4)), { responseCode: code }));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let dns: DnsServerHandle;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const zone: Zone = { [MX]: { a: ['127.0.0.1'] } };
  const domains = ['ok.test', 'limit.test'];
  RCPT_REPLY_CASES.forEach((_, index) => {
    domains.push(`probe-${index}.test`, `target-${index}.test`, `find-${index}.test`);
  });
  for (const domain of domains) zone[domain] = { mx: [[10, MX]] };
  dns = await startDnsServer(zone);
  closers.push(() => dns.close());
});
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Checks {
  deps: EmailCheckDependencies;
  store: SqliteStore;
}

/** verify's and find's real dependencies against the mail server on `port`, with a fresh store. */
function checksOn(
  port: number,
  options: { settings?: Partial<SmtpSettings>; lockStepMs?: number; clock?: Clock } = {},
): Checks {
  const store = createSqliteStore(':memory:');
  closers.push(() => store.close());
  const clock = options.clock ?? systemClock;
  return {
    store,
    deps: {
      disposableDomains: packagedDisposableDomains,
      unsupportedDomains: new Set(),
      budgetMs: 10_000,
      resolver: new MxResolver({ servers: [dns.address] }),
      // Enough slots for the concurrent cases: the per-MX limit is not under test here.
      capacity: new HostSlots(store, clock, 'smtp', 100, 60_000),
      memory: new DomainMemory(store, clock, { domainFactsMs: 0, lockStepMs: options.lockStepMs ?? 0 }),
      logger: createLogger('silent'),
      settings: {
        heloName: 'verifier.test',
        mailFrom: 'probe@verifier.test',
        port,
        stepTimeoutMs: 1_000,
        allowHosts: new Set([`127.0.0.1:${port}`]),
        pipeliningGroupSize: 10,
        pipeliningPacingMs: 0,
        ...options.settings,
      },
    },
  };
}

const verify = (checks: Checks, address: string) =>
  verifyEmail(
    checks.deps,
    { address, domain: address.slice(address.indexOf('@') + 1) },
    AbortSignal.timeout(10_000),
  );
const find = (checks: Checks, domain: string) =>
  findEmail(checks.deps, { ...FIND_NAME, domain }, AbortSignal.timeout(10_000));

/** The verdicts lock-step has always given, from the classifier's reason for the reply. */
function expected({ reason }: RcptReplyCase) {
  const notCatchAll = { isCatchAll: false };
  return {
    probe:
      reason === 'accepted'
        ? { status: 'unverifiable', reason: 'catch_all', isCatchAll: true }
        : { ...verdictOf(reason), ...notCatchAll },
    target: { ...verdictOf(reason), ...notCatchAll },
  };
}

const singleLine = RCPT_REPLY_CASES.filter((reply) => !reply.wire.includes('\n'));

describe.each([
  ['a hand-written server, every reply byte for byte', 'scripted', RCPT_REPLY_CASES],
  ['smtp-server, the single-line replies', 'smtp-server', singleLine],
] as const)('the same verdicts pipelined and in lock-step: %s', (_, kind, table) => {
  let pipelined: Checks;
  let lockStep: Checks;
  let scripted: ScriptedMx | undefined;

  beforeAll(async () => {
    const servers =
      kind === 'scripted'
        ? await Promise.all([startScriptedMx(true), startScriptedMx(false)])
        : await Promise.all([startSmtpServer(true), startSmtpServer(false)]);
    for (const server of servers) closers.push(() => server.close());
    const [withPipelining, without] = servers;
    scripted = kind === 'scripted' ? (withPipelining as ScriptedMx) : undefined;
    pipelined = checksOn(withPipelining.port);
    lockStep = checksOn(without.port);
  });

  // Concurrently, and each case's checks at once: smtp-server waits 100 ms before every banner.
  it.concurrent.for(table)('$source', async (reply, { expect }) => {
    const index = RCPT_REPLY_CASES.indexOf(reply);
    const want = expected(reply);
    const both = <T>(check: (checks: Checks) => Promise<T>) =>
      Promise.all([check(pipelined), check(lockStep)]);
    const [asProbe, asTarget, inFind] = await Promise.all([
      both((checks) => verify(checks, `jane@probe-${index}.test`)),
      both((checks) => verify(checks, `jane@target-${index}.test`)),
      both((checks) => find(checks, `find-${index}.test`)),
    ]);
    for (const [role, [fast, slow]] of [
      ['probe', asProbe],
      ['target', asTarget],
    ] as const) {
      expect(fast, `${role}: pipelined vs lock-step`).toEqual(slow);
      expect(fast, role).toMatchObject({ mx: MX, ...want[role] });
    }
    const [fast, slow] = inFind;
    expect(fast, 'find: pipelined vs lock-step').toEqual(slow);
    if (reply.reason === 'accepted') {
      expect(fast).toMatchObject({
        status: 'found',
        email: findCandidates(`find-${index}.test`)[2],
        candidatesChecked: 3,
      });
    } else {
      expect(fast).toMatchObject({
        status: 'not_found',
        candidatesChecked: reply.reason === 'rejected' ? 16 : 3,
        verification: { mx: MX, ...verdictOf(reply.reason) },
      });
    }
  });

  it('went through pipelined groups on the server that advertises PIPELINING, and single commands on the other', async () => {
    if (!scripted) {
      // smtp-server does not show its chunks; its dialogues are the session tests' business.
      expect(kind).toBe('smtp-server');
      return;
    }
    const before = scripted.chunks.length;
    await verify(pipelined, 'jane@ok.test');
    // QUIT is sent, not waited for: it reaches the server just after the verdict.
    await vi.waitFor(() => expect(scripted?.chunks.at(-1)?.lines).toEqual(['QUIT']));
    // EHLO, then MAIL with both recipients in one write, then QUIT: banner + 3 = 4 round trips.
    expect(scripted.chunks.slice(before).map((chunk) => chunk.lines.map((line) => line.slice(0, 4)))).toEqual(
      [['EHLO'], ['MAIL', 'RCPT', 'RCPT'], ['QUIT']],
    );
  });

  it('stops pipelining at the first 452, and goes on as lock-step does (RSET, a new transaction)', async () => {
    const [fast, slow] = [await find(pipelined, 'limit.test'), await find(lockStep, 'limit.test')];
    expect(fast).toEqual(slow);
    expect(fast).toMatchObject({
      status: 'found',
      email: findCandidates('limit.test')[5],
      candidatesChecked: 6,
    });
  });
});

describe('groups', () => {
  it('hold at most SMTP_PIPELINING_GROUP_SIZE recipients, SMTP_PIPELINING_PACING_MS apart', async () => {
    const mx = await startScriptedMx(true);
    closers.push(() => mx.close());
    const checks = checksOn(mx.port, { settings: { pipeliningGroupSize: 4, pipeliningPacingMs: 150 } });
    const result = await find(checks, 'ok.test');
    expect(result).toMatchObject({ status: 'not_found', candidatesChecked: 16 });
    const groups = mx.chunks.filter((chunk) => chunk.lines.some((line) => line.startsWith('RCPT')));
    // The probe and 16 candidates: 4 + 4 + 4 + 4 + 1, MAIL FROM with the first group.
    expect(groups.map((chunk) => chunk.lines.length)).toEqual([5, 4, 4, 4, 1]);
    for (const [index, group] of groups.entries()) {
      if (index > 0) expect(group.at - (groups[index - 1]?.at ?? 0)).toBeGreaterThanOrEqual(140);
    }
  });
});

describe.each([
  ['drops the connection mid-group', 'drop'],
  ['leaves the last reply of a group missing', 'missing'],
  ['answers a group with 421', '421'],
] as const)('a host that advertises PIPELINING but %s', (_, misbehaviour) => {
  it('costs one lock-step retry with the lock-step verdict, remembered for SMTP_LOCK_STEP_MEMORY_SECONDS', async () => {
    const mx = await startScriptedMx(true, misbehaviour);
    closers.push(() => mx.close());
    const clock = new ManualClock();
    const checks = checksOn(mx.port, { lockStepMs: 60_000, clock });
    const groupsSent = () => mx.chunks.filter((chunk) => chunk.lines.length > 1).length;

    expect(await verify(checks, 'jane@ok.test')).toMatchObject({ status: 'valid', reason: 'accepted' });
    expect(await verify(checks, 'nobody@ok.test')).toMatchObject({ status: 'invalid', reason: 'rejected' });
    expect(await find(checks, 'limit.test')).toMatchObject({ status: 'found', candidatesChecked: 6 });
    // One failed group, then every dialogue in lock-step: 1 + 1 retry + 1 + 1 connections.
    expect(groupsSent()).toBe(1);
    expect(mx.connections).toBe(4);
    expect(await checks.deps.memory.isLockStepHost(MX)).toBe(true);

    // Forgotten after the memory's duration: the host gets a pipelined group again.
    clock.advance(60_000);
    expect(await checks.deps.memory.isLockStepHost(MX)).toBe(false);
    expect(await verify(checks, 'jane@ok.test')).toMatchObject({ status: 'valid', reason: 'accepted' });
    expect(groupsSent()).toBe(2);
  });
});

describe.each(storeKinds)('lock-step hosts on the %s store', (kind) => {
  it('are kept beside the domain facts of the same name, expire by timestamp, and are swept', async () => {
    const opened = await openTestStore({ store: kind });
    closers.push(() => opened.close());
    const clock = new ManualClock();
    const memory = new DomainMemory(opened.store, clock, { domainFactsMs: 120_000, lockStepMs: 60_000 });
    expect(await memory.isLockStepHost(MX)).toBe(false);
    // A domain that is its own mail host (implicit MX) has both records under one name.
    await memory.remember(MX, { catchAll: true, mx: MX, pattern: null });
    await memory.rememberLockStepHost(MX);
    expect(await memory.isLockStepHost(MX)).toBe(true);
    expect(await memory.isLockStepHost(`other.${MX}`)).toBe(false);
    expect(await memory.recall(MX)).toEqual({ catchAll: true, mx: MX, pattern: null });

    clock.advance(60_000);
    expect(await memory.isLockStepHost(MX)).toBe(false);
    expect(await opened.store.sweepExpired(clock.now() + 1_000)).toBe(1);
    expect(await opened.store.domains.getLockStepHost(MX)).toBeUndefined();
    expect(await memory.recall(MX)).toEqual({ catchAll: true, mx: MX, pattern: null });
  });
});
