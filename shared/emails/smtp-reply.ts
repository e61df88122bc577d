/**
 * SMTP replies as they come off the wire: the reply shape, the incremental parser and its size guards.
 *
 * It stands apart from the session because it is pure (bytes in, replies out, no socket, no timer),
 * so the wire format (RFC 5321 §4.2: `NNN[ -]text` lines, multi-line replies whose codes must agree,
 * the RFC 3463 enhanced status code) can be tested as a table, and the reply classifier and test
 * fixtures can parse a reply without opening a session. It depends on nothing else of the SMTP code;
 * the session turns a `ReplyFormatError` into an `SmtpProtocolError` naming the step it happened in.
 */

/** One parsed server reply. */
export interface SmtpReply {
  /** The three-digit reply code (RFC 5321 §4.2). */
  readonly code: number;
  /**
   * The RFC 3463 status code (`class.subject.detail`) from the start of the first line, or null.
   * Never invented from the basic code; ignored when its class disagrees with the reply code
   * (a text starting with an IP address such as `5.1.2.3` is not a status code).
   */
  readonly enhancedCode: string | null;
  /** Each line's text after the code and separator, as received. */
  readonly lines: string[];
  /** The lines without the repeated enhanced code, joined by one space: for logs and matching. */
  readonly text: string;
}

/**
 * RFC 5321 §4.5.3.1.5 caps a reply line at 512 octets; real servers exceed it a little (long
 * Microsoft and Google texts), so 8 KiB leaves room and still bounds what we buffer.
 */
export const SMTP_MAX_LINE_BYTES = 8 * 1024;
/** A whole reply, all lines: a hostile server cannot make us buffer more than this. */
export const SMTP_MAX_REPLY_BYTES = 64 * 1024;

export type ReplyFormatProblem =
  /** A line that is not `NNN[ -]text`, or a multi-line reply whose codes disagree. */
  'malformed_reply' | 'line_too_long' | 'reply_too_large';

/** Bytes that are not a reply we accept; the reader that threw it is unusable afterwards. */
export class ReplyFormatError extends Error {
  constructor(
    readonly problem: ReplyFormatProblem,
    message: string,
  ) {
    super(message);
    this.name = 'ReplyFormatError';
  }
}

/** `class.subject.detail` at the very start of a text, followed by a space or the end. */
const ENHANCED_CODE_PATTERN = /^([245])\.(\d{1,3})\.(\d{1,3})(?=\s|$)/;
/** RFC 5321 §4.2: a code, then a space (last line), a hyphen (more lines follow) or nothing. */
const REPLY_LINE_PATTERN = /^([2-5]\d\d)(?:([ -])(.*))?$/s;

function enhancedCodeOf(code: number, firstLine: string): string | null {
  const match = ENHANCED_CODE_PATTERN.exec(firstLine);
  if (!match || match[1] !== String(code).charAt(0)) return null;
  return `${match[1]}.${match[2]}.${match[3]}`;
}

function buildReply(code: number, lines: string[]): SmtpReply {
  const enhancedCode = enhancedCodeOf(code, lines[0] ?? '');
  // Servers repeat the enhanced code on every line (RFC 2034 §4); it is kept once, in its field.
  const strip = (line: string): string =>
    enhancedCode !== null && enhancedCodeOf(code, line) === enhancedCode
      ? line.slice(enhancedCode.length)
      : line;
  const text = lines.map(strip).join(' ').replace(/\s+/g, ' ').trim();
  return { code, enhancedCode, lines, text };
}

/** Incremental reply parser with the size guards; bytes in, complete replies out. */
export class ReplyReader {
  private pending: Buffer = Buffer.alloc(0);
  private lines: string[] = [];
  private code = 0;
  private replyBytes = 0;

  /** True when part of a reply has been received but not its last line. */
  get hasBufferedBytes(): boolean {
    return this.pending.length > 0 || this.lines.length > 0;
  }

  /** Throws ReplyFormatError; the reader is unusable afterwards (the session is torn down). */
  push(chunk: Buffer): SmtpReply[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const replies: SmtpReply[] = [];
    for (;;) {
      const end = this.pending.indexOf(0x0a);
      if (end < 0) break;
      if (end > SMTP_MAX_LINE_BYTES) {
        throw new ReplyFormatError(
          'line_too_long',
          `A reply line is longer than ${SMTP_MAX_LINE_BYTES} bytes.`,
        );
      }
      const raw = this.pending.subarray(0, end);
      this.pending = this.pending.subarray(end + 1);
      this.replyBytes += end + 1;
      if (this.replyBytes > SMTP_MAX_REPLY_BYTES) {
        throw new ReplyFormatError(
          'reply_too_large',
          `A reply is larger than ${SMTP_MAX_REPLY_BYTES} bytes.`,
        );
      }
      const reply = this.line(raw.toString('utf8').replace(/\r$/, ''));
      if (reply) replies.push(reply);
    }
    // A line that never ends must not grow without bound either.
    if (this.pending.length > SMTP_MAX_LINE_BYTES) {
      throw new ReplyFormatError(
        'line_too_long',
        `A reply line is longer than ${SMTP_MAX_LINE_BYTES} bytes.`,
      );
    }
    return replies;
  }

  private line(line: string): SmtpReply | null {
    const match = REPLY_LINE_PATTERN.exec(line);
    if (!match) {
      throw new ReplyFormatError(
        'malformed_reply',
        `Not an SMTP reply line: ${JSON.stringify(line.slice(0, 80))}.`,
      );
    }
    const code = Number(match[1]);
    if (this.lines.length > 0 && code !== this.code) {
      throw new ReplyFormatError(
        'malformed_reply',
        `A multi-line reply changed its code from ${this.code} to ${code}.`,
      );
    }
    this.code = code;
    this.lines.push(match[3] ?? '');
    if (match[2] === '-') return null;
    const reply = buildReply(code, this.lines);
    this.lines = [];
    this.replyBytes = 0;
    return reply;
  }
}

/**
 * Parses one complete reply as it appears on the wire (CRLF or LF line ends), with the same
 * rules and limits as a live session. For tests, fixtures and logs.
 */
export function parseSmtpReply(wire: string): SmtpReply {
  const reader = new ReplyReader();
  const text = wire.endsWith('\n') ? wire : `${wire}\r\n`;
  const replies = reader.push(Buffer.from(text, 'utf8'));
  const [reply] = replies;
  if (!reply || replies.length > 1 || reader.hasBufferedBytes) {
    throw new TypeError('Expected exactly one complete SMTP reply.');
  }
  return reply;
}
