/**
 * Serves the built-in authorization server's endpoints (under /oauth) and its RFC 8414 metadata.
 * Entry points that serve them call it when OAUTH_ISSUER is unset: `npm start` and the OAuth Lambda
 * function. The consent page is the console's (console/connect-routes.tsx).
 */
import type { Hono } from 'hono';
import type { RestEnv } from '../http/api-binding.js';
import type { Service } from '../service.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, OAUTH_PATH } from './authorization-server.js';
import { builtInOAuth } from './built-in-oauth.js';

export function mountAuthorizationServer(service: Service, app: Hono<RestEnv> = service.app): void {
  const oauth = builtInOAuth(service);
  const handle = async (request: Request) => (await oauth.server()).handle(request);
  app.get(AUTHORIZATION_SERVER_METADATA_PATH, (c) => handle(c.req.raw));
  app.all(OAUTH_PATH, (c) => handle(c.req.raw));
  app.all(`${OAUTH_PATH}/*`, (c) => handle(c.req.raw));
}
