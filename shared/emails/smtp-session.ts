/**
 * One SMTP dialogue with one mail-exchanger address, for recipient verification only.
 *
 * The dialogue: banner (220) → EHLO (HELO when EHLO is refused with 5xx) → STARTTLS when
 * offered, then EHLO again → MAIL FROM / RCPT TO / RSET as the caller asks → QUIT. There is no
 * DATA command and no way to send one: addresses are checked for CR, LF and angle brackets so
 * that a crafted address cannot smuggle a command onto the wire either.
 *
 * One command at a time, except `sendGroup`: when the server advertised PIPELINING (RFC 2920),
 * MAIL FROM and RCPT TO commands go in one write and their replies are matched to them in order,
 * one round trip for the group. Either way every reply belongs to exactly one command, and calls
 * made while another is in flight are queued, never interleaved.
 *
 * Its parts stand in their own modules: the sockets (TCP, SOCKS5, the TLS upgrade) in
 * smtp-connection.ts, the wire format in smtp-reply.ts, the failures in smtp-errors.ts. Every
 * failure is an `SmtpError` naming the step it happened in, and destroys the socket; the session
 * is then closed for good.
 *
 * TLS: certificate errors do not fail verification by default (`tlsRejectUnauthorized`
 * false). MX certificates are often self-signed, expired or issued for another name, and
 * sending MTAs accept them too (opportunistic TLS, RFC 3207 §4.1 / RFC 7435); we send no
 * message content, so encryption protects only the addresses probed. `tlsAuthorized` reports
 * what the certificate check said, for logs.
 */
import net from 'node:net';
import { connectToMailServer, type SmtpConnectionTarget, upgradeToTls } from './smtp-connection.js';
import {
  SmtpAbortedError,
  SmtpConnectionError,
  type SmtpError,
  SmtpProtocolError,
  type SmtpStep,
  SmtpTimeoutError,
} from './smtp-errors.js';
import { ReplyFormatError, ReplyReader, type SmtpReply } from './smtp-reply.js';

export interface SmtpTimeouts {
  /** TCP connect, plus the SOCKS5 handshake when a proxy is used. */
  readonly connectMs: number;
  /** From connected to the complete 220 banner. */
  readonly greetingMs: number;
  /** Each command's reply (EHLO, HELO, STARTTLS, MAIL, RCPT, RSET, QUIT) and the TLS handshake. */
  readonly commandMs: number;
}

export interface SmtpSessionOptions extends SmtpConnectionTarget {
  /** The MX host name: TLS SNI (unless it is an IP literal) and error messages. */
  readonly serverName: string;
  /** Our EHLO/HELO name: a domain we own whose reverse DNS matches our egress address. */
  readonly heloName: string;
  readonly timeouts: SmtpTimeouts;
  /**
   * Fail the session on an invalid server certificate. Default false: see the module header.
   */
  readonly tlsRejectUnauthorized?: boolean;
}

/** RFC 5321 §4.5.3.1.3: a path is at most 256 octets including the angle brackets. */
const MAX_PATH_LENGTH = 254;

/** Refuses anything that could end the command line early or leave the angle brackets. */
function assertPath(address: string, allowEmpty: boolean): void {
  if (address.length === 0 && allowEmpty) return;
  if (address.length === 0 || address.length > MAX_PATH_LENGTH || /[\s<>\p{Cc}]/u.test(address)) {
    throw new TypeError(
      `Refusing to send the address ${JSON.stringify(address.slice(0, 80))} in an SMTP command.`,
    );
  }
}

function assertOptions(options: SmtpSessionOptions): void {
  if (net.isIP(options.address) === 0) {
    // The MX guard has checked addresses, not names: dialling a name here would bypass it.
    throw new TypeError(`SmtpSession dials IP addresses only, got ${JSON.stringify(options.address)}.`);
  }
  if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535) {
    throw new TypeError(`Invalid SMTP port ${options.port}.`);
  }
  if (!/^[^\s\p{Cc}]{1,255}$/u.test(options.heloName)) {
    throw new TypeError(`Invalid HELO name ${JSON.stringify(options.heloName)}.`);
  }
  for (const [name, value] of Object.entries(options.timeouts)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`Invalid SMTP timeout ${name}: ${value}.`);
    }
  }
}

