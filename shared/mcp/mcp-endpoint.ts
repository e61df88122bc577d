/**
 * POST /mcp: JSON-RPC 2.0 over stateless Streamable HTTP with JSON responses, in both protocol eras
 * of the SDK's v2 line: the 2025 era (`initialize`, then one message per request, as the spec
 * describes) and the 2026-07-28 era (no handshake; every request carries its revision and
 * capabilities in `_meta`, `server/discover` describes the server, `Mcp-Method`/`Mcp-Name` headers
 * must agree with the body). Before the SDK sees anything, the adapter answers the operator switch,
 * the method, browser origins and refused hosts, the tool filter and authentication itself; then
 * `isLegacyRequest` (the SDK's own classification) routes the message:
 * - 2025 era: a fresh `Server` on a fresh stateless transport with JSON responses. Not the SDK's
 *   own legacy fallback, which answers over SSE where the spec says responses are JSON.
 * - 2026-07-28 era: `createMcpHandler` in modern-only mode, which checks the headers against the
 *   body, answers `server/discover`, stamps `resultType` and the cache fields.
 * Both build the same server (`createServer`), so `initialize`, `server/discover`, `tools/list` and
 * `ping` cost nothing in either era, and each `tools/call` is one billed operation through the
 * dispatch port.
 */
import {
  type CallToolResult,
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Principal } from '../auth/authenticator.js';
import { ApiError, LookupTimeoutError, toApiError } from '../errors.js';
import type { RestEnv } from '../http/api-binding.js';
import { normalHostName } from '../http/host-name.js';
import { toHttpResponse } from '../http/render.js';
import type { Logger } from '../logger.js';
import { errorResponse, printableField, quoteInput } from '../pipeline/public-response.js';
import { SERVICE_VERSION } from '../version.js';
import { type BatchToolsBackend, batchTools, isBatchTool, runBatchTool } from './batch-tools.js';
import {
  discoverTools,
  FIND_OPERATION,
  RUN_OPERATION,
  refusedResult,
  resolveDiscoverCall,
} from './discover-tools.js';
import { SERVER_SLUG, SERVER_TITLE } from './server-card.js';
import { InvalidParamsError, readToolCallParams, withParsableParams } from './tool-call-params.js';
import type { ToolEntry } from './tool-catalog.js';
import type { ToolDispatcher } from './tool-dispatch.js';
import { filterTools } from './tool-filter.js';
import { type ToolOutcome, toToolResult } from './tool-results.js';

export interface McpEndpointOptions {
  /** Every tool, by name; a connection may narrow them (tool-filter.ts). */
  tools: ReadonlyMap<string, ToolEntry>;
  dispatcher: ToolDispatcher;
  /** Authenticates the Authorization header of every request (API key or OAuth token). */
  authenticate: (authorization: string | undefined) => Promise<Principal>;
  enabled: boolean;
  /** Host names refused with 403, in normal form (http/host-name.ts). */
  rejectedHosts: readonly string[];
  serviceDomain: string;
  /** Where the protected resource metadata is, when OAuth is configured: named in 401 challenges. */
  resourceMetadataUrl?: string;
  /** The lookup deadline of a tool call (45 s by the spec). */
  deadlineMs: number;
  /** The bound on a tool result's characters (result-bound.ts). */
  resultMaxChars: number;
  /** The batch resource, where this process runs batches: serves the `batches` toolset. */
  batches?: BatchToolsBackend;
  logger: Logger;
}

export const MCP_PATH = '/mcp';
/** JSON-RPC requests are small; anything bigger is refused before it is read whole. */
const MAX_BODY_BYTES = 256 * 1024;
/** How many unknown tool or toolset names a refusal of the filter repeats back. */
const MAX_ECHOED_NAMES = 8;
/** JSON-RPC's implementation-defined server error, which the SDK also uses for transport refusals. */
const SERVER_ERROR = -32000;

/**
 * Every SDK `Server` builds a JSON Schema validator (an Ajv instance) unless given one, and it is
 * only used for elicitation, which this server never asks for: one validator serves every request,
 * and it is the SDK's other one, which compiles nothing (Ajv and its formats cost the /mcp function
 * a tenth of its cold start; its bundle does not carry Ajv at all, see lambda-bundle-options.ts).
 */
