/**
 * The API's routing table as plain data: every v1 path and every /api/v2 path to its operation's
 * function, /mcp to the MCP function, /console to the console function, the built-in authorization
 * server's endpoints and metadata to the oauth function, and the service's own pages
 * (OpenAPI, /docs, the Protected Resource Metadata, the MCP server card, /healthz, the console's
 * assets and the catch-all) to the pages function. Every route takes ANY
 * method: the function answers 405 itself. Routes are grouped by subtree (`/v1/profiles/...` and
 * `/api/v2/profiles/...` form the `profiles` group) so each group's API resources and methods fit in
 * one nested stack; the mounts above them, and the pages, live in the main stack.
 */
import { catalog } from '../schemas/catalog.js';
import {
  BATCHES_FUNCTION,
  CONSOLE_FUNCTION,
  MCP_FUNCTION,
  OAUTH_FUNCTION,
  operationFunctionName,
  PAGES_FUNCTION,
} from '../schemas/functions.js';
import type { OperationDefinition } from '../schemas/operation-definition.js';
import { V2_EXTENSION_PREFIX, V2_PREFIX, v2RoutesOf } from '../schemas/v2-routes.js';

export interface Route {
  /** API Gateway style: `/api/v2/profiles/{public_identifier}`, `/{proxy+}`. */
  path: string;
  functionName: string;
}

/**
 * Where MCP clients discover the authorization server (RFC 9728): the root location and the one of
 * the /mcp resource. shared/mcp/protected-resource.ts serves them (a test holds the two equal);
 * infra/ cannot import it, since it is runtime code.
 */
export const PROTECTED_RESOURCE_METADATA_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
] as const;

/**
 * Where clients read the MCP server card before connecting: SEP-1649's well-known location and
 * SEP-2127's `<mcp-url>/server-card`. shared/mcp/server-card.ts serves them (a test holds the two equal).
 */
export const SERVER_CARD_PATHS = ['/.well-known/mcp/server-card.json', '/mcp/server-card'] as const;

/** Resources the main stack creates; each route group hangs below one of them. Longest first. */
export const MOUNTS = [V2_EXTENSION_PREFIX, V2_PREFIX, '/v1'] as const;

/** The console's pages and forms (its assets are the pages function's, below). */
const CONSOLE_PATHS = ['/console', '/console/{proxy+}'];

/**
 * The built-in authorization server: its RFC 8414 metadata and its endpoints (authorize takes GET and
 * POST, token, registration and revocation POST; the JWKS GET). Deployed whether or not OAUTH_ISSUER
 * names an outside issuer (docs/aws.md says why); with one, the function answers them 404.
 */
const OAUTH_PATHS = ['/.well-known/oauth-authorization-server', '/oauth', '/oauth/{proxy+}'];

/** The batch resource (shared/batches/batch-routes.ts): every method, the function answers 405 itself. */
const BATCH_PATHS = [
  '/v1/batches',
  '/v1/batches/{id}',
  '/v1/batches/{id}/results',
  '/v1/batches/{id}/deliveries',
  '/v1/batches/{id}/cancel',
];

/** The pages function's own routes, besides the root `/` (handled as the API's root resource). */
const PAGE_PATHS = [
  '/openapi.json',
  '/docs',
  '/docs/{proxy+}',
  ...PROTECTED_RESOURCE_METADATA_PATHS,
  ...SERVER_CARD_PATHS,
  '/healthz',
  // The console's script and stylesheet (static, cached by content hash).
  '/console/assets/{proxy+}',
  // Anything else: the JSON not-found error.
  '/{proxy+}',
];

export function apiRoutes(operations: readonly OperationDefinition[] = catalog): Route[] {
  return [
    ...operations.flatMap((operation) =>
      operation.variants.map((variant) => ({
        path: variant.path,
        functionName: operationFunctionName(operation.id),
      })),
    ),
    ...v2RoutesOf(operations).map((route) => ({
      path: route.path,
      functionName: operationFunctionName(route.operation.id),
    })),
    ...BATCH_PATHS.map((path) => ({ path, functionName: BATCHES_FUNCTION })),
    { path: '/mcp', functionName: MCP_FUNCTION },
    ...CONSOLE_PATHS.map((path) => ({ path, functionName: CONSOLE_FUNCTION })),
    ...OAUTH_PATHS.map((path) => ({ path, functionName: OAUTH_FUNCTION })),
    ...PAGE_PATHS.map((path) => ({ path, functionName: PAGES_FUNCTION })),
  ];
}

/** The mount a path hangs below and its group (the first segment after the mount); none: the main stack's. */
export function routeGroup(path: string): { mount: string; group: string } | undefined {
  const mount = MOUNTS.find((prefix) => path.startsWith(`${prefix}/`));
  if (!mount) return undefined;
  const group = path.slice(mount.length + 1).split('/')[0] as string;
  return { mount, group };
}

/** Routes by group, in first-seen order; `undefined` holds the main stack's routes. */
export function groupRoutes(routes: readonly Route[]): Map<string | undefined, Route[]> {
  const groups = new Map<string | undefined, Route[]>();
  for (const route of routes) {
    const group = routeGroup(route.path)?.group;
    groups.set(group, [...(groups.get(group) ?? []), route]);
  }
  return groups;
}
