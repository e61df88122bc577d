/**
 * The RCPT reply classifier against replies as real servers send them (wire format, parsed by
 * the session's own parser), and the published table in docs/email-verification.md.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  classifyRcptReply,
  RCPT_REPLY_RULES,
  RCPT_REPLY_TABLE_MARKDOWN,
  RCPT_TEXT_PATTERNS_MARKDOWN,
} from '../../shared/emails/reply-classifier.js';
import { parseSmtpReply } from '../../shared/emails/smtp-session.js';
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
