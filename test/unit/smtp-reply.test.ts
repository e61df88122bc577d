/**
 * The SMTP reply parser as a table (DESIGN §7.10): wire text in, the parsed reply or the refusal out,
 * with the reason for each row. Covers the line format (RFC 5321 §4.2), multi-line replies, the
 * enhanced status code (RFC 3463, RFC 2034 §4) and its look-alikes, both size limits on each side of
 * their boundary, and the incremental reader fed in pieces as a socket delivers them.
 */
import { describe, expect, it } from 'vitest';
import {
  parseSmtpReply,
  ReplyFormatError,
  type ReplyFormatProblem,
  ReplyReader,
  SMTP_MAX_LINE_BYTES,
  SMTP_MAX_REPLY_BYTES,
  type SmtpReply,
} from '../../shared/emails/smtp-reply.js';

type Outcome = SmtpReply | ReplyFormatProblem | 'not exactly one reply';

function reply(code: number, enhancedCode: string | null, lines: string[], text: string): SmtpReply {
  return { code, enhancedCode, lines, text };
}

function outcomeOf(parse: () => SmtpReply): Outcome {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ReplyFormatError) return error.problem;
    if (error instanceof TypeError) return 'not exactly one reply';
    throw error;
  }
}

/** A line whose bytes up to (not including) its LF number exactly `length`, CR included. */
function lineOfLength(prefix: string, length: number): string {
  return `${prefix}${'x'.repeat(length - prefix.length - 1)}\r\n`;
}

/** Lines of 1 KiB each (CRLF included), `count` of them, one multi-line 250 reply. */
const KIB = 1024;
const LINE_TEXT = 'y'.repeat(KIB - 6);
const LINES_AT_REPLY_LIMIT = SMTP_MAX_REPLY_BYTES / KIB;

function multiLineReply(count: number): string {
  const line = (last: boolean): string => `250${last ? ' ' : '-'}${LINE_TEXT}\r\n`;
  return Array.from({ length: count }, (_, index) => line(index === count - 1)).join('');
}

describe('parseSmtpReply', () => {
  it.each<{ why: string; wire: string; expected: Outcome }>([
    // The line format.
    { why: 'a plain one-line reply', wire: '250 OK', expected: reply(250, null, ['OK'], 'OK') },
    { why: 'LF alone ends a line too', wire: '250 OK\n', expected: reply(250, null, ['OK'], 'OK') },
    { why: 'a code with no text', wire: '250', expected: reply(250, null, [''], '') },
    {
      why: 'whitespace in the text is collapsed for matching, kept in lines',
      wire: '250   lots   of \t space  ',
      expected: reply(250, null, ['  lots   of \t space  '], 'lots of space'),
    },
    {
      why: 'UTF-8 text is decoded',
      wire: '550 Empfänger unbekannt',
      expected: reply(550, null, ['Empfänger unbekannt'], 'Empfänger unbekannt'),
    },
    { why: 'not a reply line at all', wire: 'hello there', expected: 'malformed_reply' },
    { why: 'a code outside 2xx–5xx', wire: '600 nope', expected: 'malformed_reply' },
    { why: 'a 1xx code (RFC 5321 never uses it)', wire: '199 nope', expected: 'malformed_reply' },
    { why: 'a two-digit code', wire: '25 OK', expected: 'malformed_reply' },
    { why: 'text glued to the code without a separator', wire: '250OK', expected: 'malformed_reply' },
    // Multi-line replies.
    {
      why: 'a multi-line EHLO reply keeps each line and joins the text',
      wire: '250-mx.example.org Hello\r\n250-PIPELINING\r\n250 STARTTLS\r\n',
      expected: reply(
        250,
        null,
        ['mx.example.org Hello', 'PIPELINING', 'STARTTLS'],
        'mx.example.org Hello PIPELINING STARTTLS',
      ),
    },
    {
      why: 'a multi-line reply whose code changes is refused',
      wire: '250-first\r\n251 second\r\n',
      expected: 'malformed_reply',
    },
    {
      why: 'a multi-line reply that never ends is not a reply',
      wire: '250-first\r\n250-second\r\n',
      expected: 'not exactly one reply',
    },
    {
      why: 'two replies are not one',
      wire: '250 first\r\n250 second\r\n',
      expected: 'not exactly one reply',
    },
    // The enhanced status code.
    {
      why: 'an enhanced code leads the text',
      wire: '250 2.1.5 Ok',
      expected: reply(250, '2.1.5', ['2.1.5 Ok'], 'Ok'),
    },
    {
      why: 'an enhanced code alone',
      wire: '250 2.0.0',
      expected: reply(250, '2.0.0', ['2.0.0'], ''),
    },
    {
      why: 'the code repeated on every line (RFC 2034 §4) is kept once',
      wire: '550-5.1.1 The email account\r\n550-5.1.1 does not exist.\r\n550 5.1.1 Try again - gsmtp\r\n',
      expected: reply(
        550,
        '5.1.1',
        ['5.1.1 The email account', '5.1.1 does not exist.', '5.1.1 Try again - gsmtp'],
        'The email account does not exist. Try again - gsmtp',
      ),
    },
    {
      why: 'a different code on a later line is text, not stripped',
      wire: '550-5.1.1 unknown\r\n550 5.7.1 policy\r\n',
      expected: reply(550, '5.1.1', ['5.1.1 unknown', '5.7.1 policy'], 'unknown 5.7.1 policy'),
    },
    {
      why: 'a code on a later line only is not the reply’s code',
      wire: '250-hello\r\n250 2.0.0 ok\r\n',
      expected: reply(250, null, ['hello', '2.0.0 ok'], 'hello 2.0.0 ok'),
    },
    {
      why: 'a class that disagrees with the reply code is not a status code',
      wire: '550 4.1.1 mailbox busy',
      expected: reply(550, null, ['4.1.1 mailbox busy'], '4.1.1 mailbox busy'),
    },
    {
      why: 'an IP address at the start of the text is not a status code',
      wire: '554 5.1.2.3 is blocklisted',
      expected: reply(554, null, ['5.1.2.3 is blocklisted'], '5.1.2.3 is blocklisted'),
    },
    {
      why: 'a subject of four digits is not a status code',
      wire: '550 5.1000.1 odd',
      expected: reply(550, null, ['5.1000.1 odd'], '5.1000.1 odd'),
    },
    {
      why: 'a status code of class 3 does not exist',
      wire: '354 3.0.0 go ahead',
      expected: reply(354, null, ['3.0.0 go ahead'], '3.0.0 go ahead'),
    },
    {
      why: 'three-digit subject and detail are the most a status code has',
      wire: '550 5.123.456 limits',
      expected: reply(550, '5.123.456', ['5.123.456 limits'], 'limits'),
    },
    // The size limits, each side of the boundary.
    {
      why: `a line of exactly ${SMTP_MAX_LINE_BYTES} bytes is accepted`,
      wire: lineOfLength('250 ', SMTP_MAX_LINE_BYTES),
      expected: reply(250, null, ['x'.repeat(SMTP_MAX_LINE_BYTES - 5)], 'x'.repeat(SMTP_MAX_LINE_BYTES - 5)),
    },
    {
      why: 'one byte more is line_too_long',
      wire: lineOfLength('250 ', SMTP_MAX_LINE_BYTES + 1),
      expected: 'line_too_long',
    },
    {
      why: `a reply of exactly ${SMTP_MAX_REPLY_BYTES} bytes is accepted`,
      wire: multiLineReply(LINES_AT_REPLY_LIMIT),
      expected: reply(
        250,
        null,
        Array.from({ length: LINES_AT_REPLY_LIMIT }, () => LINE_TEXT),
        Array.from({ length: LINES_AT_REPLY_LIMIT }, () => LINE_TEXT).join(' '),
      ),
    },
    {
      why: 'one more line is reply_too_large',
      wire: multiLineReply(LINES_AT_REPLY_LIMIT + 1),
      expected: 'reply_too_large',
    },
  ])('$why', ({ wire, expected }) => {
    expect(outcomeOf(() => parseSmtpReply(wire))).toEqual(expected);
  });
});

