/**
 * How an SMTP session fails: one typed hierarchy, each failure carrying the step it happened in.
 *
 * It stands apart because three parties share it and none owns it: the connection raises the
 * connect-step failures, the session the rest, and the mail-server dialogue reads them to choose a
 * verdict (a timeout, a refusing banner, a dropped connection mean different things to it).
 *
 * - `SmtpTimeoutError`: a step exceeded its own timeout (connect, greeting, or any command).
 * - `SmtpAbortedError`: the caller's AbortSignal fired. Deliberately not a timeout: the signal
 *   may be an overall budget (then `cause` is the signal's reason, a `TimeoutError`
 *   DOMException for `AbortSignal.timeout`) or a cancelled request, and only the caller knows
 *   which verdict that deserves.
 * - `SmtpConnectionError`: refused, reset, or closed by the server mid-dialogue; `cause` is the
 *   socket error when there is one.
 * - `SmtpProtocolError`: the server said something we cannot use (an unexpected banner or
 *   greeting reply, a malformed, oversized or unsolicited reply); `reply` is kept when there
 *   is one, so a 554 banner naming a blocklist can still be classified.
 */
import type { ReplyFormatProblem, SmtpReply } from './smtp-reply.js';

/** Where a session was when something happened. */
export type SmtpStep =
  | 'connect'
  | 'greeting'
  | 'ehlo'
  | 'helo'
  | 'starttls'
  | 'tls'
  | 'mail'
  | 'rcpt'
  | 'rset'
  | 'quit';

export interface SmtpErrorOptions {
  cause?: unknown;
}

/** Base of every failure of a session: always says in which step it happened. */
export abstract class SmtpError extends Error {
  readonly step: SmtpStep;
  /**
   * The replies a pipelined group received before it failed, in order (the server processed those
   * commands); empty for anything else.
   */
  repliesBeforeFailure: readonly SmtpReply[] = [];

  constructor(step: SmtpStep, message: string, options: SmtpErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.step = step;
  }
}

/** Refused, reset, or closed by the server (or by us) before the step completed. */
export class SmtpConnectionError extends SmtpError {}

/** A step took longer than its own timeout; the socket has been destroyed. */
export class SmtpTimeoutError extends SmtpError {
  readonly timeoutMs: number;

  constructor(step: SmtpStep, timeoutMs: number, options: SmtpErrorOptions = {}) {
    super(step, `No answer within ${timeoutMs} ms during ${step}.`, options);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired; `cause` is the signal's reason. */
export class SmtpAbortedError extends SmtpError {
  constructor(step: SmtpStep, options: SmtpErrorOptions = {}) {
    super(step, `The SMTP session was aborted during ${step}.`, options);
  }
}

export type SmtpProtocolProblem =
  /** A well-formed reply with a code this step cannot continue with (e.g. a 554 banner). */
  | 'unexpected_reply'
  /** What the reply parser refuses: a malformed line or multi-line reply, or one too large. */
  | ReplyFormatProblem
  /** A reply nobody asked for (e.g. a 421 while idle, or bytes trailing another reply). */
  | 'unsolicited_reply'
  /** Bytes after the STARTTLS 220, before the handshake: a command-injection attempt. */
  | 'data_after_starttls';

export class SmtpProtocolError extends SmtpError {
  readonly problem: SmtpProtocolProblem;
  /** The offending reply when one was parsed. */
  readonly reply: SmtpReply | null;

  constructor(
    step: SmtpStep,
    problem: SmtpProtocolProblem,
    message: string,
    options: SmtpErrorOptions & { reply?: SmtpReply | null } = {},
  ) {
    super(step, message, options);
    this.problem = problem;
    this.reply = options.reply ?? null;
  }
}
