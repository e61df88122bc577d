/**
 * Wires the MCP adapter into a service's app: the tools it is given and the port their calls run
 * through, API-key and OAuth authentication (tokens of the built-in authorization server, or of
 * OAUTH_ISSUER when an operator sets one), the protected resource metadata naming the issuer, and the
 * server card describing those tools. Entry points that serve /mcp call it; the REST Lambda bundles
 * never import it. Processes that run the operations themselves pass `inProcessTools`
 * (tool-dispatch.ts); the /mcp Lambda function passes the tools its build wrote down and a
 * dispatcher that invokes each tool group's function, so it never loads the catalog.
 */

import { isWellFormedApiKey } from '../auth/api-keys.js';
import type { Principal } from '../auth/authenticator.js';
import { mcpResourceUrl } from '../config.js';
import { lazy } from '../lazy.js';
import { builtInOAuth } from '../oauth/built-in-oauth.js';
import type { Service } from '../service.js';
import type { BatchToolsBackend } from './batch-tools.js';
import { mountMcpEndpoint } from './mcp-endpoint.js';
import {
  mcpProtectedResource,
  resourceMetadataUrl,
  serveProtectedResourceMetadata,
} from './protected-resource.js';
import { buildServerCard, serverCardTools, serveServerCard } from './server-card.js';
import type { ServedTools } from './tool-dispatch.js';

/** The spec's lookup deadline of tool-protocol lookups. */
export const MCP_LOOKUP_DEADLINE_MS = 45_000;

export interface McpOptions {
  /** The lookup deadline of a tool call; the spec's 45 s unless a test shortens it. */
  deadlineMs?: number;
  /** The batch resource, where the process runs batches (mount-batches.ts): serves `?toolsets=batches`. */
  batches?: BatchToolsBackend;
}

export function mountMcp(
  service: Service,
  { tools, dispatcher }: ServedTools,
  options: McpOptions = {},
): void {
  const { app, config, repositories } = service;
  const resource = mcpResourceUrl(config);
  // Both token checkers (and jose with them) load at the first OAuth token: a process whose callers
  // bring API keys never loads them (docs/benchmarks.md, /mcp's cold start).
  const { OAUTH_ISSUER: outsideIssuer } = config;
  const outsideTokens =
    outsideIssuer &&
    lazy(async () => {
      const { OAuthAuthenticator } = await import('../auth/oauth-tokens.js');
      return new OAuthAuthenticator(
        {
          issuer: outsideIssuer,
          jwksUrl: config.OAUTH_JWKS_URL ?? `${outsideIssuer.replace(/\/+$/, '')}/.well-known/jwks.json`,
          audience: resource,
        },
        repositories.oauthLinks,
        repositories.accounts,
        service.clock,
        config.KEY_CACHE_SECONDS * 1000,
      );
    });
  const tokens = outsideTokens || builtInOAuth(service).tokens;
  const verifyToken = async (token: string): Promise<Principal> => (await tokens()).authenticate(token);
  serveProtectedResourceMetadata(app, mcpProtectedResource(config));
  // A card is a promise that the endpoint answers: with the endpoint switched off there is none (404).
  if (config.GATEWAY_MCP_ENABLED) {
    serveServerCard(app, () =>
      buildServerCard(config, serverCardTools(tools, { batches: options.batches !== undefined })),
    );
  }

  /** API keys keep their own format; any other bearer token is an OAuth access token. */
  const authenticate = (authorization: string | undefined): Promise<Principal> => {
    const token = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (token !== undefined && !isWellFormedApiKey(token)) return verifyToken(token);
    return service.authenticator.authenticateBearer(authorization);
  };

  mountMcpEndpoint(app, {
    tools,
    dispatcher,
    authenticate,
    enabled: config.GATEWAY_MCP_ENABLED,
    rejectedHosts: config.MCP_REJECTED_HOSTS,
    serviceDomain: config.SERVICE_DOMAIN,
    resourceMetadataUrl: resourceMetadataUrl(resource),
    deadlineMs: options.deadlineMs ?? MCP_LOOKUP_DEADLINE_MS,
    resultMaxChars: config.MCP_RESULT_MAX_CHARS,
    ...(options.batches ? { batches: options.batches } : {}),
    logger: service.logger,
  });
}
