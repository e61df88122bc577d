/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for /mcp, served without authentication at
 * `/.well-known/oauth-protected-resource/mcp` (the path-specific location) and at the root location,
 * so MCP clients can discover which authorization server issues tokens for this endpoint.
 */
import type { Hono } from 'hono';
import { families } from '../../schemas/operation-definition.js';
import { type Config, mcpResourceUrl } from '../config.js';
import type { RestEnv } from '../http/api-binding.js';

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export interface ProtectedResource {
  /** The canonical /mcp URL: the audience tokens must carry. */
  resource: string;
  issuer: string;
  /** Scopes the issuer grants for this resource, when we know them (the built-in server's families). */
  scopes?: readonly string[];
}

/**
 * /mcp as this deployment protects it: tokens of OAUTH_ISSUER when an operator names one, else of the
 * built-in authorization server (the service itself), whose scopes are the operation families.
 */
export function mcpProtectedResource(config: Config): ProtectedResource {
  return {
    resource: mcpResourceUrl(config),
    issuer: config.OAUTH_ISSUER ?? config.PUBLIC_BASE_URL,
    // An outside issuer's scopes are its own business.
    ...(config.OAUTH_ISSUER ? {} : { scopes: families }),
  };
}

/** Where clients read the metadata of `resource` (RFC 9728 section 3.1). */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${RESOURCE_METADATA_PATH}${url.pathname === '/' ? '' : url.pathname}`;
}

export function serveProtectedResourceMetadata(
  app: Hono<RestEnv>,
  protectedResource: ProtectedResource,
): void {
  const metadata = {
    resource: protectedResource.resource,
    authorization_servers: [protectedResource.issuer],
    bearer_methods_supported: ['header'],
    ...(protectedResource.scopes ? { scopes_supported: protectedResource.scopes } : {}),
    resource_name: 'Professional data lookup service (MCP)',
  };
  const { pathname } = new URL(protectedResource.resource);
  for (const path of new Set([`${RESOURCE_METADATA_PATH}${pathname}`, RESOURCE_METADATA_PATH])) {
    app.get(path, (c) => c.json(metadata, 200, { 'Cache-Control': 'public, max-age=3600' }));
  }
}
