/**
 * Email tools: the free disposable check, and mailbox verify and address find over SMTP. Their MCP
 * tools are beyond the spec's catalog, so they are listed only on request (`?toolsets=emails`).
 */
import * as z from 'zod';
import { domainNameParam, normalizeDomainName, normalizedDomainSchema } from '../domain-name.js';

/** An email parameter: the address as sent plus its normalized domain. */
export const emailParam = z
  .string()
  .min(3, 'email must be at least 3 characters')
  .max(254, 'email must be at most 254 characters')
  .regex(/@/, 'email must contain @')
  .transform((address, ctx) => {
    const checked = normalizeDomainName(address.slice(address.lastIndexOf('@') + 1));
    if (checked.ok) return { address, domain: checked.domain };
    ctx.addIssue({
      code: 'custom',
      message: `email domain ${checked.problem}`,
      params: { detailCode: 'invalid_format' },
    });
    return z.NEVER;
  });

/**
 * RFC 5321's Dot-string (§4.1.2): words of atext (RFC 5322: letters, digits and these marks) joined
 * by single dots, with characters beyond ASCII taken as RFC 6531 takes them. A quoted local part
 * (`"a b"@…`) is not among them: it is almost never a real mailbox, and its spaces cannot travel in
 * the SMTP command line as our dialogue writes it.
 */
const ATOM = "(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\p{ASCII}\\s])+";
const DOT_STRING = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u');
/** RFC 5321 §4.5.3.1.1: a local part is at most 64 octets. */
const MAX_LOCAL_PART_OCTETS = 64;
const utf8 = new TextEncoder();

/**
 * A mailbox to ask a mail server about: an email parameter whose local part (before the last @) is
 * one RCPT TO can carry. What no server could accept is refused before anything is charged, rather
 * than sent and read back as the server's syntax error. An empty local part is not refused: the
 * answer says the address names no mailbox (`user` null, `invalid`), asking no server.
 */
export const mailboxParam = emailParam.superRefine(({ address }, ctx) => {
  const localPart = address.slice(0, address.lastIndexOf('@'));
  if (localPart === '') return;
  const problem =
    utf8.encode(localPart).length > MAX_LOCAL_PART_OCTETS
      ? `is longer than ${MAX_LOCAL_PART_OCTETS} bytes, the most a mailbox name may have (RFC 5321)`
      : DOT_STRING.test(localPart)
        ? undefined
        : "must be words of letters, digits and !#$%&'*+/=?^_`{|}~- joined by single dots (RFC 5321); " +
          'quoted local parts are not verified';
  if (problem)
    ctx.addIssue({
      code: 'custom',
      message: `email local part (before the last @) ${problem}`,
      params: { detailCode: 'invalid_format' },
    });
});

export const disposableCheck = {
  id: 'emails.disposable',
  examples: { email: 'someone@mailinator.com' },
  family: 'emails',
  group: 'emails-disposable',
  summary: 'Check whether an email address uses a disposable domain',
  description:
    'Normalizes the domain of the address (lower case, IDNA to ASCII, no trailing dot) and checks exact ' +
    'membership in the current disposable-domain snapshot. Does not verify that the mailbox exists.',
  variants: [{ path: '/v1/emails/disposable' }],
  identifiers: [],
  query: z.object({ email: emailParam }),
  data: z.object({ domain: normalizedDomainSchema, isDisposable: z.boolean() }),
  paging: 'none',
  price: 0,
  settlement: { chargedErrors: [] },
  mcpTool: 'check_disposable_email',
  mcpListing: 'on-request',
  runtime: { timeoutMs: 5_000, memoryMb: 256, needs: [] },
  statuses: [200, 400, 401, 403, 405, 406, 415, 429, 500, 503],
} as const;

export const verificationStatuses = ['valid', 'invalid', 'unverifiable'] as const;
export const verificationReasons = [
  'accepted',
  'limited',
  'rejected',
  'catch_all',
  'no_mx',
  'mx_error',
  'timeout',
  'spam_block',
] as const;
export type VerificationStatus = (typeof verificationStatuses)[number];
export type VerificationReason = (typeof verificationReasons)[number];

const mxHost = z.string().max(253).nullable();

export const verificationSchema = z.object({
  email: z.string().min(3).max(254),
  user: z.string().max(254).nullable(),
  domain: z.string().min(3).max(253),
  mx: mxHost,
  status: z.enum(verificationStatuses),
  reason: z.enum(verificationReasons),
  isCatchAll: z.boolean(),
  isDisposable: z.boolean(),
});

