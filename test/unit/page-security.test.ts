import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, pageSecurityHeaders } from '../../shared/http/page-security.js';

const directives = (policy: string) =>
  new Map(
    policy.split('; ').map((directive) => {
      const [name = '', ...values] = directive.split(' ');
      return [name, values] as const;
    }),
  );

describe('contentSecurityPolicy', () => {
  it('allows nothing from elsewhere and no framing by default, forms to the page itself', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
  });

  it.each([
    ['an inline script by hash', { scripts: ["'sha256-abc='"] }, 'script-src', ["'self'", "'sha256-abc='"]],
    ['style attributes', { styles: ["'unsafe-inline'"] }, 'style-src', ["'self'", "'unsafe-inline'"]],
    [
      'another origin for requests',
      { connects: ['https://api.example'] },
      'connect-src',
      ["'self'", 'https://api.example'],
    ],
    ['no forms at all', { forms: [] }, 'form-action', ["'none'"]],
    [
      'a redirect target of a form',
      { forms: ["'self'", 'https://agent.example'] },
      'form-action',
      ["'self'", 'https://agent.example'],
    ],
  ])('widens only what a page names: %s', (_, policy, directive, values) => {
    const read = directives(contentSecurityPolicy(policy));
    expect(read.get(directive)).toEqual(values);
    expect(read.get('default-src')).toEqual(["'none'"]);
    expect(read.get('frame-ancestors')).toEqual(["'none'"]);
  });
});

describe('pageSecurityHeaders', () => {
  it('sends the policy with nosniff, a same-origin referrer policy, no framing and an isolated opener', () => {
    expect(pageSecurityHeaders("default-src 'none'")).toEqual({
      'Content-Security-Policy': "default-src 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
  });
});
