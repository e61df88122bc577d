/**
 * Domain names, one rule for every domain input (the domain of an email address, email find's
 * domain, company search by domain), so that no input lets through a form another one refuses:
 * IDNA (UTS #46) mapping to lower-case ASCII by WHATWG URL parsing (skipped for a domain already in
 * that form), exactly one trailing dot removed, and no empty label (`example..com`,
 * `mailinator.com..` would otherwise slip past an exact-match list such as the disposable-domain
 * snapshot).
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

/** Two or more LABELs, none an IDNA one (`xn--`, whose Punycode URL parsing checks). */
const PLAIN_DOMAIN =
  /^(?:(?!xn--)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?!xn--)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A top-level label URL parsing reads as the last part of an IPv4 address. */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;

/**
 * `raw` without its trailing dot when it is already a valid domain in normalized form, which URL
 * parsing would map to itself: plain lower-case labels and a top-level one with a letter that is
 * not a number. Most domains sent are; they skip the parser, which was about half of validating an
 * email parameter.
 */
export function normalizedAlready(raw: string): string | undefined {
  const domain = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  if (domain.length > 253 || !PLAIN_DOMAIN.test(domain)) return undefined;
  const topLevel = domain.slice(domain.lastIndexOf('.') + 1);
  return /[a-z]/.test(topLevel) && !NUMERIC_LABEL.test(topLevel) ? domain : undefined;
}

/** The normalized form of a domain name, or what is wrong with it (to follow the field's name). */
export function normalizeDomainName(raw: string): DomainNameCheck {
  const plain = normalizedAlready(raw);
  if (plain !== undefined) return { ok: true, domain: plain };
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
