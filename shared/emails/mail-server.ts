/**
 * Reaching a domain's mail server, for verify and find alike: MX hosts in preference order (the next
 * one on a connection failure or a 4xx before the first recipient), every resolved address checked
 * by the address policy before it is dialled (one DNS record must not turn us into a port-25 scanner
 * of our own network), one concurrency slot per MX host, and a dialogue that survives servers
 * limiting recipients (RSET, then a new connection).
 */
import { randomBytes } from 'node:crypto';
import { CapacityExceededError } from '../errors.js';
import type { HostSlots } from '../limits/host-slots.js';
import type { Logger } from '../logger.js';
import { classifyDial } from '../net/address-policy.js';
import type { MailHost, MxResolver } from './mx-resolver.js';
import { classifyRcptReply, type RcptReason } from './reply-classifier.js';
import {
  SmtpAbortedError,
  SmtpError,
  SmtpProtocolError,
  type SmtpReply,
  SmtpSession,
  type SmtpStep,
  SmtpTimeoutError,
} from './smtp-session.js';

export interface SmtpSettings {
  heloName: string;
  mailFrom: string;
  port: number;
  stepTimeoutMs: number;
  socksProxy?: { host: string; port: number };
  /** UNSAFE_SMTP_ALLOW_HOSTS: exact host:port pairs dialled although not public (tests only). */
  allowHosts: ReadonlySet<string>;
}

export interface MailServerDependencies {
  resolver: MxResolver;
  capacity: HostSlots;
  settings: SmtpSettings;
  logger: Logger;
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

/** One recipient check inside an open dialogue. */
export interface Dialogue {
  readonly mx: string;
  rcpt(address: string): Promise<RcptOutcome>;
  /** SMTP round trips so far, across reconnections. */
  readonly roundTrips: number;
}

/** An unguessable local part for the catch-all probe (no real mailbox is named like this). */
export function randomLocalPart(): string {
  return `probe-${randomBytes(12).toString('hex')}`;
}

/**
 * Runs `talk` in a dialogue with the first mail host of `domain` that answers. A failure inside the
 * dialogue (timeout, dropped connection) ends the reach as `unreachable` with its reason; `talk`
 * keeps its own record of what it learned before that.
 */
export async function reachMailServer<T>(
  deps: MailServerDependencies,
  domain: string,
  signal: AbortSignal,
  talk: (dialogue: Dialogue) => Promise<T>,
): Promise<Reach<T>> {
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
          value: await converse(deps, host.exchange, address, signal, talk),
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

/** A 4xx or 5xx before any recipient: try the next MX host. */
class NextHost extends Error {
  constructor(readonly reply: SmtpReply) {
    super(`MAIL FROM answered ${reply.code} ${reply.text}`);
  }
}

async function converse<T>(
  deps: MailServerDependencies,
  mx: string,
  address: string,
  signal: AbortSignal,
  talk: (dialogue: Dialogue) => Promise<T>,
): Promise<T> {
  const { settings } = deps;
  const open = async () => {
    const session = await SmtpSession.open({
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
    const sender = await session.mailFrom(settings.mailFrom);
    if (sender.code >= 400) {
      session.close();
      throw new NextHost(sender);
    }
    return session;
  };

  let session = await open();
  let roundTripsBefore = 0;
  const dialogue: Dialogue = {
    mx,
    get roundTrips() {
      return roundTripsBefore + session.roundTrips;
    },
    async rcpt(recipient) {
      const ask = async (): Promise<RcptOutcome> => {
        const reply = await session.rcptTo(recipient);
        return { reason: classifyRcptReply(reply).reason, reply };
      };
      let outcome = await ask();
      if (!isTooManyRecipients(outcome.reply)) return outcome;
      // The server limits recipients per transaction: start a new one…
      await session.rset();
      await session.mailFrom(settings.mailFrom);
      outcome = await ask();
      if (!isTooManyRecipients(outcome.reply)) return outcome;
      // …or per connection: start a new connection.
      roundTripsBefore += session.roundTrips;
      await session.quit();
      session = await open();
      return ask();
    },
  };
  try {
    return await talk(dialogue);
  } finally {
    await session.quit().catch(() => session.close());
  }
}

function isTooManyRecipients(reply: SmtpReply): boolean {
  return reply.code === 452 || reply.enhancedCode === '4.5.3';
}
