/**
 * Pipelined (RFC 2920) and lock-step dialogues give the same verdicts. Every reply of the
 * classifier's table (test/support/rcpt-replies.ts) is replayed as the probe's answer, as the
 * target's, and as a find's third candidate's, by mail servers on loopback that advertise
 * PIPELINING and by the same servers that do not: a hand-written one that sends each reply byte for
 * byte (multi-line replies included) and closes after a 421, and `smtp-server` for the single-line
 * ones. Then hosts that advertise PIPELINING but answer a group out of step (a dropped connection, a
 * reply missing, a 421): they cost one lock-step retry with the lock-step verdict, and are
 * remembered as lock-step for SMTP_LOCK_STEP_MEMORY_SECONDS, which both store adapters keep. What
 * the servers received: find's probe alone before any candidate (one RCPT at a catch-all domain),
 * few recipients for a hit on the first patterns, `candidatesChecked` equal to the candidate RCPTs
 * received in every dialogue shape, and greylisting that states a short wait waited out once. verify
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
/** Recipients a transaction of `limit.test` takes before it answers 452 (mid-way through the third group). */
const LIMIT = 5;
/** The delay greylisting domains state: 2 seconds (waited out; one domain for verify, one for find) and 10 minutes (not). */
const GREYLISTING: Readonly<Record<string, { ms: number; text: string }>> = {
  'grey-2s.test': { ms: 2_000, text: '450 4.7.1 Greylisted, try again in 2 seconds' },
  'grey-2s-find.test': { ms: 2_000, text: '451 4.7.1 Greylisted, please come back in 00:00:02' },
  'grey-10m.test': { ms: 600_000, text: '450 4.7.1 Greylisted, try again in 10 minutes' },
};

/** The candidates find tries for FIND_NAME at `domain`, in order. */
function findCandidates(domain: string): string[] {
  const parts = nameParts(nameSpellings(FIND_NAME.firstName), nameSpellings(FIND_NAME.lastName));
  return candidates(parts, domain).map((candidate) => candidate.address);
}

/**
 * The reply to one recipient, by domain: `probe-N.test` answers case N to every recipient,
 * `target-N.test` refuses the probe as unknown and answers case N to the target, `find-N.test`
 * answers case N to the third candidate and refuses the others, `rank-N.test` has the Nth candidate
 * only, `catchall.test` accepts everyone, `ok.test` has `jane` (the greylisting domains also the
 * first candidate), and `limit.test` has the sixth candidate only and answers 452 past LIMIT
 * recipients a transaction.
 */
function replyTo(recipient: string, recipientsInTransaction: number): string {
  const at = recipient.lastIndexOf('@');
  const local = recipient.slice(0, at);
  const domain = recipient.slice(at + 1);
  const [, kind, index] = /^(probe|target|find|rank)-(\d+)\.test$/.exec(domain) ?? [];
  const wire = RCPT_REPLY_CASES[Number(index)]?.wire ?? UNKNOWN;
  if (kind === 'rank')
    return recipient === findCandidates(domain)[Number(index) - 1] ? '250 2.1.5 Ok' : UNKNOWN;
  if (domain === 'catchall.test') return '250 2.1.5 Ok';
  if (kind === 'probe') return wire;
  if (kind === 'target') return local.startsWith('probe-') ? UNKNOWN : wire;
  if (kind === 'find') return recipient === findCandidates(domain)[2] ? wire : UNKNOWN;
  if (domain === 'limit.test') {
    if (recipientsInTransaction > LIMIT) return '452 4.5.3 Too many recipients';
    return recipient === findCandidates(domain)[5] ? '250 2.1.5 Ok' : UNKNOWN;
  }
  const firstCandidate = domain in GREYLISTING && recipient === findCandidates(domain)[0];
  return local === 'jane' || firstCandidate ? '250 2.1.5 Ok' : UNKNOWN;
}

/**
 * Greylisting as Postgrey does it, one client and sender: a recipient first seen less than its
 * domain's stated delay ago is answered with the greylisting text; afterwards as `replyTo` says.
 */
function greylister(): (recipient: string) => string | null {
  const firstSeen = new Map<string, number>();
  return (recipient) => {
    const greylisting = GREYLISTING[recipient.slice(recipient.lastIndexOf('@') + 1)];
    if (!greylisting) return null;
    const seen = firstSeen.get(recipient) ?? performance.now();
    firstSeen.set(recipient, seen);
    return performance.now() - seen < greylisting.ms ? greylisting.text : null;
  };
}

