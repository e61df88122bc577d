/**
 * Passkeys in the console: a signed-in person registers one (Passkeys page), and from then on signs
 * in with it instead of pasting a key. The ceremonies run in the browser through the console's own
 * script (JSON requests, so the page needs no inline code) and are verified by the passkey ceremonies
 * (passkey-ceremonies.ts).
 * Each JSON request passes the same two CSRF checks as a form: the app's Origin check, and the
 * token of the page's cookie (the sign-in cookie before a session, the session's after) in the body.
 * The challenge's id travels in a short-lived cookie of its own. A failed passkey sign-in counts
 * against the client address like a wrong key.
 */
import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Account, AccountRepository } from '../accounts/accounts.js';
import type { Principal } from '../auth/authenticator.js';
import { CHALLENGE_TTL_MS, type PasskeyCeremonies, PasskeyRefusedError } from '../auth/passkey-ceremonies.js';
import { type PasskeyStore, PasskeyTakenError } from '../auth/passkeys.js';
import type { AuthFailureThrottle } from '../http/auth-failure-throttle.js';
import { clientAddress } from '../http/client-address.js';
import type { Logger } from '../logger.js';
import type { ConsoleContext, ConsoleEnv } from './console-env.js';
import { signedInOf } from './console-env.js';
import { field, refuse, sessionForm } from './console-forms.js';
import {
  afterSignIn,
  type CookieOptions,
  clearedCookieHeader,
  cookieHeader,
  isCsrfTokenOf,
  RETURN_COOKIE,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
} from './console-security.js';
import type { ConsoleSessionRecord, ConsoleSessions } from './console-sessions.js';
import { PasskeysPage } from './pages/passkeys-page.js';
import { renderPage } from './render.js';

/** What the Passkeys page says after a change (its query names which). */
const notices: ReadonlyMap<string, string> = new Map([
  ['registered', 'Your passkey is registered: use it to sign in from now on.'],
  ['removed', 'The passkey is removed; sessions it signed in have ended.'],
]);

/** Holds the id of the ceremony under way (never the challenge itself). */
const CEREMONY_COOKIE = 'console_passkey';
const MAX_LABEL_LENGTH = 100;
/** A ceremony's JSON body: the authenticator's answer is a few kilobytes at most. */
const MAX_JSON_BYTES = 64 * 1024;

export interface PasskeyDependencies {
  ceremonies: PasskeyCeremonies;
  passkeys: PasskeyStore;
  sessions: ConsoleSessions;
  throttle: AuthFailureThrottle;
  cookie: CookieOptions;
  logger: Logger;
}

/** Passkey sessions: the passkey must still exist, for the session's account, and the account be active. */
export function passkeySessions(passkeys: PasskeyStore, accounts: AccountRepository) {
  return async (session: ConsoleSessionRecord): Promise<Principal> => {
    const passkey = await passkeys.find(session.credential);
    const account: Account | undefined = passkey && (await accounts.get(passkey.accountId));
    if (passkey?.accountId !== session.accountId || account?.status !== 'active')
      throw new PasskeyRefusedError('The passkey of this session was removed, or its account is not active.');
    return { account };
  };
}

/** A JSON answer to the browser's script; `error` is shown to the person as it is. */
function answer(c: ConsoleContext, status: 200 | 400 | 403 | 429, body: Record<string, unknown>) {
  return c.json(body, status);
}

/** The request's JSON object, or undefined when it is not one (or too large). */
async function readJson(c: ConsoleContext): Promise<Map<string, unknown> | undefined> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) return undefined;
  const text = await c.req.text().catch(() => undefined);
  if (text === undefined || Buffer.byteLength(text) > MAX_JSON_BYTES) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? new Map(Object.entries(value))
      : undefined;
  } catch {
    return undefined;
  }
}

/** The ceremony's JSON body once its CSRF token matched `cookie`'s; else the answer to send. */
async function ceremonyBody(c: ConsoleContext, cookie: string): Promise<Map<string, unknown> | Response> {
  const body = await readJson(c);
  if (!body) return answer(c, 400, { error: 'The request did not carry this console’s JSON.' });
  if (!isCsrfTokenOf(getCookie(c, cookie), body.get('csrf')))
    return answer(c, 403, { error: 'This page is out of date; reload it and try again.' });
  return body;
}

