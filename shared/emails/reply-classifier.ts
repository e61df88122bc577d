/**
 * What a reply to RCPT TO says about the recipient, as one of the verification `reason` values.
 *
 * Evidence is read in order of reliability: the RFC 3463 enhanced status code first (when it is
 * specific), then the basic reply code, with text patterns only where the codes leave the
 * question open or are known to be misused. The rules are data (`RCPT_REPLY_RULES`): the first
 * rule that matches decides, and the same rows are published as the table in
 * docs/email-verification.md, so the documentation is the implementation.
 *
 * Two commitments shape the rules:
 * - `spam_block` is a verdict about our sending IP or sender address, never about the mailbox:
 *   it ends as `unverifiable`, so a block can never turn a real address into `invalid`.
 * - `limited` (greylisting, rate limits, too many recipients, a full mailbox) says "not now":
 *   it is never read as acceptance, so it cannot be mistaken for a catch-all.
 */
import type { SmtpReply } from './smtp-reply.js';

/** The reply-derived subset of the verification `reason` enum. */
export type RcptReason = 'accepted' | 'rejected' | 'limited' | 'spam_block' | 'mx_error';

/** Which evidence settled the reason: the enhanced code, the basic code, or a text pattern. */
export type ReplyBasis = 'enhanced' | 'basic' | 'text';

export interface RcptClassification {
  readonly reason: RcptReason;
  readonly basis: ReplyBasis;
}

export interface TextPattern {
  /** How the pattern reads in the documentation. */
  readonly label: string;
  readonly pattern: RegExp;
}

/** Words that start a word (`blacklist` also matches `blacklisted`), case-insensitive. */
function words(...labels: string[]): TextPattern[] {
  return labels.map((label) => ({
    label,
    pattern: new RegExp(`\\b${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+')}`, 'i'),
  }));
}

/**
 * The server refuses us (our IP, our reputation, our sender address), not the mailbox.
 * `listed` excludes "not listed" (Lotus Domino's user-unknown text: "User not listed in public
 * Name & Address Book"); `rbl` and `spam` must be whole words ("antispam" gateways name
 * themselves in ordinary replies).
 */
export const BLOCK_PATTERNS: readonly TextPattern[] = [
  ...words(
    'spamhaus',
    'spamcop',
    'barracuda',
    'blocked',
    'blacklist',
    'black list',
    'blocklist',
    'block list',
    'denylist',
    'poor reputation',
    'reputation',
    'dnsbl',
    'policy',
    'policies',
    'banned',
    'client host rejected',
    'sender address rejected',
  ),
  { label: 'rbl', pattern: /\brbl\b/i },
  { label: 'spam (whole word)', pattern: /\bspam\b/i },
  { label: 'listed (not after "not")', pattern: /(?<!\bnot\s+)\blisted\b/i },
];

