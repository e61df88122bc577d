/**
 * What the console's routes share: the Hono environment (the signed-in browser's session and
 * principal, set by the session middleware) and the services they call, which are the API's own.
 */
import type { Context } from 'hono';
import type { AccountViewDependencies } from '../accounts/account-view.js';
import type { Principal } from '../auth/authenticator.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import type { Repositories } from '../service.js';
import type { ConsoleAssets } from './console-assets.js';
import type { ConsoleSessionRecord } from './console-sessions.js';

export interface SignedInBrowser {
  session: ConsoleSessionRecord;
  principal: Principal;
  /** The token every form of this session carries (console-security.ts). */
  csrfToken: string;
}

export interface ConsoleEnv {
  Variables: {
    requestId: string;
    assets: ConsoleAssets;
    /** Set on every route behind sign-in. */
    signedIn: SignedInBrowser;
    /** Where this page's forms may end up besides the console (console-security.ts consolePolicy). */
    formTargets?: readonly string[];
  };
}

export type ConsoleContext = Context<ConsoleEnv>;

export interface ConsoleServices {
  repositories: Repositories;
  operations: readonly RegisteredOperation[];
  clock: Clock;
  logger: Logger;
  /** The service's public base URL (no trailing slash), for Connect's examples and the cookie's Secure. */
  publicBaseUrl: string;
  /** What the account endpoints read from, so the pages show what they answer. */
  accountView: AccountViewDependencies;
}

/** The signed-in browser of a route behind sign-in. */
export function signedInOf(c: ConsoleContext): SignedInBrowser {
  return c.get('signedIn');
}

/** Who made a change through the console, for the account's audit log. */
export function consoleActor(c: ConsoleContext): string {
  const { principal } = signedInOf(c);
  return `console:${principal.key?.keyId ?? principal.account.accountId}`;
}
