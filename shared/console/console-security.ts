/**
 * The console's security rules in one place: the headers every console answer carries (a strict
 * Content-Security-Policy: no inline script or style, nothing from elsewhere, no framing; its
 * directives are every page's, http/page-security.ts), the session cookie's attributes, and the two
 * checks every state change passes (CSRF): the request comes from the console's own origin
 * (`Origin`, or `Sec-Fetch-Site` where a browser sent no `Origin`), and its form carries the token
 * of the browser's session (or, for sign-in, of the pre-session cookie the sign-in page set). A
 * token is derived from the cookie's random value, so nothing more is stored, and a page of another
 * site can neither read the cookie nor the token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { contentSecurityPolicy, pageSecurityHeaders } from '../http/page-security.js';

/**
 * The Content-Security-Policy of a console answer. Forms post to the console only, except where a
 * page's form ends in a redirect elsewhere that the page names: the OAuth connect page's approval
 * redirects to the agent's redirect URI, and browsers apply `form-action` to every redirect of a
 * submission, so that one origin (or custom scheme) is added for that page alone.
 */
export function consolePolicy(formTargets: readonly string[] = []): string {
  return contentSecurityPolicy({ forms: ["'self'", ...formTargets] });
}

export const CONTENT_SECURITY_POLICY = consolePolicy();

/** Headers on every console answer, pages, refusals and assets alike. */
export const securityHeaders = pageSecurityHeaders(CONTENT_SECURITY_POLICY);

export const CONSOLE_PATH = '/console';
/** The session id; Path=/console keeps it away from the API's routes. */
export const SESSION_COOKIE = 'console_session';
/** A random value the sign-in page sets, so the sign-in form has a token before any session. */
export const SIGN_IN_COOKIE = 'console_sign_in';
/**
 * Where a browser sent to sign in was going (an OAuth connect page), so that either sign-in method
 * brings it back there. Only connect pages qualify: nothing else may choose where sign-in leads.
 */
export const RETURN_COOKIE = 'console_return';
const RETURN_PATH = /^\/console\/connect\/[A-Za-z0-9_-]{1,128}$/;

/** Where sign-in leads: the remembered connect page, else the overview. */
export function afterSignIn(returnCookie: string | undefined): string {
  return returnCookie !== undefined && RETURN_PATH.test(returnCookie) ? returnCookie : CONSOLE_PATH;
}

/** Whether sign-in should come back to this path (a connect page). */
export function isReturnPath(path: string): boolean {
  return RETURN_PATH.test(path);
}
/** The hidden form field that carries the CSRF token. */
export const CSRF_FIELD = 'csrf';

export interface CookieOptions {
  /** Secure when the public base URL is https (a plain-http local server would never get it back). */
  secure: boolean;
  maxAgeSeconds: number;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Strict, Path=/console, Secure behind https. */
export function cookieHeader(name: string, value: string, options: CookieOptions): string {
  const attributes = [
    `${name}=${value}`,
    `Path=${CONSOLE_PATH}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
  ];
  if (options.secure) attributes.push('Secure');
  return attributes.join('; ');
}

/** A `Set-Cookie` value that removes the cookie. */
export function clearedCookieHeader(name: string, secure: boolean): string {
  return cookieHeader(name, '', { secure, maxAgeSeconds: 0 });
}

/** The CSRF token of a cookie's random value (a session id or the sign-in cookie's value). */
export function csrfToken(cookieValue: string): string {
  return createHash('sha256').update(`console-csrf\0${cookieValue}`).digest('base64url');
}

export function isCsrfTokenOf(cookieValue: string | undefined, token: unknown): boolean {
  if (!cookieValue || typeof token !== 'string') return false;
  const expected = Buffer.from(csrfToken(cookieValue));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Why a state change does not come from the console's own pages, or undefined when it does. The
 * console's origins: the public base URL's, and the one the request was addressed to (a browser
 * sets `Host`; a page of another site cannot make it name this one and send this `Origin`).
 */
export function crossSiteRefusal(
  headers: { origin?: string; secFetchSite?: string },
  allowedOrigins: readonly string[],
): string | undefined {
  // `null` is what a browser sends where it will not tell (a privacy setting, a sandboxed frame):
  // then its Sec-Fetch-Site decides, and without one the request is refused.
  if (headers.origin !== undefined && headers.origin !== 'null') {
    return allowedOrigins.includes(headers.origin)
      ? undefined
      : `The form was sent from ${headers.origin}, not from this console.`;
  }
  if (headers.secFetchSite !== undefined) {
    return headers.secFetchSite === 'same-origin'
      ? undefined
      : `The browser says the form was sent from a ${headers.secFetchSite} page, not from this console.`;
  }
  return headers.origin === 'null'
    ? 'The form was sent from an opaque origin, not from this console.'
    : 'The request says neither where it was sent from (Origin) nor whether it is same-origin (Sec-Fetch-Site).';
}

export function originOf(url: string): string {
  return new URL(url).origin;
}