/** What a scripted host does with a group (a chunk carrying more than one command). */
type Misbehaviour = 'drop' | 'missing' | '421';

interface ScriptedMx {
  port: number;
  /** Every RCPT TO address received, in order. */
  rcpts: string[];
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
  const mx: ScriptedMx = { port: 0, rcpts: [], chunks: [], connections: 0, close: async () => {} };
  const greylisted = greylister();
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
          const recipient = /<([^>]*)>/.exec(line)?.[1] ?? '';
          mx.rcpts.push(recipient);
          reply =
            group && misbehaviour === '421'
              ? '421 4.3.2 Service shutting down'
              : (greylisted(recipient) ?? replyTo(recipient, recipients));
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
async function startSmtpServer(
  pipelining: boolean,
): Promise<{ port: number; rcpts: string[]; close(): Promise<void> }> {
  const recipientCounts = new Map<string, number>();
  const rcpts: string[] = [];
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
      rcpts.push(address.address);
      const wire = replyTo(address.address, count);
      const code = Number(wire.slice(0, 3));
      if (code < 300) return callback();
      callback(Object.assign(new Error(wire.slice(4)), { responseCode: code }));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as net.AddressInfo).port,
    rcpts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let dns: DnsServerHandle;
const closers: Array<() => Promise<void>> = [];

const DIALOGUE_STYLES = ['pipelined', 'lockStep'] as const;
type DialogueStyle = (typeof DIALOGUE_STYLES)[number];

/** One scripted MX that offers PIPELINING and one that does not, closed after the file. */
async function startBothStyles(): Promise<Record<DialogueStyle, ScriptedMx>> {
  const pipelined = await startScriptedMx(true);
  const lockStep = await startScriptedMx(false);
  closers.push(
    () => pipelined.close(),
    () => lockStep.close(),
  );
  return { pipelined, lockStep };
}

beforeAll(async () => {
  const zone: Zone = { [MX]: { a: ['127.0.0.1'] } };
  const domains = ['ok.test', 'limit.test', 'catchall.test', 'rank-1.test', 'rank-2.test', 'rank-9.test'];
  domains.push(...Object.keys(GREYLISTING));
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
  options: {
    settings?: Partial<SmtpSettings>;
    lockStepMs?: number;
    domainFactsMs?: number;
    clock?: Clock;
  } = {},
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
      memory: new DomainMemory(store, clock, {
        domainFactsMs: options.domainFactsMs ?? 0,
        lockStepMs: options.lockStepMs ?? 0,
      }),
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

/** The distinct candidates (not the probe) a server received an RCPT for at `domain`. */
function candidatesReceived(server: { rcpts: string[] }, domain: string): number {
  const candidates = server.rcpts.filter(
    (recipient) => recipient.endsWith(`@${domain}`) && !recipient.startsWith('probe-'),
  );
  return new Set(candidates).size;
}

/** A find's answer without `candidatesChecked`, which counts what each dialogue sent. */
function verdictOfFind({ candidatesChecked: _, ...verdict }: Awaited<ReturnType<typeof findEmail>>) {
  return verdict;
}

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
  let received: { pipelined: { rcpts: string[] }; lockStep: { rcpts: string[] } };

  beforeAll(async () => {
    const servers =
      kind === 'scripted'
        ? await Promise.all([startScriptedMx(true), startScriptedMx(false)])
        : await Promise.all([startSmtpServer(true), startSmtpServer(false)]);
    for (const server of servers) closers.push(() => server.close());
    const [withPipelining, without] = servers;
    scripted = kind === 'scripted' ? (withPipelining as ScriptedMx) : undefined;
    received = { pipelined: withPipelining, lockStep: without };
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
    expect(verdictOfFind(fast), 'find: pipelined vs lock-step').toEqual(verdictOfFind(slow));
    // Truthful either way: the candidates each server was sent an RCPT for, whatever was read.
    expect(fast.candidatesChecked, 'pipelined').toBe(
      candidatesReceived(received.pipelined, `find-${index}.test`),
    );
    expect(slow.candidatesChecked, 'lock-step').toBe(
      candidatesReceived(received.lockStep, `find-${index}.test`),
    );
    if (reply.reason === 'accepted') {
      expect(fast).toMatchObject({ status: 'found', email: findCandidates(`find-${index}.test`)[2] });
      // The third candidate opens the third group ([probe], [1, 2], [3…9]): lock-step stops there.
      expect([fast.candidatesChecked, slow.candidatesChecked]).toEqual([9, 3]);
    } else {
      expect(fast).toMatchObject({
        status: 'not_found',
        verification: { mx: MX, ...verdictOf(reply.reason) },
      });
      if (reply.reason === 'rejected')
        expect([fast.candidatesChecked, slow.candidatesChecked]).toEqual([16, 16]);
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
    expect(verdictOfFind(fast)).toEqual(verdictOfFind(slow));
    expect(fast).toMatchObject({ status: 'found', email: findCandidates('limit.test')[5] });
    // Pipelined, the third group (candidates 3 to 9) was sent whole, 452 from its third on.
    expect([fast.candidatesChecked, slow.candidatesChecked]).toEqual([9, 6]);
    expect(fast.candidatesChecked).toBe(candidatesReceived(received.pipelined, 'limit.test'));
    expect(slow.candidatesChecked).toBe(candidatesReceived(received.lockStep, 'limit.test'));
  });
});

describe('what the mail server receives for a find, pipelined and in lock-step', () => {
  const servers: Partial<Record<DialogueStyle, ScriptedMx>> = {};
  const checks: Partial<Record<DialogueStyle, Checks>> = {};

  beforeAll(async () => {
    Object.assign(servers, await startBothStyles());
    for (const name of DIALOGUE_STYLES) checks[name] = checksOn((servers[name] as ScriptedMx).port);
  });

  /** Finds FIND_NAME at `domain` both ways, one after the other, with what each server received. */
  async function findBothWays(domain: string) {
    const seen = [];
    for (const name of DIALOGUE_STYLES) {
      const mx = servers[name] as ScriptedMx;
      const [rcpts, chunks] = [mx.rcpts.length, mx.chunks.length];
      const result = await find(checks[name] as Checks, domain);
      // QUIT is sent, not waited for: it reaches the server just after the answer.
      await vi.waitFor(() => expect(mx.chunks.at(-1)?.lines).toEqual(['QUIT']));
      seen.push({ result, rcpts: mx.rcpts.slice(rcpts), flights: mx.chunks.length - chunks });
    }
    const [fast, slow] = seen as [(typeof seen)[0], (typeof seen)[0]];
    expect(verdictOfFind(fast.result), 'the same answer both ways').toEqual(verdictOfFind(slow.result));
    for (const { result, rcpts } of [fast, slow]) {
      const candidates = rcpts.filter((recipient) => !recipient.startsWith('probe-'));
      // The probe first, alone, and no other: then candidates, each once, in order.
      expect(rcpts.filter((recipient) => recipient.startsWith('probe-'))).toEqual([rcpts[0]]);
      expect(result.candidatesChecked).toBe(new Set(candidates).size);
    }
    return { fast, slow };
  }

  it.for([
    { rank: 1, pipelined: 2, lockStep: 1 },
    { rank: 2, pipelined: 2, lockStep: 2 },
    { rank: 9, pipelined: 9, lockStep: 9 },
  ])(
    'a hit at rank $rank: the probe and $pipelined candidates pipelined, $lockStep in lock-step',
    async (hit) => {
      const domain = `rank-${hit.rank}.test`;
      const { fast, slow } = await findBothWays(domain);
      expect(fast.result).toMatchObject({ status: 'found', email: findCandidates(domain)[hit.rank - 1] });
      expect(fast.rcpts).toEqual([fast.rcpts[0], ...findCandidates(domain).slice(0, hit.pipelined)]);
      expect(slow.rcpts).toEqual([slow.rcpts[0], ...findCandidates(domain).slice(0, hit.lockStep)]);
      expect([fast.result.candidatesChecked, slow.result.candidatesChecked]).toEqual([
        hit.pipelined,
        hit.lockStep,
      ]);
    },
  );

  it('a catch-all domain: exactly one RCPT, the probe, both ways', async () => {
    const { fast, slow } = await findBothWays('catchall.test');
    expect(fast.result).toMatchObject({ status: 'catch_all', email: null, candidatesChecked: 0 });
    expect(fast.rcpts).toHaveLength(1);
    expect(slow.rcpts).toHaveLength(1);
    // EHLO, MAIL FROM with the probe, QUIT.
    expect(fast.flights).toBe(3);
  });

  it('a miss: all 16 candidates once, in at most 6 client flights when pipelined', async () => {
    const { fast, slow } = await findBothWays('ok.test');
    expect(fast.result).toMatchObject({ status: 'not_found', candidatesChecked: 16 });
    expect(fast.rcpts).toEqual([fast.rcpts[0], ...findCandidates('ok.test')]);
    expect(slow.rcpts).toEqual([slow.rcpts[0], ...findCandidates('ok.test')]);
    // EHLO, [MAIL, probe], [2], [7], [7], QUIT; lock-step: EHLO, MAIL, 17 RCPTs, QUIT.
    expect([fast.flights, slow.flights]).toEqual([6, 20]);
  });

  it('a 452 mid-group: the whole group counted as sent, the rest asked again in lock-step', async () => {
    const { fast, slow } = await findBothWays('limit.test');
    expect(fast.result).toMatchObject({ status: 'found', email: findCandidates('limit.test')[5] });
    const list = findCandidates('limit.test');
    // Pipelined: [probe], [1, 2], [3…9] with 452 from the fifth on; then RSET, the fifth again, the sixth.
    expect(fast.rcpts).toEqual([fast.rcpts[0], ...list.slice(0, 9), list[4], list[4], list[5]]);
    expect(slow.rcpts).toEqual([slow.rcpts[0], ...list.slice(0, 5), list[4], list[5]]);
    expect([fast.result.candidatesChecked, slow.result.candidatesChecked]).toEqual([9, 6]);
  });

  it('a verification: the probe and the target in one group, 3 client flights', async () => {
    const mx = servers.pipelined as ScriptedMx;
    const before = mx.chunks.length;
    await verify(checks.pipelined as Checks, 'jane@ok.test');
    await vi.waitFor(() => expect(mx.chunks.at(-1)?.lines).toEqual(['QUIT']));
    expect(mx.chunks.length - before).toBe(3);
  });
});

describe('greylisting that states its wait', () => {
  const servers: Partial<Record<DialogueStyle, ScriptedMx>> = {};

  beforeAll(async () => {
    Object.assign(servers, await startBothStyles());
  });

  /** Runs `check` against both servers at once, each with a fresh store; RCPTs at `domain` each received. */
  async function bothWays<T>(domain: string, check: (checks: Checks) => Promise<T>, reuse?: Checks[]) {
    const names = DIALOGUE_STYLES;
    const stores =
      reuse ??
      names.map((name) => checksOn((servers[name] as ScriptedMx).port, { domainFactsMs: 3_600_000 }));
    const before = names.map((name) => (servers[name] as ScriptedMx).rcpts.length);
    const started = performance.now();
    const results = await Promise.all(stores.map(check));
    const ms = performance.now() - started;
    const rcpts = names.map((name, index) =>
      (servers[name] as ScriptedMx).rcpts.slice(before[index]).filter((rcpt) => rcpt.endsWith(`@${domain}`)),
    );
    return { results, rcpts, ms, stores };
  }

  it.concurrent('a 2-second wait is waited out once within the budget: valid; the next check reuses the remembered probe and waits for nothing', async ({
    expect,
  }) => {
    const domain = 'grey-2s.test';
    const first = await bothWays(domain, (checks) => verify(checks, `jane@${domain}`));
    for (const result of first.results) expect(result).toMatchObject({ status: 'valid', reason: 'accepted' });
    expect(first.ms).toBeGreaterThanOrEqual(2_000);
    expect(first.ms).toBeLessThan(8_000);
    for (const [index, rcpts] of first.rcpts.entries()) {
      const probe = rcpts[0] as string;
      // Both greylisted in the first session, both asked again with the same probe after the wait.
      expect(rcpts).toEqual([probe, `jane@${domain}`, probe, `jane@${domain}`]);
      const memory = (first.stores[index] as Checks).deps.memory;
      expect((await memory.recall(domain))?.probe).toBe(probe.slice(0, probe.indexOf('@')));
    }
    const next = await bothWays(domain, (checks) => verify(checks, `jane@${domain}`), first.stores);
    for (const result of next.results) expect(result).toMatchObject({ status: 'valid', reason: 'accepted' });
    expect(next.ms).toBeLessThan(1_500);
    expect(next.rcpts).toEqual(first.rcpts.map((rcpts) => rcpts.slice(0, 2)));
  });

  it.concurrent('a find waits out the probe, then the first candidates, once each', async ({ expect }) => {
    const domain = 'grey-2s-find.test';
    const { results, rcpts, ms } = await bothWays(domain, (checks) => find(checks, domain));
    const [first, second] = findCandidates(domain) as [string, string];
    for (const result of results) {
      expect(result).toMatchObject({ status: 'found', email: first, candidatesChecked: 2 });
    }
    expect(ms).toBeGreaterThanOrEqual(4_000);
    const [pipelinedRcpts, lockStepRcpts] = rcpts as [string[], string[]];
    const [probe] = pipelinedRcpts;
    expect(pipelinedRcpts).toEqual([probe, probe, first, second, first, second]);
    const [lockStepProbe] = lockStepRcpts;
    // Lock-step completes the greylisted group as a pipelined one would: one wait serves both.
    expect(lockStepRcpts).toEqual([lockStepProbe, lockStepProbe, first, second, first]);
  });

  it.concurrent("a 10-minute wait does not fit: limited at once, the probe remembered for the client's retry", async ({
    expect,
  }) => {
    const domain = 'grey-10m.test';
    const first = await bothWays(domain, (checks) => verify(checks, `jane@${domain}`));
    for (const result of first.results) {
      expect(result).toMatchObject({ status: 'unverifiable', reason: 'limited', isCatchAll: false });
    }
    expect(first.ms).toBeLessThan(1_500);
    const next = await bothWays(domain, (checks) => verify(checks, `jane@${domain}`), first.stores);
    for (const [index, rcpts] of first.rcpts.entries()) {
      // The probe and the target each asked once (lock-step completes the group), and the next
      // verification sends the same probe, whose greylisting clock is already running.
      expect(rcpts).toEqual([rcpts[0], `jane@${domain}`]);
      expect(next.rcpts[index]).toEqual(rcpts);
    }
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
    // MAIL FROM and the probe alone, then the 16 candidates: 2 first, the other 14 in as few
    // groups of at most 4 as they fit in, even sizes.
    expect(groups.map((chunk) => chunk.lines.length)).toEqual([2, 2, 4, 4, 3, 3]);
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

describe.each(storeKinds)('domain facts on the %s store', (kind) => {
  it('keep the probe a greylisting domain has seen through later facts, for their whole duration', async () => {
    const opened = await openTestStore({ store: kind });
    closers.push(() => opened.close());
    const clock = new ManualClock();
    const memory = new DomainMemory(opened.store, clock, { domainFactsMs: 120_000, lockStepMs: 0 });
    const probe = 'probe-0123456789abcdef01234567';
    await memory.remember('grey.test', { probe });
    expect(await memory.recall('grey.test')).toEqual({ catchAll: false, mx: null, pattern: null, probe });
    // What a later find learns is added, not put in the probe's place.
    clock.advance(60_000);
    await memory.remember('grey.test', { catchAll: false, mx: MX, pattern: 'first.last' });
    expect(await memory.recall('grey.test')).toEqual({
      catchAll: false,
      mx: MX,
      pattern: 'first.last',
      probe,
    });
    expect(await opened.store.domains.get('grey.test')).toMatchObject({
      probe,
      expiresAt: clock.now() + 120_000,
    });
    clock.advance(120_000);
    expect(await memory.recall('grey.test')).toBeUndefined();
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
    await memory.remember(MX, { catchAll: true, mx: MX, pattern: null, probe: null });
    await memory.rememberLockStepHost(MX);
    expect(await memory.isLockStepHost(MX)).toBe(true);
    expect(await memory.isLockStepHost(`other.${MX}`)).toBe(false);
    expect(await memory.recall(MX)).toEqual({ catchAll: true, mx: MX, pattern: null, probe: null });

    clock.advance(60_000);
    expect(await memory.isLockStepHost(MX)).toBe(false);
    expect(await opened.store.sweepExpired(clock.now() + 1_000)).toBe(1);
    expect(await opened.store.domains.getLockStepHost(MX)).toBeUndefined();
    expect(await memory.recall(MX)).toEqual({ catchAll: true, mx: MX, pattern: null, probe: null });
  });
});
