/**
 * Domain names, one rule for every domain input (the domain of an email address, email find's
 * domain, company search by domain), so that no input lets through a form another one refuses:
 * IDNA (UTS #46) mapping to lower-case ASCII by WHATWG URL parsing, exactly one trailing dot
 * removed, and no empty label (`example..com`, `mailinator.com..` would otherwise slip past an
 * exact-match list such as the disposable-domain snapshot).
 */
import * as z from 'zod';

/** A normalized domain: lower-case ASCII letters, digits, hyphens and dots, no trailing dot. */
export const normalizedDomainSchema = z
  .string()
  .min(3)
  .max(253)
  .regex(/^[a-z0-9.-]+$/);

/** One DNS label in ASCII form: letters, digits and inner hyphens, at most 63 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Characters URL parsing would read as a path, port, credentials or escape rather than a host. */
const NOT_IN_A_HOST = /[\s/\\?#@:%[\]]/;

export type DomainNameCheck = { ok: true; domain: string } | { ok: false; problem: string };

const problem = (text: string): DomainNameCheck => ({ ok: false, problem: text });

/** The normalized form of a domain name, or what is wrong with it (to follow the field's name). */
export function normalizeDomainName(raw: string): DomainNameCheck {
  if (raw === '' || NOT_IN_A_HOST.test(raw)) return problem('is not a domain name such as example.com');
  let host: string;
  try {
    host = new URL(`http://${raw}/`).hostname;
  } catch {
    return problem('is not a valid domain name');
  }
  // After the mapping, so that ideographic full stops count as the dots they become.
  const domain = host.endsWith('.') ? host.slice(0, -1) : host;
  const labels = domain.split('.');
  if (labels.includes('')) {
    return problem('has an empty label (two dots in a row, a leading dot, or more than one trailing dot)');
  }
  const topLevel = labels.at(-1) ?? '';
  if (labels.length < 2 || domain.length > 253 || !labels.every((label) => LABEL.test(label))) {
    return problem('is not a valid domain name such as example.com');
  }
  // A numeric top-level label makes an IP address, not a domain name.
  if (!/[a-z]/.test(topLevel)) return problem('is an IP address, not a domain name');
  return { ok: true, domain };
}

/** A domain parameter: the normalized domain, or an invalid_format detail naming the rule broken. */
export const domainNameParam = (field: string) =>
  z
    .string()
    .min(3, `${field} must be at least 3 characters`)
    .max(253, `${field} must be at most 253 characters`)
    .transform((raw, ctx) => {
      const checked = normalizeDomainName(raw);
      if (checked.ok) return checked.domain;
      ctx.addIssue({
        code: 'custom',
        message: `${field} ${checked.problem}`,
        params: { detailCode: 'invalid_format' },
      });
      return z.NEVER;
    });
