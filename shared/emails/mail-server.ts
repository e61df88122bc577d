/**
 * Reaching a domain's mail server, for verify and find alike: MX hosts in preference order (the next
 * one on a connection failure or a 4xx before the first recipient), every resolved address checked
 * by the address policy before it is dialled (one DNS record must not turn us into a port-25 scanner
 * of our own network), one concurrency slot per MX host, and a dialogue that survives servers
 * limiting recipients (RSET, then a new connection). The dialogue pipelines MAIL FROM and RCPT TO
 * (RFC 2920) where the host allows it, and falls back to one command at a time, remembered per host
 * in domain memory, where a host answers a group out of step: the outcomes are the same either way.
 * Greylisting that states a wait short enough for the budget is waited out once per recipient.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { CapacityExceededError } from '../errors.js';
import type { HostSlots } from '../limits/host-slots.js';
import type { Logger } from '../logger.js';
import { classifyDial } from '../net/address-policy.js';
import type { DomainMemory } from './domain-memory.js';
import type { MailHost, MxResolver } from './mx-resolver.js';
import { classifyRcptReply, greylistingOf, type RcptReason } from './reply-classifier.js';
import {
  SmtpAbortedError,
  SmtpError,
  SmtpProtocolError,
  type SmtpStep,
  SmtpTimeoutError,
} from './smtp-errors.js';
import type { SmtpReply } from './smtp-reply.js';
import { SmtpSession } from './smtp-session.js';

export interface SmtpSettings {
  heloName: string;
  mailFrom: string;
  port: number;
  stepTimeoutMs: number;
  socksProxy?: { host: string; port: number };
  /** UNSAFE_SMTP_ALLOW_HOSTS: exact host:port pairs dialled although not public (tests only). */
  allowHosts: ReadonlySet<string>;
  /** SMTP_PIPELINING_GROUP_SIZE: the most RCPT commands in one pipelined group. */
  pipeliningGroupSize: number;
  /** SMTP_PIPELINING_PACING_MS: the least time between the starts of two groups of one session. */
  pipeliningPacingMs: number;
}

export interface MailServerDependencies {
  resolver: MxResolver;
  capacity: HostSlots;
  settings: SmtpSettings;
  logger: Logger;
  /** Mail hosts remembered as lock-step (and, for find, what domains taught us). */
  memory: DomainMemory;
}

/** The outcome of reaching the domain's mail server and holding a dialogue with it. */
export type Reach<T> =
  | { kind: 'no_mx' }
  | { kind: 'dns_error' }
  /**
   * No mail host completed a dialogue; `mx` is the last one tried, `reason` why: it did not answer in
   * time, it refused us (a blocklist banner), it asked us to come back later, or anything else.
   */
  | { kind: 'unreachable'; reason: 'mx_error' | 'timeout' | 'spam_block' | 'limited'; mx: string | null }
  | { kind: 'done'; mx: string; value: T };

export interface RcptOutcome {
  reason: RcptReason;
  reply: SmtpReply;
}

/** The time of one check: the signal that ends it, and when (`performance.now()`) its budget does. */
export interface Budget {
  signal: AbortSignal;
  endsAt: number;
}

/** Recipient checks inside an open dialogue. */
export interface Dialogue {
  readonly mx: string;
  /**
   * Every recipient the server answered an RCPT TO for, in any session of this dialogue, whether the
   * consumer read that answer or not (the rest of a pipelined group). A command the server never
   * answered (after a 421, or a dropped connection) is not counted: nothing says it was read.
   */
  readonly answered: ReadonlySet<string>;
  /** True once a recipient was answered with greylisting (waited out or not). */
  readonly greylisted: boolean;
  /**
   * The outcome of each recipient of `groups`, in order, each as soon as it is known. A group goes
   * in one pipelined write where the host allows it (split at SMTP_PIPELINING_GROUP_SIZE), one
   * command at a time elsewhere. Nothing is asked beyond what the consumer reads (stop reading and
   * no further command or group is sent), except the rest of the group being read: a pipelined
   * group asks it anyway, and a greylisted recipient's group is completed in lock-step too, so that
   * greylisting sees each of its recipients once and one wait serves them all. A greylisting reply
   * that states a wait the budget can afford is not read: the dialogue waits, opens a new
   * connection and asks again from that recipient, once per recipient.
   */
  ask(groups: readonly (readonly string[])[]): AsyncGenerator<RcptOutcome, void, undefined>;
}

/** An unguessable local part for the catch-all probe (no real mailbox is named like this). */
export function randomLocalPart(): string {
  return `probe-${randomBytes(12).toString('hex')}`;
}

