/**
 * The one module that speaks API Gateway REST API proxy events (payload v1): a Hono app in, a
 * response-streaming Lambda handler out. It is the only importer of Hono's Lambda adapter, so the move
 * from the deprecated `hono/aws-lambda` to `@hono/aws-lambda` is one line here.
 *
 * Why streaming: a buffered Lambda answer is at most 6 MB, and a legal content answer (2,097,152
 * characters of multi-byte HTML) is over it even compressed, for text gzip cannot shrink. API Gateway's
 * STREAM transfer mode (InvokeWithResponseStream) has no such limit, passes bytes as written (no
 * base64, no binary media types) and lifts the 29 s integration timeout without a quota increase.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, StreamifyHandler } from 'aws-lambda';
import type { Hono } from 'hono';
import { handle, type LambdaEvent } from 'hono/aws-lambda';
import type { RestEnv } from '../../shared/http/api-binding.js';

/** What the runtime calls for each API Gateway event: the answer goes to `responseStream`. */
export type StreamingRestHandler = StreamifyHandler<APIGatewayProxyEvent, void>;

type RestApiEvent = LambdaEvent & { multiValueHeaders: Record<string, string[]> };

/**
 * Hono's buffered adapter builds the Fetch Request from the event (and answers a malformed one 400)
 * and the proxy result from the app's Response; this writes that result as API Gateway's streamed
 * proxy format: the metadata (status and headers), then the body's bytes. Hono's own `streamHandle`
 * is not used: it loses repeated headers and, when the event cannot become a Request, writes a bare
 * text with no metadata, which API Gateway can only answer with its own error.
 *
 * Hono's adapter declares its own narrower event type (`version` required, no null query maps), but
 * its v1 processor reads real REST API events as they are, nulls included. REST API events always
 * carry multiValueHeaders, so Hono answers with multiValueHeaders too.
 */
export function toRestHandler(app: Hono<RestEnv>): StreamingRestHandler {
  const handler = handle(app);
  return awslambda.streamifyResponse(async (event, responseStream, context) => {
    const result = (await handler(
      withoutGetBody(event) as unknown as RestApiEvent,
      context,
    )) as APIGatewayProxyResult;
    const stream = awslambda.HttpResponseStream.from(responseStream, {
      statusCode: result.statusCode,
      ...(result.multiValueHeaders ? { multiValueHeaders: result.multiValueHeaders } : {}),
      ...(result.headers ? { headers: result.headers } : {}),
    });
    // Always one write, even of an empty body: the runtime puts the metadata before the first write.
    stream.write(Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'));
    await new Promise<void>((resolve) => stream.end(resolve));
  });
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
