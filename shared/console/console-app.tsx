/**
 * The console at /console: an adapter beside REST and MCP that serves people in a browser. One Hono
 * sub-app, mounted by the local server (mount-console.ts) and servable as is by a function of its
 * own: security headers on every answer, cross-site refusal of every POST before anything else,
 * the session middleware in front of every page but sign-in and the assets, then the pages, which
 * call the services the API calls.
 */
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Authenticator } from '../auth/authenticator.js';
import type { PasskeyCeremonies } from '../auth/passkey-ceremonies.js';
import type { PasskeyStore } from '../auth/passkeys.js';
import type { BatchService } from '../batches/batch-service.js';
import { ApiError } from '../errors.js';
import { AuthFailureThrottle, type AuthFailureThrottleSettings } from '../http/auth-failure-throttle.js';
import type { BuiltInOAuth } from '../oauth/built-in-oauth.js';
import { accountRoutes } from './account-routes.js';
import { batchPageRoutes } from './batch-page-routes.js';
import { connectionRoutes } from './connection-routes.js';
import { ASSETS_PATH, assetResponse, type ConsoleAssets } from './console-assets.js';
import type { ConsoleEnv, ConsoleServices } from './console-env.js';
import {
  clearedCookieHeader,
  consolePolicy,
  cookieHeader,
  crossSiteRefusal,
  csrfToken,
  isReturnPath,
  originOf,
  RETURN_COOKIE,
  SESSION_COOKIE,
  securityHeaders,
} from './console-security.js';
import type { ConsoleSessions } from './console-sessions.js';
import { infoRoutes } from './info-routes.js';
import { keyRoutes } from './key-routes.js';
import { RefusalPage } from './pages/simple-pages.js';
import { passkeyRoutes, passkeySignInRoutes } from './passkey-routes.js';
import { renderPage } from './render.js';
import { type SessionResolvers, signInRoutes, signOutRoute } from './sign-in-routes.js';

export interface ConsoleAppOptions extends ConsoleServices {
  sessions: ConsoleSessions;
  authenticator: Authenticator;
  /** How sessions of each sign-in method are checked again on every request. */
  resolvers: SessionResolvers;
  assets: () => Promise<ConsoleAssets>;
  sessionSeconds: number;
  /** Failed sign-ins per client address, counted like refused keys. */
  signInFailures: AuthFailureThrottleSettings;
  /**
   * The account's passkeys; `ceremonies` only where the public base URL allows WebAuthn
   * (passkey-ceremonies.ts `relyingPartyOf`): elsewhere the Passkeys page says why there are none.
   */
  passkeys: { store: PasskeyStore; ceremonies?: PasskeyCeremonies };
  /** The built-in OAuth authorization server, whose consent step is the connect page. */
  oauth?: BuiltInOAuth;
  /** The account's bulk lookups, read as GET /v1/batches reads them. */
  batches: BatchService;
}

export function createConsoleApp(options: ConsoleAppOptions): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const secure = options.publicBaseUrl.startsWith('https:');
  const allowedOrigins = [originOf(options.publicBaseUrl)];

  app.use('*', async (c, next) => {
    c.set('assets', await options.assets());
    await next();
    for (const [name, value] of Object.entries(securityHeaders)) c.res.headers.set(name, value);
    const formTargets = c.get('formTargets');
    if (formTargets) c.res.headers.set('Content-Security-Policy', consolePolicy(formTargets));
    if (!c.req.path.startsWith(ASSETS_PATH)) c.res.headers.set('Cache-Control', 'no-store');
  });

  // A state change from another site is refused before any session or form is read.
  app.use('*', async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const refusal = crossSiteRefusal(
      { origin: c.req.header('origin'), secFetchSite: c.req.header('sec-fetch-site') },
      [...allowedOrigins, new URL(c.req.url).origin],
    );
    if (!refusal) return next();
    options.logger.info({ requestId: c.get('requestId'), refusal }, 'console: cross-site request refused');
    return renderPage(
      c,
      <RefusalPage
        assets={c.get('assets')}
        title="Request refused"
        message={`${refusal} Nothing was changed.`}
      />,
      403,
    );
  });

  app.get('/assets/:name', (c) => assetResponse(c.get('assets'), c.req.param('name')) ?? c.notFound());

  const cookie = { secure, maxAgeSeconds: options.sessionSeconds };
  const throttle = new AuthFailureThrottle(options.signInFailures);
  const { ceremonies } = options.passkeys;
  const passkeys = {
    passkeys: options.passkeys.store,
    sessions: options.sessions,
    throttle,
    cookie,
    logger: options.logger,
  };
  signInRoutes(app, { ...options, throttle, cookie, passkeys: ceremonies !== undefined });
  if (ceremonies) passkeySignInRoutes(app, { ...passkeys, ceremonies });

  // Every other route is for a signed-in browser whose credential still holds.
  app.use('*', async (c, next) => {
    const sessionId = getCookie(c, SESSION_COOKIE);
    const session = await options.sessions.find(sessionId);
    const principal = session && (await options.resolvers[session.method](session).catch(() => undefined));
    if (!session || !principal || principal.account.accountId !== session.accountId) {
      if (sessionId) c.header('Set-Cookie', clearedCookieHeader(SESSION_COOKIE, secure), { append: true });
      // An agent's connect page comes back after sign-in, whichever way the person signs in.
      if (isReturnPath(c.req.path))
        c.header('Set-Cookie', cookieHeader(RETURN_COOKIE, c.req.path, { secure, maxAgeSeconds: 30 * 60 }), {
          append: true,
        });
      return c.redirect(`/console/sign-in?session=${sessionId ? 'ended' : 'required'}`, 303);
    }
    c.set('signedIn', { session, principal, csrfToken: csrfToken(sessionId as string) });
    return next();
  });

  signOutRoute(app, { sessions: options.sessions, cookie });
  accountRoutes(app, options);
  batchPageRoutes(app, options);
  keyRoutes(app, options);
  infoRoutes(app, options);
  passkeyRoutes(app, { ...passkeys, ceremonies });
  connectionRoutes(app, options);

  app.all('*', (c) =>
    renderPage(
      c,
      <RefusalPage
        assets={c.get('assets')}
        signedIn={{
          accountName: c.get('signedIn').principal.account.name,
          csrfToken: c.get('signedIn').csrfToken,
        }}
        title="Not found"
        message="There is no console page at this address."
      />,
      404,
    ),
  );

  app.onError((error, c) => {
    const status = error instanceof ApiError ? error.status : 500;
    options.logger.error({ err: error, requestId: c.get('requestId') }, 'console: request failed');
    const assets = c.get('assets');
    if (!assets) return c.text('The console is unavailable; try again shortly.', 503);
    return renderPage(
      c,
      <RefusalPage
        assets={assets}
        title="Something went wrong"
        message={`${error instanceof ApiError ? error.message : 'The console failed on our side.'} Request id: ${c.get('requestId')}.`}
      />,
      status === 500 ? 500 : 503,
    );
  });
  return app;
}
