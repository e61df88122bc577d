/**
 * The event API Gateway (REST API, Regional endpoint, stage `prod`) sends a Lambda proxy
 * integration for one client request (payload v1), and the context the runtime passes along.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export const API_HOST = 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com';

export interface ClientRequest {
  method: string;
  path: string;
  /** In the order sent; a name may repeat. */
  query?: [string, string][];
  headers?: Record<string, string>;
  body?: string;
}

export function restApiEvent(request: ClientRequest): APIGatewayProxyEvent {
  const query = request.query ?? [];
  const headers: Record<string, string> = {
    Host: API_HOST,
    'X-Amzn-Trace-Id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-0123456789abcdef01234567`,
    'X-Forwarded-For': '203.0.113.7',
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    ...request.headers,
  };
  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of query) multiValueQuery[name] = [...(multiValueQuery[name] ?? []), value];
  const hasQuery = query.length > 0;
  return {
    // A proxy resource: infra routes each path prefix with {proxy+} where it has path parameters.
    resource: request.path,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    // Like API Gateway: the single-value map keeps the last value of a repeated name.
    queryStringParameters: hasQuery ? Object.fromEntries(query) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      authorizer: null,
      domainName: API_HOST,
      domainPrefix: 'a1b2c3d4e5',
      extendedRequestId: 'Xk3bLFqUoAMEbXg=',
      httpMethod: request.method,
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
        sourceIp: '203.0.113.7',
        user: null,
        userAgent: request.headers?.['User-Agent'] ?? null,
        userArn: null,
      },
      path: `/prod${request.path}`,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTime: '23/Nov/2025:10:00:00 +0000',
      requestTimeEpoch: Date.now(),
      resourceId: 'x1y2z3',
      resourcePath: request.path,
      stage: 'prod',
    },
    body: request.body ?? null,
    isBase64Encoded: false,
  };
}

export function lambdaContext(name = 'lookup-function'): Context {
  const unsupported = () => {
    throw new Error('Deprecated context callbacks are not used by async handlers.');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${name}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2025/11/23/[$LATEST]0123456789abcdef0123456789abcdef',
    getRemainingTimeInMillis: () => 5_000,
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
