/**
 * The built-in OAuth authorization server on AWS (/oauth/* and /.well-known/oauth-authorization-server):
 * oidc-provider's endpoints over the DynamoDB store (its records expire by the table's TTL), signing
 * with keys derived from OAUTH_SIGNING_SECRET, which Secrets Manager holds. The consent page is the
 * console function's. When OAUTH_ISSUER names an outside issuer, the service issues no tokens and
 * every one of these paths answers the JSON not-found error.
 */
import { builtInOAuth } from '../../shared/oauth/built-in-oauth.js';
import { mountAuthorizationServer } from '../../shared/oauth/mount-authorization-server.js';
import { createLambdaService } from './lambda-service.js';
import { toRestHandler } from './rest-adapter.js';

const service = await createLambdaService({ operations: [], implementations: () => [] });
if (!service.config.OAUTH_ISSUER) {
  mountAuthorizationServer(service);
  // The keys and the provider are made in the init phase (full CPU on Lambda), not on the first request.
  await builtInOAuth(service).server();
}

export const handler = toRestHandler(service.app);
