/**
 * Signing in and out. Sign-in exchanges an API key of the account for a server-side session: the key
 * is checked by the API's Authenticator, failures count against the client address like refused keys
 * (429 once too many), and the browser gets only a random session id in an HttpOnly, SameSite=Strict
 * cookie. Each session remembers its sign-in method; `SessionResolvers` says how each method's
 * credential is checked again on every request, so a second method (passkeys) adds a resolver and a
 * route of its own. Sign-out deletes the session on the server, so the old cookie stops working.
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { InsufficientScopeError, InvalidApiKeyError } from '../errors.js';
import type { AuthFailureThrottle } from '../http/auth-failure-throttle.js';
import { clientAddress } from '../http/client-address.js';
import type { Logger } from '../logger.js';
import type { ConsoleContext, ConsoleEnv } from './console-env.js';
import { field, readForm, refuse, sessionForm } from './console-forms.js';
import {
  afterSignIn,
  type CookieOptions,
  CSRF_FIELD,
  clearedCookieHeader,
  cookieHeader,
  csrfToken,
  isCsrfTokenOf,
  RETURN_COOKIE,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
} from './console-security.js';
import type { ConsoleSessionRecord, ConsoleSessions, SignInMethod } from './console-sessions.js';
import { SignInPage } from './pages/simple-pages.js';
import { renderPage } from './render.js';

/** Checks a session's credential again; throws when it no longer holds (revoked, expired, suspended). */
export type SessionResolvers = Readonly<
  Record<SignInMethod, (session: ConsoleSessionRecord) => Promise<Principal>>
>;

/** API-key sessions: the key by its hash, through the Authenticator's cache (KEY_CACHE_SECONDS). */
export function apiKeySessions(authenticator: Authenticator) {
  return async (session: ConsoleSessionRecord): Promise<Principal> => {
    const principal = await authenticator.authenticateKeyHash(session.credential);
    if (principal.account.status !== 'active') throw new InsufficientScopeError('The account is suspended.');
    return principal;
  };
}

const SIGN_IN_COOKIE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** The sign-in form's cookie lasts long enough to fill the form in. */
const SIGN_IN_FORM_SECONDS = 30 * 60;

const notices: ReadonlyMap<string, string> = new Map([
  ['ended', 'Your session ended (signed out, expired, or its key is no longer active). Sign in again.'],
  ['required', 'Sign in to use the console.'],
  ['signed-out', 'You are signed out.'],
]);

export interface SignInDependencies {
  sessions: ConsoleSessions;
  authenticator: Authenticator;
  throttle: AuthFailureThrottle;
  cookie: CookieOptions;
  logger: Logger;
  /** Whether the sign-in page offers passkeys (passkey-routes.tsx serves them). */
  passkeys: boolean;
}

export function signInRoutes(app: Hono<ConsoleEnv>, deps: SignInDependencies): void {
  const signInForm = (c: ConsoleContext, status: 200 | 400 | 401 | 403, error?: string) => {
    let value = getCookie(c, SIGN_IN_COOKIE);
    if (!value || !SIGN_IN_COOKIE_PATTERN.test(value)) {
      value = randomBytes(32).toString('base64url');
      c.header(
        'Set-Cookie',
        cookieHeader(SIGN_IN_COOKIE, value, { ...deps.cookie, maxAgeSeconds: SIGN_IN_FORM_SECONDS }),
        { append: true },
      );
    }
    const notice = notices.get(c.req.query('session') ?? '');
    return renderPage(
      c,
      <SignInPage
        assets={c.get('assets')}
        csrfToken={csrfToken(value)}
        passkeys={deps.passkeys}
        error={error}
        notice={notice}
      />,
      status,
    );
  };

  app.get('/sign-in', (c) => signInForm(c, 200));

  app.post('/sign-in', async (c) => {
    const address = clientAddress(c.env);
    const retryAfter = deps.throttle.retryAfterSeconds(address);
    if (retryAfter !== undefined) {
      c.header('Retry-After', String(retryAfter));
      return refuse(
        c,
        'Too many failed sign-ins',
        `Too many sign-ins with wrong keys came from your address; try again in ${retryAfter} seconds.`,
        429,
      );
    }
    const form = await readForm(c);
    if (!form) return signInForm(c, 400, 'The request did not carry the sign-in form; use the form below.');
    if (!isCsrfTokenOf(getCookie(c, SIGN_IN_COOKIE), field(form, CSRF_FIELD))) {
      return signInForm(c, 403, 'The sign-in form had expired; it has been renewed, please sign in again.');
    }
    let principal: Principal;
    try {
      principal = await deps.authenticator.authenticateKey(field(form, 'apiKey')?.trim());
    } catch (error) {
      if (!(error instanceof InvalidApiKeyError)) throw error;
      deps.throttle.recordFailure(address);
      deps.logger.info({ requestId: c.get('requestId'), address }, 'console: sign-in refused');
      return signInForm(c, 401, 'That key is wrong or no longer active. Check it and try again.');
    }
    if (principal.account.status !== 'active' || !principal.key) {
      return signInForm(
        c,
        403,
        'This account is suspended; the console is closed to it until it is resumed.',
      );
    }
    // The console issues and revokes keys: a key limited to some families or to a spend cap (one
    // handed to an agent or a script) must not open it, or it could issue itself an unlimited key.
    const { key } = principal;
    if (key.scopes !== null || key.dailyCreditCap !== null || key.monthlyCreditCap !== null) {
      deps.logger.info({ requestId: c.get('requestId'), keyId: key.keyId }, 'console: limited key refused');
      return signInForm(
        c,
        403,
        'This key is limited (to some scopes or by a spend cap), so it cannot manage the account. Sign in with a key without limits.',
      );
    }
    const { sessionId } = await deps.sessions.start(
      principal.account.accountId,
      'api_key',
      principal.key.keyHash,
    );
    c.header('Set-Cookie', cookieHeader(SESSION_COOKIE, sessionId, deps.cookie), { append: true });
    c.header('Set-Cookie', clearedCookieHeader(SIGN_IN_COOKIE, deps.cookie.secure), { append: true });
    c.header('Set-Cookie', clearedCookieHeader(RETURN_COOKIE, deps.cookie.secure), { append: true });
    return c.redirect(afterSignIn(getCookie(c, RETURN_COOKIE)), 303);
  });
}

/** Sign-out: behind the session middleware, with the session's token; ends the session on the server. */
export function signOutRoute(
  app: Hono<ConsoleEnv>,
  deps: Pick<SignInDependencies, 'sessions' | 'cookie'>,
): void {
  app.post('/sign-out', async (c) => {
    const form = await sessionForm(c);
    if (form instanceof Response) return form;
    await deps.sessions.end(getCookie(c, SESSION_COOKIE));
    c.header('Set-Cookie', clearedCookieHeader(SESSION_COOKIE, deps.cookie.secure), { append: true });
    return c.redirect('/console/sign-in?session=signed-out', 303);
  });
}
