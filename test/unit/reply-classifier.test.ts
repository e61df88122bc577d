/**
 * The RCPT reply classifier against replies as real servers send them (wire format, parsed by
 * the parser a live session uses), the greylisting reading (and the wait a reply states), and the
 * published table in docs/email-verification.md.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  classifyRcptReply,
  greylistingOf,
  RCPT_REPLY_RULES,
  RCPT_REPLY_TABLE_MARKDOWN,
  RCPT_TEXT_PATTERNS_MARKDOWN,
} from '../../shared/emails/reply-classifier.js';
import { parseSmtpReply } from '../../shared/emails/smtp-reply.js';
import { RCPT_REPLY_CASES as cases } from '../support/rcpt-replies.js';

describe('classifyRcptReply', () => {
  it('has a table of at least 30 real-world replies', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('$source → $reason ($basis)', ({ wire, reason, basis }) => {
    expect(classifyRcptReply(parseSmtpReply(wire))).toEqual({ reason, basis });
  });

  it('reads the enhanced code before the text: 5.1.1 stays rejected even with block words', () => {
    expect(classifyRcptReply(parseSmtpReply('550 5.1.1 blocked: user unknown'))).toEqual({
      reason: 'rejected',
      basis: 'enhanced',
    });
  });

  it('never reads a transient reply as acceptance', () => {
    for (const code of [421, 450, 451, 452]) {
      expect(
        classifyRcptReply({ code, enhancedCode: null, lines: ['OK accepted'], text: 'OK accepted' }).reason,
      ).toBe('limited');
    }
  });

  it('gives every rule a reason, a basis and a why', () => {
    for (const rule of RCPT_REPLY_RULES) {
      expect(rule.why.length).toBeGreaterThan(20);
      expect(rule.code.length).toBeGreaterThan(0);
    }
    expect(RCPT_REPLY_RULES.at(-1)?.code).toBe('anything else');
  });
});

describe('greylistingOf', () => {
  it.each([
    ['450 4.7.1 Greylisted, try again in 5 seconds', 5_000],
    ['451 4.7.1 Greylisting in action, please come back in 00:04:59', 299_000],
    ['451 4.2.0 You have been grey listed, retry in 300 seconds', 300_000],
    ['450 4.2.0 Greylisted for 2 minutes', 120_000],
    ['451 4.7.1 Please try again after 30 secs', 30_000],
    ['450 4.7.1 Greylisted, try again in 1 hour', 3_600_000],
    // Postgrey's default text and the plain "later" state no wait.
    [
      '450 4.2.0 <a@example.org>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.org.html',
      null,
    ],
    ['451 4.7.1 Please try again later', null],
    ['550 5.7.1 Greylisted, please try again later', null],
  ])('reads %j as greylisting, waiting %j ms', (wire, retryAfterMs) => {
    expect(greylistingOf(parseSmtpReply(wire))).toEqual({ retryAfterMs });
  });

  it.each([
    // Not "later" but "no", "yes", a closing connection, a recipient limit, a rate limit.
    '550 5.1.1 User unknown; try again in 5 seconds will not help',
    '250 2.1.5 Ok, retry in 5 seconds',
    '421 4.7.0 Try again later, closing connection. - gsmtp',
    '452 4.5.3 Too many recipients, try again in 60 seconds',
    '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered',
  ])('does not read %j as greylisting', (wire) => {
    expect(greylistingOf(parseSmtpReply(wire))).toBeNull();
  });
});

describe('docs/email-verification.md', () => {
  const between = (doc: string, name: string): string => {
    const start = `<!-- ${name}:start (generated from shared/emails/reply-classifier.ts) -->\n`;
    const end = `\n<!-- ${name}:end -->`;
    const from = doc.indexOf(start);
    const to = doc.indexOf(end);
    expect(from, `${name} markers`).toBeGreaterThanOrEqual(0);
    expect(to, `${name} markers`).toBeGreaterThan(from);
    return doc.slice(from + start.length, to);
  };

  it('publishes the decision table and the text patterns exactly as the classifier uses them', async () => {
    const doc = await readFile(new URL('../../docs/email-verification.md', import.meta.url), 'utf8');
    expect(between(doc, 'rcpt-reply-table')).toBe(RCPT_REPLY_TABLE_MARKDOWN);
    expect(between(doc, 'rcpt-text-patterns')).toBe(RCPT_TEXT_PATTERNS_MARKDOWN);
  });
});