const sharedValidator = new CfWorkerJsonSchemaValidator();

/**
 * How long a 2026-era client may reuse tools/list and server/discover: the list depends only on the
 * URL's filter, never on the caller, and changes only with a deployment (SPEC "Versioning" rule 3).
 */
const LIST_CACHE_HINT = { ttlMs: 5 * 60_000, cacheScope: 'public' } as const;

/** What `initialize` tells an agent about billing, paging and errors. */
const instructions = (serviceDomain: string) =>
  [
    'Lookups of public professional data: profiles, companies, posts, jobs and searches.',
    'Billing: every tools/call is one billed operation at the price in its description (the batches toolset starts batches for free and bills each item as it runs), charged to the account behind your credentials, and each result says what it cost and what remains;',
    'repeating a call (even with the same JSON-RPC id) is billed again, a lookup that matches nothing is refunded, and initialize, server/discover, tools/list and ping are free.',
    'Paging: a call returns one page; to continue, call again with meta.paging.nextStart, nextOffset or nextCursor as the tool describes. Nothing pages or retries on its own.',
    'Errors: a failed lookup is a tool result with isError true, structuredContent holding error.code, error.message, error.retryable and error.details, and text saying what to change.',
    'After authentication, account, credit, rate-limit or service errors do not switch tools and do not retry automatically.',
    `_meta["${serviceDomain}/lookup"] of each result holds the HTTP status and the X-Credits-Remaining and X-RateLimit-* values.`,
    'Results do not establish ownership or beneficial ownership, and an empty search does not prove absence.',
  ].join(' ');

export function mountMcpEndpoint(app: Hono<RestEnv>, options: McpEndpointOptions): void {
  const modern = createMcpHandler(({ requestInfo }) => createServer(scopeOf(requestInfo)), {
    legacy: 'reject',
    onerror: (error) => options.logger.debug({ err: error }, 'mcp request refused by the SDK'),
  });
  app.use(
    MCP_PATH,
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => withNoStore(jsonRpcError(413, `Request body larger than ${MAX_BODY_BYTES} bytes.`)),
    }),
  );
  app.all(MCP_PATH, async (c) => withNoStore(await handle(c, options, modern)));
}

async function handle(
  c: Context<RestEnv>,
  options: McpEndpointOptions,
  modern: McpHttpHandler,
): Promise<Response> {
  const requestId = c.get('requestId');
  if (!options.enabled) {
    const off = new ApiError('service_unavailable', {
      message: 'The MCP endpoint is switched off by the operator.',
      retryable: false,
    });
    return toHttpResponse(errorResponse(off, requestId));
  }
  if (c.req.method !== 'POST') {
    return jsonRpcError(405, 'Method not allowed: send JSON-RPC messages with POST.', { Allow: 'POST' });
  }
  if (c.req.header('origin') !== undefined) {
    return jsonRpcError(403, 'Browser origins are not supported on this endpoint.');
  }
  const host = normalHostName(c.req.header('host') ?? '') ?? '';
  if (options.rejectedHosts.includes(host)) {
    return jsonRpcError(403, `This endpoint is not served through ${quoteInput(host, 64)}.`);
  }
  const filtered = filterTools(options.tools, new URL(c.req.url).searchParams, {
    batches: options.batches !== undefined,
  });
  if (!filtered.ok) {
    // The unknown names come from the request: echoed only as a few short, printable prefixes.
    const unknown = filtered.unknown
      .slice(0, MAX_ECHOED_NAMES)
      .map((name) => printableField(name).slice(0, 64));
    const names = unknown.map((name) => `"${name}"`).join(', ');
    return jsonRpcError(
      400,
      `?${filtered.parameter} names ${names || 'nothing'}; valid names are listed in error.data.valid.`,
      {},
      { parameter: filtered.parameter, unknown, valid: filtered.valid },
      ProtocolErrorCode.InvalidParams,
    );
  }

  const authorization = c.req.header('authorization');
  let principal: Principal;
  try {
    principal = await options.authenticate(authorization);
  } catch (error) {
    return authenticationFailure(toApiError(error), requestId, authorization, options);
  }

  let message: unknown;
  try {
    message = JSON.parse(await c.req.text());
  } catch {
    return jsonRpcError(400, 'Parse error: Invalid JSON', {}, undefined, ProtocolErrorCode.ParseError);
  }
  // One message per request: each tools/call has its own request id and ledger entry.
  if (Array.isArray(message)) {
    return jsonRpcError(
      400,
      'Batches are not supported; send one JSON-RPC message per request.',
      {},
      undefined,
      ProtocolErrorCode.InvalidRequest,
    );
  }

  // Read here, from the message as parsed: the SDK's parsing would drop a `__proto__` argument.
  const toolCall = readToolCallParams(message);
  const scope: RequestScope = {
    tools: filtered.tools,
    discover: filtered.discover,
    batches: filtered.batches,
    serviceDomain: options.serviceDomain,
    call: () => {
      if (!toolCall?.ok)
        throw toolCall?.error ?? new InvalidParamsError('Invalid params: tools/call needs params.');
      const { name, arguments: args } = toolCall;
      const pending = { name, args, principal, requestId };
      if (filtered.discover && (name === FIND_OPERATION || name === RUN_OPERATION))
        return callDiscoverTool(c, options, pending);
      if (filtered.batches && options.batches && isBatchTool(name))
        return callBatchTool(c, options, options.batches, pending);
      return callTool(c, options, filtered.tools, pending);
    },
  };
  const parsedBody =
    toolCall?.ok === false ? withParsableParams(message as Record<string, unknown>) : message;
  const request = c.req.raw;
  scopes.set(request, scope);
  if (await isLegacyRequest(request, parsedBody)) return serveLegacy(request, parsedBody, scope);
  return modern.fetch(request, { parsedBody });
}

