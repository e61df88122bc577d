/**
 * Discovery outside the protocol: the MCP Server Card, a JSON document a client or crawler reads
 * before it connects. Served without authentication at `/.well-known/mcp/server-card.json` (the
 * location of SEP-1649, where crawlers look) and at `/mcp/server-card` (`<streamable-http-url>/server-card`,
 * the location SEP-2127 reserves), generated from the tool catalog so it cannot drift from tools/list.
 *
 * Its shape is the Server Card v1 schema of the experimental server-card extension (vendored in
 * schemas/external/). That schema describes identity, transport and protocol versions only and puts
 * vendor data in `_meta` under a reverse-DNS key, so the tools, the toolsets and the OAuth details
 * live under `<SERVICE_DOMAIN>/…` keys of `_meta`, the same prefix tool results use.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import type { Context, Hono } from 'hono';
import Negotiator from 'negotiator';
import { defaultToolNames } from '../../schemas/operation-definition.js';
import { API_KEY_PREFIX } from '../auth/api-keys.js';
import { type Config, mcpResourceUrl } from '../config.js';
import { MethodNotAllowedError, NotAcceptableError } from '../errors.js';
import type { RestEnv } from '../http/api-binding.js';
import { toHttpResponse } from '../http/render.js';
import { lazy } from '../lazy.js';
import { errorResponse } from '../pipeline/public-response.js';
import { SERVICE_VERSION } from '../version.js';
import { mcpProtectedResource, resourceMetadataUrl } from './protected-resource.js';
import type { ToolEntry } from './tool-catalog.js';
import { type AdapterToolsets, toolsetListing } from './tool-filter.js';

export const SERVER_CARD_PATHS = ['/.well-known/mcp/server-card.json', '/mcp/server-card'] as const;

export const SERVER_CARD_SCHEMA_URL =
  'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** The media type SEP-2127 gives a card; plain JSON for every client that does not ask for it. */
const CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

/**
 * The protocol revisions /mcp serves: the stateless 2026-07-28 era, and the 2025 revisions the
 * SDK negotiates in the initialize handshake (2024's are older than Streamable HTTP itself).
 */
export const SERVED_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** The package's name: the server name's last segment, here and in server.json. */
export const SERVER_SLUG = 'lookup-service';
export const SERVER_TITLE = 'Professional data lookup service';
/** At most 100 characters (both schemas); server.json repeats it. */
export const SERVER_DESCRIPTION =
  'Lookups of professional profiles, companies, jobs, posts, emails and websites, billed in credits.';

/**
 * The registry's reverse-DNS name under the deployment's own domain (`lookup.example.com` gives
 * `com.example.lookup/lookup-service`), which is a namespace the MCP registry lets its owner publish.
 */
export function serverName(serviceDomain: string): string {
  return `${serviceDomain.split('.').reverse().join('.')}/${SERVER_SLUG}`;
}

/** Said of the Authorization header here and in server.json (a test holds the two equal). */
const API_KEY_HEADER_DESCRIPTION =
  "An API key from the service's console, as a Bearer token; leave it out to sign in with OAuth instead.";

export type ServerCard = ReturnType<typeof buildServerCard>;

/** What a card says of the tools: the part made from the catalog alone, which a build can make ahead. */
export interface ServerCardTools {
  /** What the default tools/list shows, as it shows it. */
  listed: Tool[];
  /** The `?toolsets=` names a client may add to the /mcp URL, with the tools each serves. */
  toolsets: { name: string; tools: string[] }[];
}

export function serverCardTools(
  tools: ReadonlyMap<string, ToolEntry>,
  adapter: AdapterToolsets = { batches: false },
): ServerCardTools {
  const entries = [...tools.values()];
  return {
    listed: defaultToolNames(entries.map((entry) => entry.operation.definition)).flatMap(
      (name) => tools.get(name)?.tool ?? [],
    ),
    toolsets: toolsetListing(tools, adapter),
  };
}

/** The card of this deployment: its URLs, its issuer and the tools (the catalog's). */
export function buildServerCard(config: Config, { listed, toolsets }: ServerCardTools) {
  const base = config.PUBLIC_BASE_URL;
  const resource = mcpProtectedResource(config);
  const prefix = config.SERVICE_DOMAIN;
  return {
    $schema: SERVER_CARD_SCHEMA_URL,
    name: serverName(config.SERVICE_DOMAIN),
    title: SERVER_TITLE,
    description: SERVER_DESCRIPTION,
    version: SERVICE_VERSION,
    websiteUrl: `${base}/docs`,
    remotes: [
      {
        type: 'streamable-http' as const,
        url: mcpResourceUrl(config),
        supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS],
        headers: [
          {
            name: 'Authorization',
            description: API_KEY_HEADER_DESCRIPTION,
            // Not required: without it the 401 names the resource metadata and OAuth takes over.
            isRequired: false,
            isSecret: true,
            value: 'Bearer {api_key}',
            variables: {
              api_key: { description: 'Your API key.', isSecret: true, placeholder: `${API_KEY_PREFIX}…` },
            },
          },
        ],
      },
    ],
    _meta: {
      [`${prefix}/authentication`]: {
        apiKey: { header: 'Authorization', scheme: 'Bearer', issuedAt: `${base}/console` },
        oauth2: {
          resourceMetadata: resourceMetadataUrl(resource.resource),
          authorizationServers: [resource.issuer],
          ...(resource.scopes ? { scopesSupported: resource.scopes } : {}),
        },
      },
      [`${prefix}/tools`]: listed,
      [`${prefix}/toolsets`]: toolsets,
    },
  };
}

/**
 * GET and HEAD answer the card, public and cacheable, with an ETag to revalidate against and the
 * CORS headers SEP-2127 asks for (browser clients read it cross-origin); OPTIONS answers a
 * preflight; other methods 405. The card is built on first request, not when a function starts.
 */
export function serveServerCard(app: Hono<RestEnv>, card: () => ServerCard | Promise<ServerCard>): void {
  const body = lazy(async () => {
    const text = JSON.stringify(await card());
    return { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"` };
  });
  for (const path of SERVER_CARD_PATHS) {
    app.all(path, async (c) => {
      if (c.req.method === 'OPTIONS') return c.body(null, 204, corsHeaders);
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
        return refuse(c, new MethodNotAllowedError(c.req.method));
      const type = new Negotiator({ headers: { accept: c.req.header('accept') ?? '*/*' } }).mediaType([
        'application/json',
        CARD_MEDIA_TYPE,
      ]);
      if (type === undefined) return refuse(c, new NotAcceptableError());
      const { text, etag } = await body();
      const headers = {
        ...corsHeaders,
        'Cache-Control': 'public, max-age=300',
        ETag: etag,
        Vary: 'Accept',
      };
      if (matches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
      return c.body(text, 200, { ...headers, 'Content-Type': `${type}; charset=utf-8` });
    });
  }
}

const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD',
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Expose-Headers': 'ETag',
};

function refuse(c: Context<RestEnv>, error: MethodNotAllowedError | NotAcceptableError): Response {
  return toHttpResponse(errorResponse(error, c.get('requestId')));
}

/** RFC 9110's weak comparison: `W/` prefixes ignored, `*` matches any current representation. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}