/** The recipient is unknown, disabled or refused as such. */
export const USER_UNKNOWN_PATTERNS: readonly TextPattern[] = [
  ...words(
    'user unknown',
    'unknown user',
    'no such user',
    'no such mailbox',
    'no such recipient',
    'no such address',
    'no mailbox',
    'does not exist',
    "doesn't exist",
    'unknown recipient',
    'recipient unknown',
    'mailbox unavailable',
    'mailbox not found',
    'mailbox disabled',
    'account disabled',
    'invalid recipient',
    'invalid mailbox',
    'recipient rejected',
    'recipient address rejected',
    'recipient not found',
    'not found',
    'user not listed',
    'unrouteable address',
  ),
  { label: "doesn't have a … account", pattern: /\bdoes(?:n't| not) have an? [\w.-]{1,64} account\b/i },
];

/** The server says "later": greylisting and temporary conditions. */
export const GREYLIST_PATTERNS: readonly TextPattern[] = words(
  'greylist',
  'graylist',
  'grey-list',
  'gray-list',
  'try again later',
  'try later',
  'temporarily',
  'temporary',
);

/**
 * This MX does not serve the recipient's domain (Postfix, qmail, Exchange relay refusals): a
 * misconfigured MX, not a verdict on the mailbox.
 */
export const RELAY_PATTERNS: readonly TextPattern[] = [
  {
    label: 'relay(ing) [access] denied / not permitted / not allowed / prohibited',
    pattern: /\brelay(?:ing)?\s+(?:access\s+)?(?:denied|not\s+(?:permitted|allowed)|prohibited)/i,
  },
  ...words(
    'unable to relay',
    'not permitted to relay',
    'not allowed to relay',
    'we do not relay',
    'rcpthosts',
  ),
  { label: 'non-accepted domain', pattern: /\bnon-accepted\s+domain\b/i },
];

function matchesAny(patterns: readonly TextPattern[], text: string): boolean {
  return patterns.some(({ pattern }) => pattern.test(text));
}

/** The facts every rule reads, computed once per reply. */
export interface ReplyFacts {
  readonly code: number;
  /** Only when the enhanced class agrees with the reply code's first digit. */
  readonly enhanced: { readonly class: number; readonly subject: number; readonly detail: number } | null;
  readonly relay: boolean;
  readonly block: boolean;
  readonly greylist: boolean;
  readonly userUnknown: boolean;
}

function factsOf(reply: SmtpReply): ReplyFacts {
  const parts = reply.enhancedCode?.split('.').map(Number) ?? [];
  const [cls, subject, detail] = parts;
  const enhanced =
    cls !== undefined &&
    subject !== undefined &&
    detail !== undefined &&
    parts.every(Number.isInteger) &&
    cls === Math.floor(reply.code / 100)
      ? { class: cls, subject, detail }
      : null;
  const text = reply.text;
  return {
    code: reply.code,
    enhanced,
    relay: matchesAny(RELAY_PATTERNS, text),
    block: matchesAny(BLOCK_PATTERNS, text),
    greylist: matchesAny(GREYLIST_PATTERNS, text),
    userUnknown: matchesAny(USER_UNKNOWN_PATTERNS, text),
  };
}

export interface ReplyRule {
  /** Which codes the row covers, as published. */
  readonly code: string;
  /** The text condition, as published ("any" when the text is not read). */
  readonly text: string;
  readonly reason: RcptReason;
  readonly basis: ReplyBasis;
  readonly why: string;
  readonly matches: (facts: ReplyFacts) => boolean;
}

const enhanced =
  (test: (e: NonNullable<ReplyFacts['enhanced']>) => boolean) =>
  (f: ReplyFacts): boolean =>
    f.enhanced !== null && test(f.enhanced);
const is57or54 = (e: NonNullable<ReplyFacts['enhanced']>): boolean =>
  e.class === 5 && (e.subject === 7 || e.subject === 4);
const permanent = (f: ReplyFacts): boolean => f.code >= 500 && f.code < 600;

/**
 * The decision table, first match wins. Enhanced-code rows come first; a 5.x.x code that is
 * not listed (5.0.0, 5.5.x, 5.6.x, 5.1.5, …) is too generic to decide and falls through to the
 * basic-code rows, which read the text where the basic code is ambiguous.
 */
export const RCPT_REPLY_RULES: readonly ReplyRule[] = [
  {
    code: '2.x.x',
    text: 'any',
    reason: 'accepted',
    basis: 'enhanced',
    why: 'Success class (RFC 3463): the server accepted the recipient.',
    matches: enhanced((e) => e.class === 2),
  },
  {
    code: '4.x.x',
    text: 'any',
    reason: 'limited',
    basis: 'enhanced',
    why: 'Transient class: greylisting (4.7.1, 4.2.0), rate limits (4.7.0, 4.3.2), too many recipients (4.5.3). Not an answer about the mailbox yet, and never acceptance.',
    matches: enhanced((e) => e.class === 4),
  },
  {
    code: '5.1.7, 5.1.8',
    text: 'any',
    reason: 'spam_block',
    basis: 'enhanced',
    why: 'Bad sender address: our MAIL FROM was refused (Postfix reports sender checks at RCPT). A verdict about us.',
    matches: enhanced((e) => e.class === 5 && e.subject === 1 && (e.detail === 7 || e.detail === 8)),
  },
  {
    code: '5.1.0, 5.1.1, 5.1.2, 5.1.3, 5.1.4, 5.1.6, 5.1.10, 5.2.1',
    text: 'any',
    reason: 'rejected',
    basis: 'enhanced',
    why: 'Bad destination mailbox or system, syntax, moved, null MX (5.1.10), or mailbox disabled (5.2.1): the address cannot receive mail. The code is trusted over any text.',
    matches: enhanced(
      (e) =>
        e.class === 5 &&
        ((e.subject === 1 && [0, 1, 2, 3, 4, 6, 10].includes(e.detail)) ||
          (e.subject === 2 && e.detail === 1)),
    ),
  },
  {
    code: '5.2.2',
    text: 'any',
    reason: 'limited',
    basis: 'enhanced',
    why: 'Mailbox full. It exists, but mail to it bounces now: `accepted` would promise delivery and `rejected` would deny the mailbox, so it is "not now".',
    matches: enhanced((e) => e.class === 5 && e.subject === 2 && e.detail === 2),
  },
  {
    code: '5.4.x, 5.7.x',
    text: 'relay pattern',
    reason: 'mx_error',
    basis: 'text',
    why: 'Relay refused (e.g. 554 5.7.1 Relay access denied, Microsoft 365 550 5.4.1 Relay Access Denied): this MX does not serve the domain.',
    matches: (f) => f.enhanced !== null && is57or54(f.enhanced) && f.relay,
  },
  {
    code: '5.7.x',
    text: 'block pattern',
    reason: 'spam_block',
    basis: 'enhanced',
    why: 'Security or policy refusal naming a blocklist or our reputation: a verdict about our IP, checked before the recipient texts below.',
    matches: (f) => f.enhanced !== null && f.enhanced.class === 5 && f.enhanced.subject === 7 && f.block,
  },
  {
    code: '5.4.x, 5.7.x',
    text: 'user-unknown pattern',
    reason: 'rejected',
    basis: 'text',
    why: 'The refusal names the recipient, not us: Microsoft 365 Directory-Based Edge Blocking answers 550 5.4.1 "Recipient address rejected: Access denied" for mailboxes that do not exist, and Postfix `554 5.7.1 <x>: Recipient address rejected: Access denied` refuses that recipient to every sender.',
    matches: (f) => f.enhanced !== null && is57or54(f.enhanced) && f.userUnknown,
  },
  {
    code: '5.7.x',
    text: 'greylist pattern',
    reason: 'limited',
    basis: 'text',
    why: 'A permanent code with a "try again later" text: the server itself says it is temporary.',
    matches: (f) => f.enhanced !== null && f.enhanced.class === 5 && f.enhanced.subject === 7 && f.greylist,
  },
  {
    code: '5.7.x',
    text: 'any other',
    reason: 'spam_block',
    basis: 'enhanced',
    why: 'Security or policy status (RFC 3463 subject 7): delivery not authorized, DMARC/SPF, banned sending IP. About us, not the mailbox.',
    matches: enhanced((e) => e.class === 5 && e.subject === 7),
  },
  {
    code: '5.3.x, 5.4.x',
    text: 'any other',
    reason: 'mx_error',
    basis: 'enhanced',
    why: 'Mail system or routing status (system full, not accepting mail, unable to route, loop): the server fails, the mailbox is unknown.',
    matches: enhanced((e) => e.class === 5 && (e.subject === 3 || e.subject === 4)),
  },
  {
    code: '2xx',
    text: 'any',
    reason: 'accepted',
    basis: 'basic',
    why: '250 OK and 251 will forward: the recipient was accepted.',
    matches: (f) => f.code >= 200 && f.code < 300,
  },
  {
    code: '4xx',
    text: 'any',
    reason: 'limited',
    basis: 'basic',
    why: '421, 450, 451, 452: transient; greylisting, rate limits and recipient limits all land here.',
    matches: (f) => f.code >= 400 && f.code < 500,
  },
  {
    code: '5xx',
    text: 'relay pattern',
    reason: 'mx_error',
    basis: 'text',
    why: 'Relay refused (e.g. qmail "553 sorry, that domain isn\'t in my list of allowed rcpthosts"): this MX does not serve the domain.',
    matches: (f) => permanent(f) && f.relay,
  },
  {
    code: '5xx',
    text: 'block pattern',
    reason: 'spam_block',
    basis: 'text',
    why: '550 and 554 are also used for blocklist refusals ("554 Service unavailable; Client host blocked using zen.spamhaus.org"): the text decides that it is about us.',
    matches: (f) => permanent(f) && f.block,
  },
  {
    code: '5xx',
    text: 'greylist pattern',
    reason: 'limited',
    basis: 'text',
    why: 'A permanent code with a temporary text (e.g. "550 Mailbox temporarily unavailable"): not a verdict on the mailbox.',
    matches: (f) => permanent(f) && f.greylist,
  },
  {
    code: '550, 551, 553',
    text: 'any other',
    reason: 'rejected',
    basis: 'basic',
    why: 'Mailbox unavailable, not local, or name not allowed (RFC 5321 §4.2.2), e.g. Outlook.com "550 5.5.0 Requested action not taken: mailbox unavailable".',
    matches: (f) => f.code === 550 || f.code === 551 || f.code === 553,
  },
  {
    code: '552',
    text: 'any other',
    reason: 'limited',
    basis: 'basic',
    why: 'Exceeded storage allocation (mailbox full), or "too many recipients" from older servers (RFC 5321 §4.5.3.1.10): not now.',
    matches: (f) => f.code === 552,
  },
  {
    code: '554',
    text: 'any other',
    reason: 'rejected',
    basis: 'basic',
    why: 'Transaction failed without a block text, e.g. Yahoo "554 delivery error: dd This user doesn\'t have a yahoo.com account".',
    matches: (f) => f.code === 554,
  },
  {
    code: '556',
    text: 'any',
    reason: 'rejected',
    basis: 'basic',
    why: 'Domain does not accept mail (RFC 7504): no mailbox can exist there.',
    matches: (f) => f.code === 556,
  },
  {
    code: '5xx',
    text: 'user-unknown pattern',
    reason: 'rejected',
    basis: 'text',
    why: 'Any other permanent code whose text says the user is unknown (e.g. "501 Invalid recipient").',
    matches: (f) => permanent(f) && f.userUnknown,
  },
  {
    code: 'anything else',
    text: 'any',
    reason: 'mx_error',
    basis: 'basic',
    why: 'Syntax and sequence errors (500–504), authentication demanded (530), "does not accept mail" (521), 3xx or unknown codes: the dialogue failed, nothing is learnt about the mailbox.',
    matches: () => true,
  },
];

/** The reason a reply to RCPT TO gives, and which evidence decided it. */
export function classifyRcptReply(reply: SmtpReply): RcptClassification {
  const facts = factsOf(reply);
  // The last rule matches everything, so the fallback is never reached; it keeps the type total.
  const rule = RCPT_REPLY_RULES.find((candidate) => candidate.matches(facts));
  return rule ? { reason: rule.reason, basis: rule.basis } : { reason: 'mx_error', basis: 'basic' };
}

function cell(value: string): string {
  return value.replace(/\|/g, '\\|');
}

/** The decision table in Markdown, as published in docs/email-verification.md. */
export const RCPT_REPLY_TABLE_MARKDOWN: string = [
  '| # | Reply code | Text condition | Reason | Decided by | Why |',
  '|---|---|---|---|---|---|',
  ...RCPT_REPLY_RULES.map(
    (rule, index) =>
      `| ${index + 1} | ${cell(rule.code)} | ${cell(rule.text)} | \`${rule.reason}\` | ${rule.basis} | ${cell(rule.why)} |`,
  ),
].join('\n');

function patternList(name: string, patterns: readonly TextPattern[]): string {
  return `- **${name}**: ${patterns.map((p) => `\`${cell(p.label)}\``).join(', ')}`;
}

/** The text patterns the table refers to, in Markdown. */
export const RCPT_TEXT_PATTERNS_MARKDOWN: string = [
  patternList('block pattern', BLOCK_PATTERNS),
  patternList('user-unknown pattern', USER_UNKNOWN_PATTERNS),
  patternList('greylist pattern', GREYLIST_PATTERNS),
  patternList('relay pattern', RELAY_PATTERNS),
].join('\n');

/** A greylisting reply, and the wait it states (null when it names none). */
export interface Greylisting {
  readonly retryAfterMs: number | null;
}

/** Words greylisting servers use besides the greylist patterns ("grey listed", "retry in", "come back"). */
const GREYLIST_WORDS = /\b(?:gr[ae]y[\s-]?list|try again|retry|come back)/i;
/** A stated wait: "in 5 seconds", "for 2 minutes", "after 300 s", "in 00:04:59" (milter-greylist). */
const STATED_WAIT =
  /\b(?:in|for|after)\s+(?:(\d{1,6})\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\b|(\d{1,2}):(\d{2}):(\d{2})\b)/i;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Whether a reply to RCPT TO is greylisting ("not now, come back later"), and the wait it states.
 * Only a `limited` reply can be: not 421 (the server is closing the connection, a failure of the
 * dialogue) and not a recipient limit (452 / 4.5.3, answered by RSET and a new transaction). The
 * wait is read only where the server writes it; Postgrey's default text ("Greylisted, see http://
 * postgrey…") and "Please try again later" state none.
 */
export function greylistingOf(reply: SmtpReply): Greylisting | null {
  if (classifyRcptReply(reply).reason !== 'limited') return null;
  if (reply.code === 421 || reply.code === 452 || reply.enhancedCode === '4.5.3') return null;
  const text = reply.text;
  if (!matchesAny(GREYLIST_PATTERNS, text) && !GREYLIST_WORDS.test(text)) return null;
  const wait = STATED_WAIT.exec(text);
  if (!wait) return { retryAfterMs: null };
  const [, amount, unit, hours, minutes, seconds] = wait;
  if (amount !== undefined && unit !== undefined) {
    return { retryAfterMs: Number(amount) * (UNIT_MS[unit.charAt(0).toLowerCase()] ?? 1_000) };
  }
  return { retryAfterMs: ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1_000 };
}
