/**
 * Wires the MCP adapter into an app: tools from the served operations, the in-process dispatcher,
 * API-key and OAuth authentication, and (when OAUTH_ISSUER is set) the protected resource metadata.
 */
import type { Hono } from 'hono';
import type { AccountRepository } from '../accounts/accounts.js';
import { isWellFormedApiKey } from '../auth/api-keys.js';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import type { OAuthLinkRepository } from '../auth/oauth-links.js';
import { OAuthAuthenticator } from '../auth/oauth-tokens.js';
import type { Clock } from '../clock.js';
import { type Config, mcpResourceUrl } from '../config.js';
import type { RestEnv } from '../http/create-app.js';
import type { Logger } from '../logger.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import type { LookupPipeline } from '../pipeline/run-lookup.js';
import { mountMcpEndpoint } from './mcp-endpoint.js';
import { resourceMetadataUrl, serveProtectedResourceMetadata } from './protected-resource.js';
import { buildToolCatalog } from './tool-catalog.js';
import { LocalToolDispatcher } from './tool-dispatch.js';

/** The spec's lookup deadline of tool-protocol lookups. */
export const MCP_LOOKUP_DEADLINE_MS = 45_000;

export interface McpDependencies {
  config: Config;
  operations: readonly RegisteredOperation[];
  pipeline: LookupPipeline;
  authenticator: Authenticator;
  accounts: AccountRepository;
  oauthLinks: OAuthLinkRepository;
  clock: Clock;
  logger: Logger;
  deadlineMs?: number;
}

export function mountMcp(app: Hono<RestEnv>, deps: McpDependencies): void {
  const { config } = deps;
  const tools = buildToolCatalog(deps.operations);
  const resource = mcpResourceUrl(config);
  const oauth = config.OAUTH_ISSUER
    ? new OAuthAuthenticator(
        {
          issuer: config.OAUTH_ISSUER,
          jwksUrl:
            config.OAUTH_JWKS_URL ?? `${config.OAUTH_ISSUER.replace(/\/+$/, '')}/.well-known/jwks.json`,
          audience: resource,
        },
        deps.oauthLinks,
        deps.accounts,
        deps.clock,
      )
    : undefined;
  if (config.OAUTH_ISSUER) serveProtectedResourceMetadata(app, { resource, issuer: config.OAUTH_ISSUER });

  /** API keys keep their own format; any other bearer token is an OAuth access token, if OAuth is on. */
  const authenticate = (authorization: string | undefined): Promise<Principal> => {
    const token = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (oauth && token !== undefined && !isWellFormedApiKey(token)) return oauth.authenticate(token);
    return deps.authenticator.authenticateBearer(authorization);
  };

  mountMcpEndpoint(app, {
    tools,
    dispatcher: new LocalToolDispatcher(tools, deps.pipeline),
    authenticate,
    enabled: config.GATEWAY_MCP_ENABLED,
    rejectedHosts: config.MCP_REJECTED_HOSTS,
    serviceDomain: config.SERVICE_DOMAIN,
    resourceMetadataUrl: oauth ? resourceMetadataUrl(resource) : undefined,
    deadlineMs: deps.deadlineMs ?? MCP_LOOKUP_DEADLINE_MS,
    logger: deps.logger,
  });
}
