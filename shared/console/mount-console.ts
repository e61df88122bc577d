/**
 * Serves the console at /console in a service's app (the local server, `npm start:synth`); a
 * function of its own on AWS can serve `createConsoleApp`'s sub-app the same way.
 */

import { type PasskeyCeremonies, type RelyingParty, relyingPartyOf } from '../auth/passkey-ceremonies.js';
import type { PasskeyStore } from '../auth/passkeys.js';
import { BatchService } from '../batches/batch-service.js';
import type { Clock } from '../clock.js';
import { lazy } from '../lazy.js';
import { builtInOAuth } from '../oauth/built-in-oauth.js';
import { noMetrics } from '../observability/metrics.js';
import { accountViewDependencies } from '../operations/account.js';
import type { Service } from '../service.js';
import type { Store } from '../store/store.js';
import { createConsoleApp } from './console-app.js';
import { consoleAssets } from './console-assets.js';
import { ConsoleSessions } from './console-sessions.js';
import { passkeySessions } from './passkey-routes.js';
import { apiKeySessions } from './sign-in-routes.js';

/** The name passkey prompts show for this service. */
const RELYING_PARTY_NAME = 'Lookup console';

export function mountConsole(service: Service, store: Store): void {
  const { config, clock, logger } = service;
  const party = relyingPartyOf(config.PUBLIC_BASE_URL, RELYING_PARTY_NAME);
  const consoleApp = createConsoleApp({
    repositories: service.repositories,
    operations: service.operations,
    clock,
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    accountView: accountViewDependencies({ store, clock, config, logger, metrics: noMetrics }),
    sessions: new ConsoleSessions(store.consoleSessions, clock, config.CONSOLE_SESSION_SECONDS * 1000),
    authenticator: service.authenticator,
    resolvers: {
      api_key: apiKeySessions(service.authenticator),
      passkey: passkeySessions(store.passkeys, service.repositories.accounts),
    },
    passkeys: {
      store: store.passkeys,
      ...(party ? { ceremonies: ceremoniesOnFirstUse(store.passkeys, clock, party) } : {}),
    },
    assets: consoleAssets(),
    ...(config.OAUTH_ISSUER ? {} : { oauth: builtInOAuth(service) }),
    // Reads only: the batches' workers (and webhooks) belong to whoever runs them (mount-batches.ts).
    batches: new BatchService(store.batches, service.operations, clock),
    sessionSeconds: config.CONSOLE_SESSION_SECONDS,
    signInFailures: {
      limit: config.AUTH_FAILURE_LIMIT,
      windowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
      clock,
    },
  });
  service.app.route('/console', consoleApp);
}

/**
 * The passkey ceremonies, webauthn-ceremonies.ts imported at the first of them: @simplewebauthn/server
 * and what it brings are about 350 KiB that no other page of the console needs.
 */
function ceremoniesOnFirstUse(passkeys: PasskeyStore, clock: Clock, party: RelyingParty): PasskeyCeremonies {
  const ceremonies = lazy(async () => {
    const { WebAuthnCeremonies } = await import('../auth/webauthn-ceremonies.js');
    return new WebAuthnCeremonies(passkeys, clock, party);
  });
  return {
    startRegistration: async (account) => (await ceremonies()).startRegistration(account),
    finishRegistration: async (input) => (await ceremonies()).finishRegistration(input),
    startSignIn: async () => (await ceremonies()).startSignIn(),
    finishSignIn: async (input) => (await ceremonies()).finishSignIn(input),
  };
}