export interface ReachOptions {
  /**
   * A recipient's local part goes beyond ASCII (RFC 6531): only a host that advertises SMTPUTF8 may
   * be asked, in transactions that request it. Asked without it, a server refuses the address as
   * malformed, which would read as a mailbox that does not exist; a host without SMTPUTF8 cannot
   * take mail for it at all, so it is passed over like a host that refuses our sender.
   */
  smtpUtf8?: boolean;
}

/**
 * Runs `talk` in a dialogue with the first mail host of `domain` that answers. A failure inside the
 * dialogue (timeout, dropped connection) ends the reach as `unreachable` with its reason; `talk`
 * keeps its own record of what it learned before that.
 */
export async function reachMailServer<T>(
  deps: MailServerDependencies,
  domain: string,
  budget: Budget,
  talk: (dialogue: Dialogue) => Promise<T>,
  options: ReachOptions = {},
): Promise<Reach<T>> {
  const { signal } = budget;
  const mail = await deps.resolver.resolveMailHosts(domain, signal);
  if (mail.kind === 'null_mx' || mail.kind === 'no_mail_server') return { kind: 'no_mx' };
  if (mail.kind === 'dns_error') return { kind: 'dns_error' };

  let last: Reach<T> = { kind: 'unreachable', reason: 'mx_error', mx: null };
  for (const host of mail.hosts) {
    const addresses = await dialableAddresses(deps, host, signal);
    for (const address of addresses) {
      const lease = await deps.capacity.acquire(host.exchange);
      if (!lease)
        throw new CapacityExceededError(`The mail server ${host.exchange} is at our concurrency limit.`);
      try {
        return {
          kind: 'done',
          mx: host.exchange,
          value: await converse(deps, host.exchange, address, budget, talk, options.smtpUtf8 ?? false),
        };
      } catch (error) {
        if (!(error instanceof SmtpError || error instanceof NextHost)) throw error;
        deps.logger.info(
          { mx: host.exchange, address, reason: error.message },
          'mail host did not complete the dialogue',
        );
        last = { kind: 'unreachable', reason: failureReason(error), mx: host.exchange };
        // Once recipients were being asked about, another host would only repeat the question.
        if (signal.aborted || (error instanceof SmtpError && RECIPIENT_STEPS.has(error.step))) return last;
      } finally {
        await lease.release().catch(() => undefined);
      }
    }
    if (addresses.length === 0) last = { kind: 'unreachable', reason: 'mx_error', mx: host.exchange };
  }
  return last;
}

