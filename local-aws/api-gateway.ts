/**
 * The REST API of the templates, served as API Gateway serves it (as through a custom domain: no
 * stage in the path). The route table is the templates' resources and methods: a static path part
 * before a `{param}`, a `{param}` before a greedy `{proxy+}`, a method before ANY; no route, API
 * Gateway's own 403 "Missing Authentication Token". Each request becomes a REST API proxy event
 * (payload v1: multi-value headers and query, path parameters, a requestContext with a request id and
 * the stage) for the integration's function, invoked only if an AWS::Lambda::Permission lets API
 * Gateway do so. A streamed answer is read as API Gateway reads it (JSON metadata, eight NUL bytes,
 * the body); a function error or crash is 502 and the integration timeout 504, each with API
 * Gateway's own body, never the end of the server.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buffer } from 'node:stream/consumers';
import type { Logger } from '../shared/logger.js';
import type { ApiMethod, DeployedFunction, Deployment } from './deployment-model.js';
import type { FunctionHost } from './function-host.js';
import type { Invocation } from './lambda-instance.js';
import { proxyEvent } from './proxy-event.js';

const METADATA_DELIMITER = Buffer.alloc(8);
/** API Gateway reads a streamed answer's metadata within its first 16 KB. */
const METADATA_WINDOW_BYTES = 16 * 1024;

interface RouteNode {
  children: Map<string, RouteNode>;
  parameter?: { name: string; node: RouteNode };
  greedy?: { name: string; node: RouteNode };
  methods: Map<string, ApiMethod>;
}

const newNode = (): RouteNode => ({ children: new Map(), methods: new Map() });

interface Matched {
  method: ApiMethod;
  pathParameters: Record<string, string> | null;
}

/** The resource tree of the templates' methods. */
export class RouteTable {
  private readonly root = newNode();

  constructor(methods: readonly ApiMethod[]) {
    for (const method of methods) {
      let node = this.root;
      for (const part of method.resourcePath.split('/').filter(Boolean)) {
        const greedy = /^\{(.+)\+\}$/.exec(part);
        const parameter = /^\{(.+)\}$/.exec(part);
        if (greedy) {
          node.greedy ??= { name: greedy[1] as string, node: newNode() };
          node = node.greedy.node;
        } else if (parameter) {
          node.parameter ??= { name: parameter[1] as string, node: newNode() };
          node = node.parameter.node;
        } else {
          if (!node.children.has(part)) node.children.set(part, newNode());
          node = node.children.get(part) as RouteNode;
        }
      }
      node.methods.set(method.httpMethod, method);
    }
  }

  match(httpMethod: string, path: string): Matched | undefined {
    const parts = path.split('/').filter(Boolean).map(decodeSegment);
    return this.walk(this.root, parts, httpMethod, {});
  }

  private walk(
    node: RouteNode,
    parts: string[],
    httpMethod: string,
    parameters: Record<string, string>,
  ): Matched | undefined {
    if (parts.length === 0) {
      const method = node.methods.get(httpMethod) ?? node.methods.get('ANY');
      if (method) return { method, pathParameters: Object.keys(parameters).length > 0 ? parameters : null };
    } else {
      const [part, ...rest] = parts as [string, ...string[]];
      const exact = node.children.get(part);
      const found =
        (exact && this.walk(exact, rest, httpMethod, parameters)) ||
        (node.parameter &&
          this.walk(node.parameter.node, rest, httpMethod, { ...parameters, [node.parameter.name]: part }));
      if (found) return found;
    }
    if (node.greedy && parts.length > 0) {
      const method = node.greedy.node.methods.get(httpMethod) ?? node.greedy.node.methods.get('ANY');
      if (method) return { method, pathParameters: { ...parameters, [node.greedy.name]: parts.join('/') } };
    }
    return undefined;
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export interface ApiGatewayOptions {
  deployment: Deployment;
  host: FunctionHost;
  logger: Logger;
  /** A test-only cap on every integration timeout, in milliseconds. */
  integrationTimeoutCapMs?: number;
}

/** The request handler of the local API Gateway. */
export function apiGateway(options: ApiGatewayOptions) {
  const { deployment, host, logger } = options;
  const routes = new RouteTable(deployment.api.methods);

  /** Whether an AWS::Lambda::Permission lets API Gateway invoke `fn` for this method. */
  const mayInvoke = (fn: DeployedFunction, method: ApiMethod, httpMethod: string) => {
    const sourceArn = `${deployment.api.executeApiArn}/${deployment.api.stage}/${httpMethod}${method.resourcePath}`;
    return deployment.permissions.some(
      (permission) =>
        permission.functionArn === fn.arn &&
        permission.principal === 'apigateway.amazonaws.com' &&
        (permission.action === 'lambda:InvokeFunction' || permission.action === 'lambda:*') &&
        (permission.sourceArn === undefined || arnPattern(permission.sourceArn).test(sourceArn)),
    );
  };

  return async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const httpMethod = req.method ?? 'GET';
    const matched = routes.match(httpMethod, url.pathname);
    if (!matched) return gatewayError(res, requestId, 403, 'Missing Authentication Token');
    const { method } = matched;
    const fn = host.find(method.integration.functionArn);
    const { responseTransferMode, invocation } = method.integration;
    // A streamed integration must call InvokeWithResponseStream, a buffered one Invoke.
    if ((responseTransferMode === 'STREAM') !== (invocation === 'streamed')) {
      logger.error(
        { requestId, resource: method.resourcePath, responseTransferMode, invocation },
        'Execution failed due to configuration error: the integration URI does not match its transfer mode',
      );
      return gatewayError(res, requestId, 500, 'Internal server error');
    }
    if (!fn || !mayInvoke(fn, method, httpMethod)) {
      logger.error(
        { requestId, resource: method.resourcePath, function: method.integration.functionArn },
        'Execution failed due to configuration error: Invalid permissions on Lambda function',
      );
      return gatewayError(res, requestId, 500, 'Internal server error');
    }
    const body = await buffer(req);
    const requestHeaders: [string, string][] = [];
    for (let index = 0; index < req.rawHeaders.length; index += 2) {
      requestHeaders.push([req.rawHeaders[index] as string, req.rawHeaders[index + 1] as string]);
    }
    const event = proxyEvent(
      {
        httpMethod,
        path: url.pathname,
        query: [...url.searchParams],
        headers: [...requestHeaders, ['X-Forwarded-Proto', 'http']],
        body: body.length > 0 ? body.toString('utf8') : null,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        protocol: `HTTP/${req.httpVersion}`,
        requestId,
      },
      {
        resourcePath: method.resourcePath,
        pathParameters: matched.pathParameters,
        stage: deployment.api.stage,
        apiId: deployment.api.id,
        accountId: deployment.accountId,
      },
    );
    const timeoutMs = Math.min(
      method.integration.timeoutMs,
      options.integrationTimeoutCapMs ?? Number.POSITIVE_INFINITY,
    );
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      host.invoke(fn, event),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      logger.warn({ requestId, function: fn.name, timeoutMs }, 'Execution failed due to a timeout error');
      return gatewayError(res, requestId, 504, 'Endpoint request timed out');
    }
    const answer = integrationAnswer(outcome, method);
    if (!answer) {
      logger.error(
        { requestId, function: fn.name, outcome: outcome.kind, detail: detailOf(outcome) },
        'Lambda execution failed',
      );
      return gatewayError(res, requestId, 502, 'Internal server error');
    }
    const headers: Record<string, string | string[]> = { ...answer.headers, 'x-amzn-requestid': requestId };
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  };
}

