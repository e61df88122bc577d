/**
 * The one module that speaks API Gateway REST API proxy events (payload v1): a Hono app in, a
 * Lambda handler out. It is the only importer of Hono's Lambda adapter, so the move from the
 * deprecated `hono/aws-lambda` to `@hono/aws-lambda` is one line here.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { handle, type LambdaEvent } from 'hono/aws-lambda';
import type { RestEnv } from '../../shared/http/create-app.js';

/** The contract API Gateway holds us to, typed from @types/aws-lambda rather than Hono's subset. */
export type RestHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

type RestApiEvent = LambdaEvent & { multiValueHeaders: Record<string, string[]> };

/**
 * A synchronous Lambda answer is at most 6 MB (6,291,456 bytes) as serialized JSON; the margin covers
 * the runtime's own framing. A legal content answer (2,097,152 characters of multi-byte HTML) is over it.
 */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6_000_000;

const gzipBody = promisify(gzip);

/**
 * Hono's adapter declares its own narrower event type (`version` required, no null query maps), but
 * its v1 processor reads real REST API events as they are, nulls included. REST API events always
 * carry multiValueHeaders, so Hono answers with multiValueHeaders too. A compressed body (the app
 * compresses JSON and HTML when the client accepts it) comes back base64 with `isBase64Encoded`,
 * which API Gateway passes through as binary when the API lists the media types (`binaryMediaTypes`).
 */
export function toRestHandler(app: OpenAPIHono<RestEnv>): RestHandler {
  const handler = handle(app);
  return async (event, context) => {
    const result = await handler(withoutGetBody(event) as unknown as RestApiEvent, context);
    return fitResponseLimit(result as APIGatewayProxyResult, event);
  };
}

/**
 * A GET cannot carry a body in a Fetch Request, so Hono's adapter would fail before our protocol
 * checks. Keep the fact that a body was sent (its length) and drop the body: the app answers 415.
 */
function withoutGetBody(event: APIGatewayProxyEvent): APIGatewayProxyEvent {
  if (!event.body || (event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD')) return event;
  const length = String(Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8'));
  return {
    ...event,
    body: null,
    headers: { ...event.headers, 'content-length': length },
    multiValueHeaders: { ...event.multiValueHeaders, 'content-length': [length] },
  };
}

/**
 * An uncompressed answer over Lambda's limit would be lost (API Gateway answers 502). A request
 * without Accept-Encoding accepts any coding (RFC 9110 section 12.5.3), so such an answer is sent
 * gzipped; one whose client accepted gzip or br is compressed by the app already.
 */
async function fitResponseLimit(
  result: APIGatewayProxyResult,
  event: APIGatewayProxyEvent,
): Promise<APIGatewayProxyResult> {
  if (result.isBase64Encoded || Buffer.byteLength(JSON.stringify(result)) <= LAMBDA_RESPONSE_LIMIT_BYTES) {
    return result;
  }
  if (headerValues(event, 'accept-encoding').length > 0) return result;
  const body = await gzipBody(Buffer.from(result.body, 'utf8'));
  return {
    ...result,
    body: body.toString('base64'),
    isBase64Encoded: true,
    multiValueHeaders: {
      ...result.multiValueHeaders,
      'content-encoding': ['gzip'],
      vary: ['Accept-Encoding'],
    },
  };
}

/** Every value of a request header, whichever map and spelling API Gateway used. */
function headerValues(event: APIGatewayProxyEvent, name: string): string[] {
  const values: string[] = [];
  for (const [key, list] of Object.entries(event.multiValueHeaders ?? {})) {
    if (key.toLowerCase() === name) values.push(...(list ?? []));
  }
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name && value !== undefined && values.length === 0) values.push(value);
  }
  return values;
}