/** What one HTTP request's server answers with: the connection's tools and its one tool call. */
interface RequestScope {
  tools: ReadonlyMap<string, ToolEntry>;
  /** The compact mode's two tools are served too (discover-tools.ts). */
  discover: boolean;
  /** The batches toolset's tools are served too (batch-tools.ts). */
  batches: boolean;
  serviceDomain: string;
  /** Answers the message's tools/call, whose params the adapter has read itself (tool-call-params.ts). */
  call: () => Promise<CallToolResult>;
}

/** The SDK's factory receives the request it serves; each request's scope is kept beside it. */
const scopes = new WeakMap<Request, RequestScope>();

function scopeOf(request: Request | undefined): RequestScope {
  const scope = request && scopes.get(request);
  if (!scope) throw new Error('An MCP server was asked for outside a request the adapter admitted.');
  return scope;
}

/**
 * The 2025 era, served per request like the SDK's own stateless fallback but with JSON responses
 * (`enableJsonResponse`), as the spec's endpoint rules require.
 */
async function serveLegacy(request: Request, parsedBody: unknown, scope: RequestScope): Promise<Response> {
  const server = createServer(scope);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}

function createServer({ tools, discover, batches, serviceDomain, call }: RequestScope): Server {
  const server = new Server(
    { name: SERVER_SLUG, title: SERVER_TITLE, version: SERVICE_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: instructions(serviceDomain),
      jsonSchemaValidator: sharedValidator,
      cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
    },
  );
  server.setRequestHandler('tools/list', () => ({
    tools: [
      ...(discover ? discoverTools : []),
      ...(batches ? batchTools : []),
      ...[...tools.values()].map((entry) => entry.tool),
    ],
  }));
  server.setRequestHandler('tools/call', () => call());
  return server;
}

interface PendingCall {
  name: string;
  args: Record<string, unknown>;
  principal: Principal;
  requestId: string;
}