/** `arn:...:api/*\/*\/*` as a pattern of source ARNs. */
function arnPattern(sourceArn: string): RegExp {
  return new RegExp(`^${sourceArn.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

function detailOf(outcome: Invocation): string {
  return outcome.kind === 'error' || outcome.kind === 'crash'
    ? outcome.errorMessage.slice(0, 2000)
    : outcome.kind;
}

/** The client's answer from the function's, as the integration's transfer mode reads it. */
function integrationAnswer(outcome: Invocation, method: ApiMethod): StreamedAnswer | undefined {
  if (method.integration.responseTransferMode === 'STREAM') {
    return outcome.kind === 'streamed' ? readStreamedAnswer(outcome.body) : undefined;
  }
  if (outcome.kind !== 'result' || typeof outcome.result !== 'object' || outcome.result === null)
    return undefined;
  const result = outcome.result as {
    statusCode?: number;
    headers?: Record<string, string>;
    multiValueHeaders?: Record<string, string[]>;
    body?: string;
    isBase64Encoded?: boolean;
  };
  return {
    status: result.statusCode ?? 200,
    headers: mergedHeaders(result.headers, result.multiValueHeaders),
    body: Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'),
  };
}

/** An answer as a client gets it; header names lower-cased. */
export interface StreamedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * What API Gateway makes of a streamed Lambda proxy answer: the JSON metadata (statusCode, headers,
 * multiValueHeaders, cookies) up to eight NUL bytes within the first 16 KB, then the body as written.
 * Undefined when the metadata is missing (API Gateway's 502).
 */
export function readStreamedAnswer(streamed: Buffer): StreamedAnswer | undefined {
  const end = streamed.indexOf(METADATA_DELIMITER);
  if (end < 0 || end > METADATA_WINDOW_BYTES) return undefined;
  const metadata = JSON.parse(streamed.subarray(0, end).toString('utf8')) as {
    statusCode?: number;
    headers?: Record<string, string>;
    multiValueHeaders?: Record<string, string[]>;
    cookies?: string[];
  };
  return {
    status: metadata.statusCode ?? 200,
    headers: mergedHeaders(metadata.headers, metadata.multiValueHeaders, metadata.cookies),
    body: streamed.subarray(end + METADATA_DELIMITER.length),
  };
}

function mergedHeaders(
  single: Record<string, string> = {},
  multi: Record<string, string[]> = {},
  cookies: string[] = [],
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(single)) headers[name.toLowerCase()] = value;
  for (const [name, values] of Object.entries(multi)) headers[name.toLowerCase()] = values;
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  return headers;
}

function gatewayError(res: ServerResponse, requestId: string, status: number, message: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-requestid': requestId,
    'x-amzn-errortype':
      status === 403 ? 'MissingAuthenticationTokenException' : 'InternalServerErrorException',
  });
  res.end(JSON.stringify({ message }));
}
