/**
 * RCPT replies as real servers send them (wire format), each with the reason and basis the
 * classifier must give it: the table of test/unit/reply-classifier.test.ts, and of the pipelining
 * test, which replays every one of them in lock-step and pipelined dialogues.
 */
import type { RcptReason, ReplyBasis } from '../../shared/emails/reply-classifier.js';

export interface RcptReplyCase {
  readonly source: string;
  readonly wire: string;
  readonly reason: RcptReason;
  readonly basis: ReplyBasis;
}

export const RCPT_REPLY_CASES: readonly RcptReplyCase[] = [
  // Accepted
  { source: 'smtp-server / Postfix accept', wire: '250 2.1.5 OK', reason: 'accepted', basis: 'enhanced' },
  {
    source: 'Gmail accept',
    wire: '250 2.1.5 OK a1-20020a170906 - gsmtp',
    reason: 'accepted',
    basis: 'enhanced',
  },
  { source: 'old server without enhanced codes', wire: '250 OK', reason: 'accepted', basis: 'basic' },
  {
    source: 'RFC 5321 251 forward',
    wire: '251 User not local; will forward to <x@example.org>',
    reason: 'accepted',
    basis: 'basic',
  },
  { source: 'bare 250 line', wire: '250', reason: 'accepted', basis: 'basic' },

  // Rejected: the mailbox does not exist
  {
    source: 'Gmail user unknown (multi-line)',
    wire: [
      '550-5.1.1 The email account that you tried to reach does not exist. Please try',
      "550-5.1.1 double-checking the recipient's email address for typos or",
      '550-5.1.1 unnecessary spaces. For more information, go to',
      '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a1-20020a17 - gsmtp',
    ].join('\r\n'),
    reason: 'rejected',
    basis: 'enhanced',
  },
  {
    source: 'Gmail disabled account',
    wire: '550-5.2.1 The email account that you tried to reach is disabled.\r\n550 5.2.1 https://support.google.com/mail/?p=DisabledUser - gsmtp',
    reason: 'rejected',
    basis: 'enhanced',
  },
  {
    source: 'Outlook.com mailbox unavailable (5.5.0 is too generic, 550 decides)',
    wire: '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [DM6NAM12FT012.eop-nam12.prod.protection.outlook.com]',
    reason: 'rejected',
    basis: 'basic',
  },
  {
    source: 'Microsoft 365 recipient not found',
    wire: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
    reason: 'rejected',
    basis: 'enhanced',
  },
  {
    source: 'Microsoft 365 Directory-Based Edge Blocking',
    wire: '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [BN8NAM12FT064.eop-nam12.prod.protection.outlook.com]',
    reason: 'rejected',
    basis: 'text',
  },
  {
    source: 'Postfix local recipient table',
    wire: '550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown in local recipient table',
    reason: 'rejected',
    basis: 'enhanced',
  },
  {
    source: 'Postfix check_recipient_access REJECT',
    wire: '554 5.7.1 <retired@example.org>: Recipient address rejected: Access denied',
    reason: 'rejected',
    basis: 'text',
  },
  {
    source: 'Yahoo delivery error (no enhanced code)',
    wire: "554 delivery error: dd This user doesn't have a yahoo.com account (nobody@yahoo.com) [0] - mta1003.mail.gq1.yahoo.com",
    reason: 'rejected',
    basis: 'basic',
  },
  {
    source: 'Exim without enhanced codes',
    wire: '550 Unrouteable address',
    reason: 'rejected',
    basis: 'basic',
  },
  {
    source: 'Sendmail',
    wire: '550 5.1.1 <nobody@example.org>... User unknown',
    reason: 'rejected',
    basis: 'enhanced',
  },
  {
    source: 'Lotus Domino ("not listed" is not a blocklist)',
    wire: '550 User not listed in public Name & Address Book',
    reason: 'rejected',
    basis: 'basic',
  },
  {
    source: 'Mimecast',
    wire: '550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550',
    reason: 'rejected',
    basis: 'basic',
  },
  {
    source: 'bad address syntax',
    wire: '553 5.1.3 <a..b@example.org>: Recipient address rejected: bad syntax',
    reason: 'rejected',
    basis: 'enhanced',
  },
  {
    source: 'null MX per RFC 7505',
    wire: '556 5.1.10 Recipient address has null MX',
    reason: 'rejected',
    basis: 'enhanced',
  },
  {
    source: 'RFC 7504 without enhanced code',
    wire: '556 Domain does not accept mail',
    reason: 'rejected',
    basis: 'basic',
  },
  {
    source: 'unknown user on a syntax code',
    wire: '501 Invalid recipient',
    reason: 'rejected',
    basis: 'text',
  },

  // Spam block: about our IP or sender
  {
    source: 'Spamhaus via Postfix reject_rbl_client',
    wire: '554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7',
    reason: 'spam_block',
    basis: 'enhanced',
  },
  {
    source: 'Spamhaus without enhanced code',
    wire: '554 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org',
    reason: 'spam_block',
    basis: 'text',
  },
  {
    source: 'Outlook block list',
    wire: "550 5.7.1 Unfortunately, messages from [203.0.113.7] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
    reason: 'spam_block',
    basis: 'enhanced',
  },
  {
    source: 'Microsoft 365 banned IP',
    wire: '550 5.7.606 Access denied, banned sending IP [203.0.113.7]',
    reason: 'spam_block',
    basis: 'enhanced',
  },
  {
    source: 'Gmail unsolicited mail',
    wire: '550-5.7.1 [203.0.113.7] Our system has detected an unusual rate of unsolicited mail originating\r\n550-5.7.1 from your IP address. To protect our users from spam, mail sent from your IP\r\n550 5.7.1 address has been blocked. - gsmtp',
    reason: 'spam_block',
    basis: 'enhanced',
  },
  {
    source: 'Gmail DMARC',
    wire: "550 5.7.26 Unauthenticated email from example.net is not accepted due to domain's DMARC policy. - gsmtp",
    reason: 'spam_block',
    basis: 'enhanced',
  },
  {
    source: 'Yahoo Spamhaus listing',
    wire: "553 5.7.1 [BL21] Connections will not be accepted from 203.0.113.7, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes",
    reason: 'spam_block',
    basis: 'enhanced',
  },
  {
    source: 'Postfix sender check at RCPT',
    wire: '553 5.1.8 <probe@verifier.example>: Sender address rejected: Domain not found',
    reason: 'spam_block',
    basis: 'enhanced',
  },
  {
    source: 'RBL listing on 550 without enhanced code',
    wire: '550 Your IP 203.0.113.7 is listed on RBL b.barracudacentral.org',
    reason: 'spam_block',
    basis: 'text',
  },
  {
    source: 'bare 5.7.1 refusal',
    wire: '554 5.7.1 Delivery not authorized, message refused',
    reason: 'spam_block',
    basis: 'enhanced',
  },

  // Limited: not now, never acceptance
  {
    source: 'Postgrey greylisting',
    wire: '450 4.2.0 <a@example.org>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.org.html',
    reason: 'limited',
    basis: 'enhanced',
  },
  {
    source: 'greylisting 451 4.7.1',
    wire: '451 4.7.1 Please try again later',
    reason: 'limited',
    basis: 'enhanced',
  },
  {
    source: 'too many recipients',
    wire: '452 4.5.3 Too many recipients',
    reason: 'limited',
    basis: 'enhanced',
  },
  {
    source: 'Gmail rate limit',
    wire: '421 4.7.0 Try again later, closing connection. - gsmtp',
    reason: 'limited',
    basis: 'enhanced',
  },
  {
    source: 'Microsoft 365 server busy',
    wire: '451 4.7.500 Server busy. Please try again later from [203.0.113.7]. (S77714)',
    reason: 'limited',
    basis: 'enhanced',
  },
  {
    source: 'Yahoo deferral',
    wire: '421 4.7.0 [TSS04] Messages from 203.0.113.7 temporarily deferred due to unexpected volume or user complaints',
    reason: 'limited',
    basis: 'enhanced',
  },
  {
    source: 'Gmail mailbox full',
    wire: '552-5.2.2 The email account that you tried to reach is over quota.\r\n552 5.2.2 https://support.google.com/mail/?p=OverQuotaPerm - gsmtp',
    reason: 'limited',
    basis: 'enhanced',
  },
  { source: 'mailbox full', wire: '552 5.2.2 mailbox full', reason: 'limited', basis: 'enhanced' },
  {
    source: '450 without enhanced code',
    wire: '450 Requested mail action not taken: mailbox unavailable',
    reason: 'limited',
    basis: 'basic',
  },
  {
    source: '552 without enhanced code',
    wire: '552 Requested mail action aborted: exceeded storage allocation',
    reason: 'limited',
    basis: 'basic',
  },
  {
    source: 'temporary text on a permanent code',
    wire: '550 Mailbox temporarily unavailable, try again later',
    reason: 'limited',
    basis: 'text',
  },
  {
    source: 'greylisting on a 5.7.x',
    wire: '550 5.7.1 Greylisted, please try again later',
    reason: 'limited',
    basis: 'text',
  },
  {
    source: 'temporary sender check',
    wire: '450 4.1.8 <probe@verifier.example>: Sender address rejected: Domain not found',
    reason: 'limited',
    basis: 'enhanced',
  },

  // MX error: the server, not the mailbox
  {
    source: 'Postfix relay refusal',
    wire: '554 5.7.1 <a@example.org>: Relay access denied',
    reason: 'mx_error',
    basis: 'text',
  },
  {
    source: 'Microsoft 365 relay refusal',
    wire: '550 5.4.1 Relay Access Denied',
    reason: 'mx_error',
    basis: 'text',
  },
  {
    source: 'qmail rcpthosts',
    wire: "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)",
    reason: 'mx_error',
    basis: 'text',
  },
  {
    source: 'routing loop',
    wire: '554 5.4.14 Hop count exceeded - possible mail loop',
    reason: 'mx_error',
    basis: 'enhanced',
  },
  { source: 'mail system full', wire: '552 5.3.1 Mail system full', reason: 'mx_error', basis: 'enhanced' },
  { source: 'bad sequence', wire: '503 5.5.1 Error: need MAIL command', reason: 'mx_error', basis: 'basic' },
  { source: 'command unrecognized', wire: '500 Command unrecognized', reason: 'mx_error', basis: 'basic' },
  { source: 'RFC 7504 521', wire: '521 Server does not accept mail', reason: 'mx_error', basis: 'basic' },
  { source: 'intermediate code at RCPT', wire: '354 Start mail input', reason: 'mx_error', basis: 'basic' },

  // The enhanced code is trusted only when its class agrees with the reply code
  {
    source: 'IP address at the start of the text',
    wire: '550 5.1.2.3 is not allowed to send here',
    reason: 'rejected',
    basis: 'basic',
  },
  { source: 'class disagreeing with the code', wire: '250 5.1.1 OK', reason: 'accepted', basis: 'basic' },
];