describe('ReplyReader fed as a socket delivers', () => {
  it.each<{ why: string; chunks: string[]; expected: SmtpReply[] | ReplyFormatProblem }>([
    {
      why: 'a reply split byte by byte comes out once, at its last byte',
      chunks: [...'250-2.0.0 a\r\n250 2.0.0 b\r\n'],
      expected: [reply(250, '2.0.0', ['2.0.0 a', '2.0.0 b'], 'a b')],
    },
    {
      why: 'two replies in one chunk come out in order',
      chunks: ['220 ready\r\n250 ok\r\n'],
      expected: [reply(220, null, ['ready'], 'ready'), reply(250, null, ['ok'], 'ok')],
    },
    {
      why: 'a line that never ends is refused once it passes the line limit',
      chunks: ['250 ', 'x'.repeat(SMTP_MAX_LINE_BYTES)],
      expected: 'line_too_long',
    },
    {
      why: 'the size of a reply counts from its own first line, not from earlier replies',
      chunks: [multiLineReply(LINES_AT_REPLY_LIMIT), multiLineReply(LINES_AT_REPLY_LIMIT)],
      expected: [
        parseSmtpReply(multiLineReply(LINES_AT_REPLY_LIMIT)),
        parseSmtpReply(multiLineReply(LINES_AT_REPLY_LIMIT)),
      ],
    },
  ])('$why', ({ chunks, expected }) => {
    const reader = new ReplyReader();
    const replies: SmtpReply[] = [];
    let outcome: SmtpReply[] | ReplyFormatProblem = replies;
    try {
      for (const chunk of chunks) replies.push(...reader.push(Buffer.from(chunk, 'utf8')));
    } catch (error) {
      if (!(error instanceof ReplyFormatError)) throw error;
      outcome = error.problem;
    }
    expect(outcome).toEqual(expected);
  });

  it('decodes a UTF-8 character split across two chunks', () => {
    const bytes = Buffer.from('550 Empfänger unbekannt\r\n', 'utf8');
    const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of "ä"
    const reader = new ReplyReader();
    expect(reader.push(bytes.subarray(0, split))).toEqual([]);
    expect(reader.hasBufferedBytes).toBe(true);
    expect(reader.push(bytes.subarray(split))).toEqual([
      reply(550, null, ['Empfänger unbekannt'], 'Empfänger unbekannt'),
    ]);
    expect(reader.hasBufferedBytes).toBe(false);
  });
});