function isPositive(reply: SmtpReply): boolean {
  return reply.code >= 200 && reply.code < 300;
}

/** The reply a wait resolved with; its absence would be a bug of this module, not of the server. */
function replyOf(reply: SmtpReply | undefined): SmtpReply {
  if (!reply) throw new Error('A reply wait resolved without its reply.');
  return reply;
}

function describe(reply: SmtpReply): string {
  return `${reply.code} ${reply.text}`.slice(0, 200);
}

/** One command of a pipelined group: RFC 2920 §3.1 lets MAIL FROM and RCPT TO appear anywhere in one. */
export interface GroupedCommand {
  readonly verb: 'mail' | 'rcpt';
  /** The path; an empty MAIL FROM address sends the null reverse-path `<>`. */
  readonly address: string;
  /**
   * MAIL FROM only: the transaction's paths may be UTF-8 beyond ASCII (RFC 6531 `SMTPUTF8`), which a
   * recipient with such a local part needs. Only after the server advertised SMTPUTF8.
   */
  readonly smtpUtf8?: boolean;
}

interface Pending {
  /**
   * The step of each reply still awaited, in order; empty while waiting for the TLS handshake (any
   * reply then is unsolicited).
   */
  readonly awaiting: SmtpStep[];
  readonly replies: SmtpReply[];
  readonly timeoutMs: number;
  timer: NodeJS.Timeout;
  resolve(replies: SmtpReply[]): void;
  reject(error: SmtpError): void;
}

export class SmtpSession {
  readonly address: string;
  readonly port: number;
  readonly serverName: string;

  private readonly options: SmtpSessionOptions;
  private socket: net.Socket;
  /** The plain socket under TLS, destroyed with it. */
  private plainSocket: net.Socket | null = null;
  private reader = new ReplyReader();
  private pending: Pending | null = null;
  /** Why the session can no longer talk; set once, by the first failure or by close(). */
  private terminal: SmtpError | null = null;
  private step: SmtpStep = 'greeting';
  /** Serializes commands: one on the wire at a time. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly onAbort = (): void => {
    this.fail(new SmtpAbortedError(this.step, { cause: this.options.signal.reason }));
  };
  private readonly onData = (chunk: Buffer): void => this.receive(chunk);
  private readonly onError = (error: Error): void => {
    this.fail(
      new SmtpConnectionError(
        this.step,
        `Connection to ${this.describeServer()} failed during ${this.step}: ${error.message}`,
        {
          cause: error,
        },
      ),
    );
  };
  private readonly onClose = (): void => {
    this.fail(
      new SmtpConnectionError(
        this.step,
        `${this.describeServer()} closed the connection during ${this.step}.`,
      ),
    );
  };

  #roundTrips = 0;
  #recipientsSinceReset = 0;
  #secure = false;
  #tlsAuthorized: boolean | null = null;
  #tlsAuthorizationError: string | null = null;
  #extensions: ReadonlySet<string> = new Set();
  #greeting: 'EHLO' | 'HELO' = 'EHLO';
  #banner: SmtpReply | null = null;

  private constructor(socket: net.Socket, options: SmtpSessionOptions) {
    this.options = options;
    this.address = options.address;
    this.port = options.port;
    this.serverName = options.serverName;
    this.socket = socket;
    this.listen(socket);
    options.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * Connects, reads the banner, greets (EHLO, or HELO when EHLO is refused with 5xx) and
   * upgrades with STARTTLS when offered. Throws an SmtpError subclass (a TypeError for invalid
   * options, before any connection); never leaves a socket open.
   */
  static async open(options: SmtpSessionOptions): Promise<SmtpSession> {
    assertOptions(options);
    if (options.signal.aborted) throw new SmtpAbortedError('connect', { cause: options.signal.reason });
    const session = new SmtpSession(await connectToMailServer(options, options.timeouts.connectMs), options);
    try {
      // The signal may have fired between the connect and the listener above.
      if (options.signal.aborted) session.onAbort();
      await session.handshake();
      return session;
    } catch (error) {
      session.close();
      throw error;
    }
  }