export function passkeySignInRoutes(app: Hono<ConsoleEnv>, deps: PasskeyDependencies): void {
  const ceremonyCookie = (id: string) =>
    cookieHeader(CEREMONY_COOKIE, id, { ...deps.cookie, maxAgeSeconds: CHALLENGE_TTL_MS / 1000 });

  app.post('/passkeys/sign-in/options', async (c) => {
    const body = await ceremonyBody(c, SIGN_IN_COOKIE);
    if (body instanceof Response) return body;
    const { challengeId, options } = await deps.ceremonies.startSignIn();
    c.header('Set-Cookie', ceremonyCookie(challengeId));
    return answer(c, 200, { options });
  });

  app.post('/passkeys/sign-in', async (c) => {
    const address = clientAddress(c.env);
    const retryAfter = deps.throttle.retryAfterSeconds(address);
    if (retryAfter !== undefined) {
      c.header('Retry-After', String(retryAfter));
      return answer(c, 429, {
        error: `Too many failed sign-ins came from your address; try again in ${retryAfter} seconds.`,
      });
    }
    const body = await ceremonyBody(c, SIGN_IN_COOKIE);
    if (body instanceof Response) return body;
    c.header('Set-Cookie', clearedCookieHeader(CEREMONY_COOKIE, deps.cookie.secure), { append: true });
    let accountId: string;
    let credentialId: string;
    try {
      ({ accountId, credentialId } = await deps.ceremonies.finishSignIn({
        challengeId: getCookie(c, CEREMONY_COOKIE) ?? '',
        // The library checks the answer's shape and refuses one that is not a WebAuthn assertion.
        response: body.get('response') as Parameters<PasskeyCeremonies['finishSignIn']>[0]['response'],
      }));
    } catch (error) {
      if (!(error instanceof PasskeyRefusedError)) throw error;
      deps.throttle.recordFailure(address);
      deps.logger.info(
        { requestId: c.get('requestId'), address, err: error.cause },
        'console: passkey sign-in refused',
      );
      return answer(c, 403, { error: error.message });
    }
    const { sessionId } = await deps.sessions.start(accountId, 'passkey', credentialId);
    c.header('Set-Cookie', cookieHeader(SESSION_COOKIE, sessionId, deps.cookie), { append: true });
    c.header('Set-Cookie', clearedCookieHeader(SIGN_IN_COOKIE, deps.cookie.secure), { append: true });
    c.header('Set-Cookie', clearedCookieHeader(RETURN_COOKIE, deps.cookie.secure), { append: true });
    return answer(c, 200, { location: afterSignIn(getCookie(c, RETURN_COOKIE)) });
  });
}

/**
 * The Passkeys page and its changes: behind the session middleware. Without ceremonies (no WebAuthn
 * at this public URL) the page lists and removes passkeys and says why none can be registered.
 */
export function passkeyRoutes(
  app: Hono<ConsoleEnv>,
  deps: Omit<PasskeyDependencies, 'ceremonies'> & { ceremonies?: PasskeyCeremonies },
): void {
  const { ceremonies } = deps;
  const page = async (c: ConsoleContext, notice?: string) => {
    const { principal, csrfToken } = signedInOf(c);
    const passkeys = await deps.passkeys.list(principal.account.accountId);
    return renderPage(
      c,
      <PasskeysPage
        assets={c.get('assets')}
        signedIn={{ accountName: principal.account.name, csrfToken }}
        passkeys={passkeys}
        signedInWith={
          signedInOf(c).session.method === 'passkey' ? signedInOf(c).session.credential : undefined
        }
        canRegister={ceremonies !== undefined}
        notice={notice}
      />,
    );
  };

  app.get('/passkeys', (c) => {
    const notice = [...notices].find(([name]) => c.req.query(name) !== undefined)?.[1];
    return page(c, notice);
  });

  if (ceremonies) registrationRoutes(app, { ...deps, ceremonies });

  app.post('/passkeys/remove', async (c) => {
    const form = await sessionForm(c);
    if (form instanceof Response) return form;
    const credentialId = field(form, 'credentialId') ?? '';
    const removed = await deps.passkeys.remove(signedInOf(c).principal.account.accountId, credentialId);
    if (!removed)
      return refuse(
        c,
        'No such passkey',
        'This account has no passkey by that id; nothing was changed.',
        404,
      );
    return c.redirect('/console/passkeys?removed', 303);
  });
}

/** Registering a passkey: the two JSON steps of the ceremony, for a signed-in browser. */
function registrationRoutes(app: Hono<ConsoleEnv>, deps: PasskeyDependencies): void {
  app.post('/passkeys/register/options', async (c) => {
    const body = await ceremonyBody(c, SESSION_COOKIE);
    if (body instanceof Response) return body;
    const { account } = signedInOf(c).principal;
    const { challengeId, options } = await deps.ceremonies.startRegistration(account);
    c.header(
      'Set-Cookie',
      cookieHeader(CEREMONY_COOKIE, challengeId, { ...deps.cookie, maxAgeSeconds: CHALLENGE_TTL_MS / 1000 }),
    );
    return answer(c, 200, { options });
  });

  app.post('/passkeys/register', async (c) => {
    const body = await ceremonyBody(c, SESSION_COOKIE);
    if (body instanceof Response) return body;
    c.header('Set-Cookie', clearedCookieHeader(CEREMONY_COOKIE, deps.cookie.secure));
    const label = body.get('label');
    if (label !== undefined && (typeof label !== 'string' || label.trim().length > MAX_LABEL_LENGTH))
      return answer(c, 400, { error: `The name may be at most ${MAX_LABEL_LENGTH} characters.` });
    try {
      await deps.ceremonies.finishRegistration({
        challengeId: getCookie(c, CEREMONY_COOKIE) ?? '',
        accountId: signedInOf(c).principal.account.accountId,
        response: body.get('response') as Parameters<PasskeyCeremonies['finishRegistration']>[0]['response'],
        label: typeof label === 'string' && label.trim() !== '' ? label.trim() : null,
      });
    } catch (error) {
      if (error instanceof PasskeyTakenError)
        return answer(c, 400, { error: 'This authenticator already holds a passkey of this console.' });
      if (!(error instanceof PasskeyRefusedError)) throw error;
      deps.logger.info(
        { requestId: c.get('requestId'), err: error.cause },
        'console: passkey registration refused',
      );
      return answer(c, 400, { error: error.message });
    }
    return answer(c, 200, { location: '/console/passkeys?registered' });
  });
}