/** Resolved and checked addresses of one MX host; refusals are logged with their reason. */
async function dialableAddresses(
  deps: MailServerDependencies,
  host: MailHost,
  signal: AbortSignal,
): Promise<string[]> {
  let resolved: string[];
  try {
    resolved = await deps.resolver.resolveAddresses(host.exchange, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    deps.logger.info({ mx: host.exchange, err: error }, 'mail host did not resolve');
    return [];
  }
  return resolved.flatMap((address) => {
    const decision = classifyDial(address, deps.settings.port, host.exchange, deps.settings.allowHosts);
    if (decision.allowed) return [decision.address];
    deps.logger.warn(
      { mx: host.exchange, address, reason: decision.reason },
      'refused to dial a mail host address',
    );
    return [];
  });
}

const RECIPIENT_STEPS: ReadonlySet<SmtpStep> = new Set(['rcpt', 'rset']);

/** Why a dialogue failed: too slow, a reply that refuses us or defers us, or a broken server. */
function failureReason(error: SmtpError | NextHost): 'mx_error' | 'timeout' | 'spam_block' | 'limited' {
  if (error instanceof SmtpTimeoutError || error instanceof SmtpAbortedError) return 'timeout';
  const reply =
    error instanceof SmtpProtocolError ? error.reply : error instanceof NextHost ? error.reply : null;
  if (!reply) return 'mx_error';
  const { reason } = classifyRcptReply(reply);
  return reason === 'spam_block' || reason === 'limited' ? reason : 'mx_error';
}

/** Nothing to ask this host (a 4xx or 5xx to MAIL FROM, or no SMTPUTF8 when needed): try the next. */
class NextHost extends Error {
  constructor(
    message: string,
    readonly reply: SmtpReply | null = null,
  ) {
    super(message);
  }
}

/**
 * One dialogue with one address of `mx`, `talk` asking its questions through it. Pipelined (RFC 2920)
 * when the host advertises PIPELINING and is not remembered as answering out of step: MAIL FROM goes
 * with the first group of recipients, and groups hold at most `pipeliningGroupSize` recipients, at
 * least `pipeliningPacingMs` apart. A group answered out of step (a connection drop, a reply missing
 * or extra, a 421) ends that session; the host is remembered as lock-step and the recipients not yet
 * answered are asked again one command at a time in a new session, so every outcome is one that
 * lock-step gave. The first 452 "too many recipients" also ends pipelining for the dialogue: from
 * that recipient on, the lock-step handling of recipient limits applies (RSET and a new transaction,
 * then a new connection). Greylisting that states its wait: when the wait, plus as long again as
 * this session has taken, still ends inside the budget, the session ends, the wait is waited (the
 * host's slot kept), and a new session asks again from the greylisted recipient; a recipient asked
 * again after a wait is not waited for twice.
 */
async function converse<T>(
  deps: MailServerDependencies,
  mx: string,
  address: string,
  budget: Budget,
  talk: (dialogue: Dialogue) => Promise<T>,
  smtpUtf8: boolean,
): Promise<T> {
  const { settings } = deps;
  const { signal } = budget;
  /** Whether this dialogue's sessions talk one command at a time (read before the first one). */
  let lockStep = await deps.memory.isLockStepHost(mx);
  /** Whether the current session sends groups: lock-step not chosen, and PIPELINING advertised. */
  let pipelined = false;
  /** Whether MAIL FROM was accepted in the current session. */
  let inTransaction = false;
  let lastGroupAt = Number.NEGATIVE_INFINITY;
  let sessionOpenedAt = performance.now();
  let session!: SmtpSession;
  const answered = new Set<string>();
  /** Recipients asked again after a greylisting wait: never waited for twice. */
  const waitedFor = new Set<string>();
  let greylisted = false;

  const startTransaction = async (): Promise<void> => {
    acceptSender(await session.mailFrom(settings.mailFrom, { smtpUtf8 }));
  };
  const acceptSender = (sender: SmtpReply): void => {
    if (sender.code >= 400) {
      session.close();
      throw new NextHost(`MAIL FROM answered ${sender.code} ${sender.text}`, sender);
    }
    inTransaction = true;
  };
  const open = async (): Promise<void> => {
    sessionOpenedAt = performance.now();
    session = await SmtpSession.open({
      address,
      port: settings.port,
      serverName: mx,
      heloName: settings.heloName,
      timeouts: {
        connectMs: settings.stepTimeoutMs,
        greetingMs: settings.stepTimeoutMs,
        commandMs: settings.stepTimeoutMs,
      },
      signal,
      socksProxy: settings.socksProxy,
    });
    if (smtpUtf8 && !session.extensions.has('SMTPUTF8')) {
      void session.quit();
      throw new NextHost('The host does not advertise SMTPUTF8: it takes no address beyond ASCII.');
    }
    pipelined = !lockStep && session.pipelining;
    inTransaction = false;
    // Lock-step starts the transaction at once; pipelined, MAIL FROM rides with the first group.
    if (!pipelined) await startTransaction();
  };
  const reopen = async (): Promise<void> => {
    // QUIT is not waited for: the old session's answer changes nothing.
    void session.quit();
    await open();
  };

  /** One recipient, one command at a time, surviving recipient limits as lock-step always has. */
  const askOne = async (recipient: string): Promise<RcptOutcome> => {
    const once = async (): Promise<RcptOutcome> => {
      const reply = await session.rcptTo(recipient);
      answered.add(recipient);
      return outcomeOf(reply);
    };
    let outcome = await once();
    if (!isTooManyRecipients(outcome.reply)) return outcome;
    // The server limits recipients per transaction: start a new one…
    await session.rset();
    await startTransaction();
    outcome = await once();
    if (!isTooManyRecipients(outcome.reply)) return outcome;
    // …or per connection: start a new connection.
    await reopen();
    return once();
  };

  /** One pipelined group; `out_of_step` when its replies cannot be matched to it with confidence. */
  const askInGroup = async (
    recipients: readonly string[],
  ): Promise<{ kind: 'answered'; outcomes: RcptOutcome[] } | { kind: 'out_of_step'; reason: string }> => {
    await pace(lastGroupAt + settings.pipeliningPacingMs - performance.now(), signal);
    const withSender = !inTransaction;
    lastGroupAt = performance.now();
    const countAnswered = (replies: readonly SmtpReply[]): void => {
      for (const recipient of recipients.slice(0, replies.length - (withSender ? 1 : 0)))
        answered.add(recipient);
    };
    let replies: SmtpReply[];
    try {
      replies = await session.sendGroup([
        ...(withSender ? [{ verb: 'mail' as const, address: settings.mailFrom, smtpUtf8 }] : []),
        ...recipients.map((recipient) => ({ verb: 'rcpt' as const, address: recipient })),
      ]);
    } catch (error) {
      if (!(error instanceof SmtpError) || error instanceof SmtpAbortedError) throw error;
      countAnswered(error.repliesBeforeFailure);
      return { kind: 'out_of_step', reason: error.message };
    }
    countAnswered(replies);
    // A 421 closes the connection: whatever follows it in the group was never answered.
    const closing = replies.find((reply) => reply.code === 421);
    if (closing) return { kind: 'out_of_step', reason: `421 ${closing.text}` };
    if (withSender) acceptSender(replies.shift() as SmtpReply);
    return { kind: 'answered', outcomes: replies.map(outcomeOf) };
  };

  /** The wait a greylisting `outcome` of `recipient` asks for, when the budget affords it. */
  const affordableWait = (recipient: string, outcome: RcptOutcome): number | null => {
    const greylisting = greylistingOf(outcome.reply);
    if (!greylisting) return null;
    greylisted = true;
    const waitMs = greylisting.retryAfterMs;
    if (waitMs === null || waitedFor.has(recipient)) return null;
    // The new session is assumed to take as long as this one has so far.
    const retryMs = performance.now() - sessionOpenedAt;
    return performance.now() + waitMs + retryMs <= budget.endsAt ? waitMs : null;
  };

  await open();
  const dialogue: Dialogue = {
    mx,
    answered,
    get greylisted() {
      return greylisted;
    },
    async *ask(groups) {
      // Each planned group cut at the group size, flattened: where each recipient's group ends.
      const recipients: string[] = [];
      const groupEnds: number[] = [];
      for (const group of groups) {
        for (let start = 0; start < group.length; start += settings.pipeliningGroupSize) {
          const part = group.slice(start, start + settings.pipeliningGroupSize);
          recipients.push(...part);
          groupEnds.push(...part.map(() => recipients.length));
        }
      }
      let next = 0;
      while (next < recipients.length) {
        const groupEnd = groupEnds[next] as number;
        let outcomes: RcptOutcome[];
        if (pipelined) {
          const answer = await askInGroup(recipients.slice(next, groupEnd));
          if (answer.kind === 'out_of_step') {
            deps.logger.info(
              { mx, address, reason: answer.reason },
              'mail host answered a pipelined group out of step; lock-step from now on',
            );
            await deps.memory.rememberLockStepHost(mx);
            lockStep = true;
            session.close();
            await open();
            continue;
          }
          outcomes = answer.outcomes;
        } else {
          outcomes = [await askOne(recipients[next] as string)];
          // Greylisting starts its clock per recipient: the rest of the group is asked now, as a
          // pipelined group would have, so that one wait serves them all.
          if (greylistingOf((outcomes[0] as RcptOutcome).reply)) {
            for (const recipient of recipients.slice(next + 1, groupEnd))
              outcomes.push(await askOne(recipient));
          }
        }
        for (const outcome of outcomes) {
          const recipient = recipients[next] as string;
          if (pipelined && isTooManyRecipients(outcome.reply)) {
            // Not a broken server, a limit: not remembered, but this dialogue goes on in lock-step.
            lockStep = true;
            pipelined = false;
            break;
          }
          const waitMs = affordableWait(recipient, outcome);
          if (waitMs !== null) {
            deps.logger.info({ mx, address, waitMs }, 'greylisted: waiting as asked, then asking again');
            for (const again of recipients.slice(next, groupEnd)) waitedFor.add(again);
            void session.quit();
            await pace(waitMs, signal);
            await open();
            break;
          }
          next += 1;
          yield outcome;
        }
      }
    },
  };
  try {
    return await talk(dialogue);
  } finally {
    // The caller is answered without waiting for the server's goodbye.
    void session.quit();
  }
}

function outcomeOf(reply: SmtpReply): RcptOutcome {
  return { reason: classifyRcptReply(reply).reason, reply };
}

/** Waits `ms` (nothing when it is not positive); the budget's abort ends the wait as a session abort would. */
async function pace(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return;
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (signal.aborted) throw new SmtpAbortedError('rcpt', { cause: signal.reason });
    throw error;
  }
}

function isTooManyRecipients(reply: SmtpReply): boolean {
  return reply.code === 452 || reply.enhancedCode === '4.5.3';
}