  /** Commands sent that waited for a reply, plus the banner (the TLS handshake is not counted). */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  /** RCPT commands sent since the session opened or the last successful RSET. */
  get recipientsSinceReset(): number {
    return this.#recipientsSinceReset;
  }

  /** True once STARTTLS has completed. */
  get secure(): boolean {
    return this.#secure;
  }

  /** Whether the server certificate verified (null without TLS); informational by default. */
  get tlsAuthorized(): boolean | null {
    return this.#tlsAuthorized;
  }

  /** Why the certificate did not verify (e.g. `DEPTH_ZERO_SELF_SIGNED_CERT`), for logs. */
  get tlsAuthorizationError(): string | null {
    return this.#tlsAuthorizationError;
  }

  /** EHLO keywords from the latest greeting, upper case; empty after HELO. */
  get extensions(): ReadonlySet<string> {
    return this.#extensions;
  }

  /** True when the latest EHLO advertised PIPELINING (RFC 2920): `sendGroup` may be used. */
  get pipelining(): boolean {
    return this.#extensions.has('PIPELINING');
  }

  /** Which greeting the server accepted. */
  get greeting(): 'EHLO' | 'HELO' {
    return this.#greeting;
  }

  /** The 220 banner. */
  get banner(): SmtpReply {
    if (!this.#banner) throw new Error('The session has no banner before open() completes.');
    return this.#banner;
  }

  /** True once the session failed or was closed; every later command throws. */
  get closed(): boolean {
    return this.terminal !== null;
  }

  /** `MAIL FROM:<address>`; an empty address sends the null reverse-path `<>`. */
  mailFrom(address: string, options: { smtpUtf8?: boolean } = {}): Promise<SmtpReply> {
    return this.group([{ verb: 'mail', address, ...options }]).then(([reply]) => replyOf(reply));
  }

  /** `RCPT TO:<address>`; the reply is returned whatever its code, for the classifier. */
  rcptTo(address: string): Promise<SmtpReply> {
    return this.group([{ verb: 'rcpt', address }]).then(([reply]) => replyOf(reply));
  }

  /**
   * RFC 2920: the commands in one write, one round trip; resolves with their replies in the same
   * order, whatever their codes. Only after the server advertised PIPELINING (a TypeError otherwise,
   * before anything is sent). Each reply gets `commandMs` from the one before it; a reply missing
   * or the connection dropping mid-group fails the whole group like any command.
   */
  sendGroup(commands: readonly GroupedCommand[]): Promise<SmtpReply[]> {
    if (!this.pipelining) throw new TypeError('The server did not advertise PIPELINING.');
    if (commands.length === 0) throw new TypeError('A pipelined group needs at least one command.');
    return this.group(commands);
  }

  /** `RSET`: ends the transaction; a 2xx reply resets `recipientsSinceReset`. */
  async rset(): Promise<SmtpReply> {
    const reply = await this.command('rset', 'RSET');
    if (isPositive(reply)) this.#recipientsSinceReset = 0;
    return reply;
  }

  /**
   * `QUIT`, best effort, then close. Resolves with the reply, or null when the session was
   * already closed or the server did not answer in time; never throws.
   */
  async quit(): Promise<SmtpReply | null> {
    if (this.terminal) return null;
    try {
      return await this.command('quit', 'QUIT');
    } catch {
      return null;
    } finally {
      this.close();
    }
  }

  /** Destroys the connection now; idempotent. A command in flight rejects. */
  close(): void {
    this.fail(new SmtpConnectionError(this.step, 'The session was closed by the client.'));
  }

  private async handshake(): Promise<void> {
    const banner = replyOf((await this.exchange(['greeting'], null, this.options.timeouts.greetingMs))[0]);
    this.#banner = banner;
    if (banner.code !== 220) {
      throw new SmtpProtocolError(
        'greeting',
        'unexpected_reply',
        `${this.describeServer()} greeted with ${describe(banner)}.`,
        {
          reply: banner,
        },
      );
    }
    await this.hello(true);
    if (this.#extensions.has('STARTTLS')) await this.startTls();
  }

  private async hello(allowHelo: boolean): Promise<void> {
    const ehlo = await this.command('ehlo', `EHLO ${this.options.heloName}`);
    if (isPositive(ehlo)) {
      // The first line is the server's name; each further line is one extension keyword.
      this.#extensions = new Set(
        ehlo.lines.slice(1).map((line) => (line.trim().split(/\s+/)[0] ?? '').toUpperCase()),
      );
      this.#greeting = 'EHLO';
      return;
    }
    // RFC 5321 §3.2: a server that does not know EHLO answers 5xx; a 4xx is not a refusal of EHLO.
    if (allowHelo && ehlo.code >= 500) {
      const helo = await this.command('helo', `HELO ${this.options.heloName}`);
      if (isPositive(helo)) {
        this.#extensions = new Set();
        this.#greeting = 'HELO';
        return;
      }
      throw new SmtpProtocolError('helo', 'unexpected_reply', `HELO was refused: ${describe(helo)}.`, {
        reply: helo,
      });
    }
    throw new SmtpProtocolError('ehlo', 'unexpected_reply', `EHLO was refused: ${describe(ehlo)}.`, {
      reply: ehlo,
    });
  }

  private async startTls(): Promise<void> {
    const reply = await this.command('starttls', 'STARTTLS');
    // RFC 3207 §4: after a refusal the client may go on in plain text. We do: no message content
    // is sent, and a refusal is the server's choice, not a verdict on the mailbox.
    if (reply.code !== 220) return;
    if (this.reader.hasBufferedBytes) {
      // Plain text after the 220 would be read as if it came over TLS (the STARTTLS command
      // injection of CVE-2011-0411): the session ends instead.
      const error = new SmtpProtocolError(
        'starttls',
        'data_after_starttls',
        'Plain-text bytes followed the STARTTLS reply.',
      );
      this.fail(error);
      throw error;
    }
    const plain = this.socket;
    this.unlisten(plain);
    // Errors surface on the TLS socket; this only keeps a late one on the plain socket harmless.
    plain.on('error', () => {});
    const secure = upgradeToTls(plain, this.serverName, this.options.tlsRejectUnauthorized ?? false);
    this.plainSocket = plain;
    this.socket = secure;
    this.reader = new ReplyReader();
    this.listen(secure);
    await this.wait([], this.options.timeouts.commandMs, () => {
      secure.once('secureConnect', () => this.settle());
    });
    this.#secure = true;
    this.#tlsAuthorized = secure.authorized;
    const authorizationError: unknown = secure.authorizationError;
    this.#tlsAuthorizationError =
      authorizationError === undefined || authorizationError === null ? null : String(authorizationError);
    // RFC 3207 §4.2: everything learnt before TLS is discarded; greet again, EHLO only.
    this.#extensions = new Set();
    await this.hello(false);
  }

  /**
   * MAIL FROM and RCPT TO commands written together, their replies in order. The paths are checked
   * synchronously, before anything is queued.
   */
  private group(commands: readonly GroupedCommand[]): Promise<SmtpReply[]> {
    for (const { verb, address, smtpUtf8 } of commands) {
      assertPath(address, verb === 'mail');
      if (smtpUtf8 && !this.#extensions.has('SMTPUTF8'))
        throw new TypeError('The server did not advertise SMTPUTF8.');
    }
    const lines = commands.map(({ verb, address, smtpUtf8 }) =>
      verb === 'mail'
        ? `MAIL FROM:<${address}>${smtpUtf8 ? ' SMTPUTF8' : ''}\r\n`
        : `RCPT TO:<${address}>\r\n`,
    );
    const steps = commands.map(({ verb }) => verb);
    return this.queue(() =>
      this.exchange(steps, lines.join(''), this.options.timeouts.commandMs, () => {
        // Counted when sent: limits such as Outlook's second-RCPT 452 count attempts.
        this.#recipientsSinceReset += steps.filter((step) => step === 'rcpt').length;
      }),
    );
  }

  private command(step: SmtpStep, line: string): Promise<SmtpReply> {
    return this.queue(() =>
      this.exchange([step], `${line}\r\n`, this.options.timeouts.commandMs).then(([reply]) => replyOf(reply)),
    );
  }

  /** Runs `run` after everything queued before it, whether that succeeded or not. */
  private queue<T>(run: () => Promise<T>): Promise<T> {
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Writes `text` (nothing, for the banner) and waits for one reply per step, in order. */
  private exchange(
    steps: SmtpStep[],
    text: string | null,
    timeoutMs: number,
    onSend?: () => void,
  ): Promise<SmtpReply[]> {
    return this.wait(steps, timeoutMs, () => {
      this.#roundTrips += 1;
      onSend?.();
      if (text !== null) this.socket.write(text);
    });
  }

  /** `awaiting` empty: waits for `settle()` (the TLS handshake), any reply meanwhile is unsolicited. */
  private wait(awaiting: SmtpStep[], timeoutMs: number, start: () => void): Promise<SmtpReply[]> {
    const step = awaiting[0] ?? 'tls';
    if (this.terminal) return Promise.reject(this.closedError(step));
    this.step = step;
    return new Promise((resolve, reject) => {
      this.pending = {
        awaiting: [...awaiting],
        replies: [],
        timeoutMs,
        timer: this.armTimer(timeoutMs),
        resolve,
        reject,
      };
      start();
    });
  }

  /** The current step's timeout; it names the step in flight when it fires. */
  private armTimer(timeoutMs: number): NodeJS.Timeout {
    return setTimeout(() => this.fail(new SmtpTimeoutError(this.step, timeoutMs)), timeoutMs);
  }

  private settle(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    clearTimeout(pending.timer);
    pending.resolve(pending.replies);
  }

  private receive(chunk: Buffer): void {
    if (this.terminal) return;
    let replies: SmtpReply[];
    try {
      replies = this.reader.push(chunk);
    } catch (error) {
      if (!(error instanceof ReplyFormatError)) throw error;
      this.fail(new SmtpProtocolError(this.step, error.problem, error.message));
      return;
    }
    for (const reply of replies) {
      const pending = this.pending;
      if (pending && pending.awaiting.length > 0) {
        pending.replies.push(reply);
        pending.awaiting.shift();
        const next = pending.awaiting[0];
        if (next === undefined) {
          this.settle();
          continue;
        }
        // The next reply of a group gets its own full timeout.
        this.step = next;
        clearTimeout(pending.timer);
        pending.timer = this.armTimer(pending.timeoutMs);
        continue;
      }
      // A reply beyond those awaited is out of turn: the next command's answer would be
      // misattributed, so the session ends here with the reply kept for the caller.
      this.fail(
        new SmtpProtocolError(this.step, 'unsolicited_reply', `Unsolicited reply: ${describe(reply)}.`, {
          reply,
        }),
      );
      return;
    }
  }

  /** First failure wins: records it, destroys the sockets, rejects the command in flight. */
  private fail(error: SmtpError): void {
    if (this.terminal) return;
    this.terminal = error;
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.socket.destroy();
    this.plainSocket?.destroy();
    const pending = this.pending;
    if (pending) {
      this.pending = null;
      clearTimeout(pending.timer);
      error.repliesBeforeFailure = [...pending.replies];
      pending.reject(error);
    }
  }

  /** The error for a command attempted after the session ended, labelled with that command. */
  private closedError(step: SmtpStep): SmtpError {
    const terminal = this.terminal;
    if (terminal instanceof SmtpAbortedError) return new SmtpAbortedError(step, { cause: terminal.cause });
    if (terminal instanceof SmtpProtocolError && terminal.reply) {
      return new SmtpProtocolError(step, terminal.problem, terminal.message, {
        reply: terminal.reply,
        cause: terminal,
      });
    }
    return new SmtpConnectionError(step, `The session is closed: ${terminal?.message ?? 'unknown reason'}`, {
      cause: terminal,
    });
  }

  private listen(socket: net.Socket): void {
    socket.on('data', this.onData);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  private unlisten(socket: net.Socket): void {
    socket.off('data', this.onData);
    socket.off('error', this.onError);
    socket.off('close', this.onClose);
  }

  private describeServer(): string {
    return `${this.serverName} (${this.address}:${this.port})`;
  }
}