const EMAIL_STATUSES = [200, 400, 401, 402, 403, 404, 405, 406, 415, 422, 429, 500, 502, 503, 504] as const;
/** Inside the 45 s tool deadline, with room for settlement. */
const SMTP_RUNTIME = { timeoutMs: 40_000, memoryMb: 256, needs: ['smtp'] } as const;

export const emailVerify = {
  id: 'emails.verify',
  examples: { email: 'jane.doe@example.com' },
  family: 'emails',
  group: 'emails-smtp',
  summary: 'Verify that a mailbox exists',
  description:
    "Asks the recipient's mail server whether it accepts the address, without sending a message. " +
    'valid: the server accepted it; invalid: rejected, or the domain has no mail server; unverifiable: the ' +
    'server cannot confirm (catch-all domains, greylisting and rate limits, blocks of our sender, timeouts). ' +
    'Conclusive answers and unverifiable ones keep the charge; our own failures are refunded. Mailboxes of ' +
    'one consumer provider are unsupported (422 email_unverifiable, refunded). An address whose local part ' +
    'no mail server could accept (a space, a second @, a quoted local part; RFC 5321) is refused with 400, ' +
    'uncharged.',
  variants: [{ path: '/v1/emails/verify' }],
  identifiers: [],
  query: z.object({ email: mailboxParam }),
  data: verificationSchema,
  paging: 'none',
  price: 2,
  settlement: { chargedErrors: [] },
  mcpTool: 'verify_email',
  mcpListing: 'on-request',
  runtime: SMTP_RUNTIME,
  statuses: EMAIL_STATUSES,
  responseExample: {
    data: {
      email: 'jane.doe@example.com',
      user: 'jane.doe',
      domain: 'example.com',
      mx: 'mx1.example.com',
      status: 'valid',
      reason: 'accepted',
      isCatchAll: false,
      isDisposable: false,
    },
    meta: { creditCost: 2 },
  },
} as const;

const nameParam = (name: string) =>
  z
    .string()
    .min(1)
    .max(64, `${name} must be at most 64 characters`)
    .regex(/\p{L}/u, `${name} must contain a letter`);

export const findStatuses = ['found', 'catch_all', 'not_found', 'no_mx'] as const;

export const emailFind = {
  id: 'emails.find',
  examples: { firstName: 'Jane', lastName: 'Doe', domain: 'example.com' },
  family: 'emails',
  group: 'emails-smtp',
  summary: 'Find an email address from a name and a domain',
  description:
    'Generates up to 16 candidate addresses from the name, most common patterns first, and verifies them ' +
    'in one SMTP session until one is valid, the domain proves catch-all (no address is returned: it ' +
    'accepts everything), or the domain has no mail server. Without lastName only first-name addresses ' +
    'are tried. Names in any script are spelled in Latin letters first (German umlauts as ae/oe/ue, then as ' +
    'plain vowels); a name that cannot be spelled so is refused (400, not charged). One charge covers all ' +
    'candidates; a search that finds nothing is charged.',
  variants: [{ path: '/v1/emails/find' }],
  identifiers: [],
  query: z.object({
    firstName: nameParam('firstName'),
    lastName: nameParam('lastName').optional(),
    domain: domainNameParam('domain'),
  }),
  data: z.object({
    email: z.string().min(3).max(254).nullable(),
    status: z.enum(findStatuses),
    isCatchAll: z.boolean(),
    isDisposable: z.boolean(),
    candidatesChecked: z.number().int().min(0).max(16),
    verification: z
      .object({ mx: mxHost, status: z.enum(verificationStatuses), reason: z.enum(verificationReasons) })
      .nullable(),
  }),
  paging: 'none',
  price: 10,
  settlement: { chargedErrors: [] },
  mcpTool: 'find_email',
  mcpListing: 'on-request',
  runtime: SMTP_RUNTIME,
  statuses: EMAIL_STATUSES,
  responseExample: {
    data: {
      email: 'jane.doe@example.com',
      status: 'found',
      isCatchAll: false,
      isDisposable: false,
      candidatesChecked: 2,
      verification: { mx: 'mx1.example.com', status: 'valid', reason: 'accepted' },
    },
    meta: { creditCost: 10 },
  },
} as const;

export const emailOperations = [disposableCheck, emailVerify, emailFind] as const;
