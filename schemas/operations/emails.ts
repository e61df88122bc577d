/**
 * Email tools. The disposable check is free; verify and find come with the SMTP issue.
 */
import { z } from 'zod';

/** The normalized domain of an address: lower-case ASCII (IDNA), no trailing dot. */
export const normalizedDomainSchema = z
  .string()
  .min(3)
  .max(253)
  .regex(/^[a-z0-9.-]+$/);

/**
 * Normalizes the domain part of an address, or returns null when it is not a usable domain name.
 * WHATWG URL parsing does the IDNA (UTS #46) mapping to ASCII and the lower-casing.
 */
export function normalizeEmailDomain(email: string): string | null {
  const raw = email.slice(email.lastIndexOf('@') + 1).replace(/\.$/, '');
  if (raw === '' || /[\s/\\?#@:%[\]]/.test(raw)) return null;
  let ascii: string;
  try {
    ascii = new URL(`http://${raw}/`).hostname;
  } catch {
    return null;
  }
  return normalizedDomainSchema.safeParse(ascii).success && /[a-z]/.test(ascii) ? ascii : null;
}

/** An email parameter: the address as sent plus its normalized domain. */
export const emailParam = z
  .string()
  .min(3, 'email must be at least 3 characters')
  .max(254, 'email must be at most 254 characters')
  .regex(/@/, 'email must contain @')
  .transform((address, ctx) => {
    const domain = normalizeEmailDomain(address);
    if (domain === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'the domain of email is not a valid domain name',
        params: { detailCode: 'invalid_format' },
      });
      return z.NEVER;
    }
    return { address, domain };
  });

export const disposableCheck = {
  id: 'emails.disposable',
  family: 'emails',
  group: 'emails-disposable',
  summary: 'Check whether an email address uses a disposable domain',
  description:
    'Normalizes the domain of the address (lower case, IDNA to ASCII, no trailing dot) and checks exact ' +
    'membership in the current disposable-domain snapshot. Free. Does not verify that the mailbox exists.',
  variants: [{ path: '/v1/emails/disposable' }],
  identifiers: [],
  query: z.object({ email: emailParam }),
  data: z.object({ domain: normalizedDomainSchema, isDisposable: z.boolean() }),
  paging: 'none',
  price: 0,
  settlement: { chargedErrors: [] },
  mcpTool: undefined,
  runtime: { timeoutMs: 5_000, memoryMb: 256, needs: [] },
  statuses: [200, 400, 401, 403, 405, 406, 415, 429, 500, 503],
} as const;