async function callTool(
  c: Context<RestEnv>,
  options: McpEndpointOptions,
  tools: ReadonlyMap<string, ToolEntry>,
  { name, args, principal, requestId }: PendingCall,
): Promise<CallToolResult> {
  const entry = tools.get(name);
  // A protocol error, not a tool result: the MCP spec lists unknown tools among them (-32602).
  if (!entry)
    throw new InvalidParamsError(
      `Unknown tool ${quoteInput(name, 64)}: call tools/list for the tools this connection serves.`,
    );
  const outcome = await withDeadline(
    options.dispatcher.dispatch({ tool: name, arguments: args, principal, requestId }),
    options.deadlineMs,
    requestId,
  );
  c.set('lookup', {
    operation: entry.operation.definition.id,
    accountId: principal.account.accountId,
    keyId: principal.key?.keyId,
    creditCost: outcome.creditCost ?? 0,
  });
  return toToolResult(outcome, options.serviceDomain, {
    paging: entry.operation.definition.paging,
    maxChars: options.resultMaxChars,
  });
}

/**
 * find_operation answers from the catalog, free and unmetered like tools/list; run_operation is a
 * call of the tool it names, whatever the connection's filter, through callTool like a direct call.
 */
async function callDiscoverTool(
  c: Context<RestEnv>,
  options: McpEndpointOptions,
  pending: PendingCall,
): Promise<CallToolResult> {
  const outcome = resolveDiscoverCall(pending.name, pending.args, options.tools);
  if (outcome.kind === 'answer') return outcome.result;
  if (outcome.kind === 'refused')
    return toToolResult(refusedResult(outcome.error, pending.requestId), options.serviceDomain);
  return callTool(c, options, options.tools, { ...pending, name: outcome.tool, args: outcome.arguments });
}

/**
 * start_batch, get_batch, cancel_batch: free calls of the batch resource (batch-tools.ts), metered as
 * REST's batch calls are; every refusal is a tool error with the REST error body, never a 500.
 */
async function callBatchTool(
  c: Context<RestEnv>,
  options: McpEndpointOptions,
  backend: BatchToolsBackend,
  pending: PendingCall,
): Promise<CallToolResult> {
  const { principal, requestId } = pending;
  c.set('lookup', { operation: 'batches', accountId: principal.account.accountId, creditCost: 0 });
  let outcome: ToolOutcome;
  try {
    outcome = await runBatchTool(backend, options.tools, pending);
  } catch (thrown) {
    const error = toApiError(thrown);
    if (error.status >= 500) options.logger.error({ err: error.cause ?? error, requestId }, error.message);
    outcome = { response: errorResponse(error, requestId), creditCost: 0 };
  }
  return toToolResult(outcome, options.serviceDomain, {
    paging: 'start',
    maxChars: options.resultMaxChars,
  });
}

/**
 * The lookup deadline: an answer later than it is a 504. The call may still settle on its own, so
 * the client is told not to retry (retryable false) and that settlement is not known yet.
 */
async function withDeadline(
  dispatch: Promise<ToolOutcome>,
  deadlineMs: number,
  requestId: string,
): Promise<ToolOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ToolOutcome>((resolve) => {
    timer = setTimeout(() => {
      const error = new LookupTimeoutError(
        `The lookup did not finish within ${Math.round(deadlineMs / 1000)} s; credit settlement completes on its own.`,
      ).withRetryable(false);
      resolve({ response: errorResponse(error, requestId), creditCost: undefined });
    }, deadlineMs);
  });
  try {
    return await Promise.race([dispatch, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * With OAuth configured, a 401 names the protected resource metadata (RFC 9728 § 5.1) so clients can
 * discover the authorization server; `invalid_token` only when a credential was sent (RFC 6750 § 3.1).
 */
function authenticationFailure(
  error: ApiError,
  requestId: string,
  authorization: string | undefined,
  options: McpEndpointOptions,
): Response {
  const response = toHttpResponse(errorResponse(error, requestId));
  if (error.status === 401 && options.resourceMetadataUrl) {
    const challenge = `Bearer resource_metadata="${options.resourceMetadataUrl}"`;
    response.headers.set(
      'WWW-Authenticate',
      authorization === undefined ? challenge : `${challenge}, error="invalid_token"`,
    );
  }
  return response;
}

/** A JSON-RPC error answered before any message is read, so it has no id. */
function jsonRpcError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
  code: number = SERVER_ERROR,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return new Response(JSON.stringify({ jsonrpc: '2.0', error, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

function withNoStore(response: Response): Response {
  response.headers.set('Cache-Control', 'private, no-store');
  return response;
}
