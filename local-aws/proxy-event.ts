/**
 * The event API Gateway's REST API sends a Lambda proxy integration (payload v1) for one client
 * request: single- and multi-value maps of headers and query (the single-value map keeps a repeated
 * name's last value), the path parameters of the matched resource, and a requestContext with the
 * request id, the stage and the caller's address. API Gateway adds the forwarding and trace headers.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

export interface ClientRequestParts {
  httpMethod: string;
  /** The path as sent (no stage: a custom domain's view). */
  path: string;
  /** In the order sent; a name may repeat. */
  query: readonly (readonly [string, string])[];
  /** In the order sent; a name may repeat. */
  headers: readonly (readonly [string, string])[];
  body: string | null;
  sourceIp: string;
  protocol: string;
  requestId: string;
}

export interface ProxyTarget {
  resourcePath: string;
  pathParameters: Record<string, string> | null;
  stage: string;
  apiId: string;
  accountId: string;
}

const lastValues = (map: Record<string, string[]>) =>
  Object.fromEntries(
    Object.entries(map).map(([name, values]) => [name, values[values.length - 1] as string]),
  );

/** Names come from the client (`__proto__` included): collected in a Map, then own properties. */
function multiValueMap(pairs: readonly (readonly [string, string])[]): Record<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [name, value] of pairs) map.set(name, [...(map.get(name) ?? []), value]);
  return Object.fromEntries(map);
}

export function proxyEvent(request: ClientRequestParts, target: ProxyTarget): APIGatewayProxyEvent {
  const now = new Date();
  const multiValueHeaders = multiValueMap([
    ...request.headers,
    ['X-Forwarded-For', request.sourceIp],
    [
      'X-Amzn-Trace-Id',
      `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${request.requestId.replace(/-/g, '').slice(0, 24)}`,
    ],
  ]);
  const multiValueQuery = multiValueMap(request.query);
  const hasQuery = request.query.length > 0;
  const host = multiValueHeaders.Host?.[0] ?? multiValueHeaders.host?.[0] ?? 'localhost';
  return {
    resource: target.resourcePath,
    path: request.path,
    httpMethod: request.httpMethod,
    headers: lastValues(multiValueHeaders),
    multiValueHeaders,
    queryStringParameters: hasQuery ? lastValues(multiValueQuery) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: target.pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: target.accountId,
      apiId: target.apiId,
      authorizer: null,
      domainName: host,
      domainPrefix: host.split('.')[0] as string,
      extendedRequestId: request.requestId,
      httpMethod: request.httpMethod,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent:
          lastValues(multiValueHeaders)['User-Agent'] ?? lastValues(multiValueHeaders)['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${target.stage}${request.path}`,
      protocol: request.protocol,
      requestId: request.requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: target.resourcePath,
      resourcePath: target.resourcePath,
      stage: target.stage,
    },
    body: request.body,
    isBase64Encoded: false,
  };
}
