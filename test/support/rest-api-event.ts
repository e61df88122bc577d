/**
 * The event API Gateway (REST API, Regional endpoint, stage `prod`) sends a Lambda proxy
 * integration for one client request (payload v1, built by start:synth's proxy-event.ts), and what a
 * client gets back when the function streams its answer.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { readStreamedAnswer } from '../../local-aws/api-gateway.js';
import { proxyEvent } from '../../local-aws/proxy-event.js';

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
  return proxyEvent(
    {
      httpMethod: request.method,
      path: request.path,
      query: request.query ?? [],
      headers: Object.entries({
        Host: API_HOST,
        'X-Forwarded-Port': '443',
        'X-Forwarded-Proto': 'https',
        ...request.headers,
      }),
      body: request.body ?? null,
      sourceIp: '203.0.113.7',
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
    },
    // A proxy resource: infra routes each path prefix with {proxy+} where it has path parameters.
    {
      resourcePath: request.path,
      pathParameters: null,
      stage: 'prod',
      apiId: 'a1b2c3d4e5',
      accountId: '123456789012',
    },
  );
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
