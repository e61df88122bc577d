/**
 * Wires the MCP adapter into a service's app: tools from the served operations, the in-process
 * dispatcher, API-key and OAuth authentication (tokens of the built-in authorization server, or of
 * OAUTH_ISSUER when an operator sets one), the protected resource metadata naming the issuer, and the
 * server card describing those tools. Entry points that serve /mcp call it; the REST Lambda bundles never import it.
 * The /mcp Lambda function passes the catalog's operations and a dispatcher that invokes the tool
 * group's function instead.
 */

import { isWellFormedApiKey } from '../auth/api-keys.js';
import type { Principal } from '../auth/authenticator.js';
import { mcpResourceUrl } from '../config.js';
import { lazy } from '../lazy.js';
import { builtInOAuth } from '../oauth/built-in-oauth.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import type { Service } from '../service.js';
import type { BatchToolsBackend } from './batch-tools.js';
import { mountMcpEndpoint } from './mcp-endpoint.js';
import {
  mcpProtectedResource,
  resourceMetadataUrl,
  serveProtectedResourceMetadata,
} from './protected-resource.js';
import { buildServerCard, serverCardTools, serveServerCard } from './server-card.js';
import { buildToolCatalog, type ToolEntry } from './tool-catalog.js';
import { LocalToolDispatcher, type ToolDispatcher } from './tool-dispatch.js';

/** The spec's lookup deadline of tool-protocol lookups. */
export const MCP_LOOKUP_DEADLINE_MS = 45_000;

export interface McpOptions {
  /** The lookup deadline of a tool call; the spec's 45 s unless a test shortens it. */
  deadlineMs?: number;
  /** The operations whose tools /mcp serves; the service's own by default. */
  operations?: readonly RegisteredOperation[];
  /** Runs each tool call; by default in-process, through the service's pipeline. */
  dispatcher?: (tools: ReadonlyMap<string, ToolEntry>) => ToolDispatcher;
  /** The batch resource, where the process runs batches (mount-batches.ts): serves `?toolsets=batches`. */
  batches?: BatchToolsBackend;
}

export function mountMcp(service: Service, options: McpOptions = {}): void {
  const { app, config, repositories } = service;
  const tools = buildToolCatalog(options.operations ?? service.operations);
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
    dispatcher: options.dispatcher?.(tools) ?? new LocalToolDispatcher(tools, service.pipeline),
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
