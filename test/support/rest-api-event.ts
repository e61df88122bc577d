/**
 * The event API Gateway (REST API, Regional endpoint, stage `prod`) sends a Lambda proxy
 * integration for one client request (payload v1), and what a client gets back when the function
 * streams its answer.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { readStreamedAnswer } from '../../functions/synth/api-gateway.js';

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

/** A client's view of one answer API Gateway made from a Lambda proxy integration. */
export interface RestApiAnswer {
  status: number;
  /** Every response header, names lower-cased, each with its values. */
  headers: Record<string, string[]>;
  body: Buffer;
  text: string;
}

const HTTP_INTEGRATION_RESPONSE = 'application/vnd.awslambda.http-integration-response';

/**
 * What API Gateway makes of a streamed Lambda proxy answer (responseTransferMode STREAM), as
 * start:synth's gateway reads it; an answer without the metadata is a fault, as it would be API
 * Gateway's 502.
 */
export function streamedRestAnswer(streamed: { contentType: string; body: Buffer }): RestApiAnswer {
  if (streamed.contentType !== HTTP_INTEGRATION_RESPONSE) {
    throw new Error(`The stream is ${streamed.contentType}, not an HTTP integration response.`);
  }
  const answer = readStreamedAnswer(streamed.body);
  if (!answer) throw new Error('No metadata and delimiter in the first 16 KB.');
  const headers = Object.fromEntries(
    Object.entries(answer.headers).map(([name, value]) => [name, Array.isArray(value) ? value : [value]]),
  );
  return { status: answer.status, headers, body: answer.body, text: answer.body.toString('utf8') };
}
