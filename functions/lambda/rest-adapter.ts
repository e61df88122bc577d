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
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, StreamifyHandler } from 'aws-lambda';
import type { Hono } from 'hono';
import { handle, type LambdaEvent } from 'hono/aws-lambda';
import type { RestEnv } from '../../shared/http/api-binding.js';
import type { ApiLane, LaneAnswer, LaneRequest } from '../../shared/http/api-lane.js';
import { clientAddress } from '../../shared/http/client-address.js';
import type { HeaderReader } from '../../shared/http/protocol-checks.js';

/** What the runtime calls for each API Gateway event: the answer goes to `responseStream`. */
export type StreamingRestHandler = StreamifyHandler<APIGatewayProxyEvent, void>;

type RestApiEvent = LambdaEvent & { multiValueHeaders: Record<string, string[]> };

/** What goes to API Gateway: the metadata, then the body's bytes. */
interface ProxyAnswer {
  statusCode: number;
  multiValueHeaders?: APIGatewayProxyResult['multiValueHeaders'];
  headers?: APIGatewayProxyResult['headers'];
  body: Buffer;
}

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
 *
 * With a `lane` (an operation's function), the GETs of the API's paths are answered by it instead,
 * from the event as Hono's adapter reads it: no Request or Response is made, so the function's
 * first answer does not wait for Node to load its fetch implementation (shared/http/api-lane.ts).
 */
export function toRestHandler(app: Hono<RestEnv>, lane?: ApiLane): StreamingRestHandler {
  const handler = handle(app);
  const appAnswer = async (event: APIGatewayProxyEvent, context: Context): Promise<ProxyAnswer> => {
    const result = (await handler(
      withoutGetBody(event) as unknown as RestApiEvent,
      context,
    )) as APIGatewayProxyResult;
    return {
      statusCode: result.statusCode,
      ...(result.multiValueHeaders ? { multiValueHeaders: result.multiValueHeaders } : {}),
      ...(result.headers ? { headers: result.headers } : {}),
      body: Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'),
    };
  };
  return awslambda.streamifyResponse(async (received, responseStream, context) => {
    const event = wellFormed(received);
    const request = lane && laneRequest(lane, event);
    const { body, ...metadata } = request
      ? laneAnswer(await (lane as ApiLane).answer(request))
      : await appAnswer(event, context);
    const stream = awslambda.HttpResponseStream.from(responseStream, metadata);
    // Always one write, even of an empty body: the runtime puts the metadata before the first write.
    stream.write(body);
    await new Promise<void>((resolve) => stream.end(resolve));
  });
}

/** The maps of an event that carry the client's text. */
const CLIENT_TEXT = [
  'headers',
  'multiValueHeaders',
  'queryStringParameters',
  'multiValueQueryStringParameters',
] as const;

type TextMap = Record<string, string | string[] | undefined> | null;

/**
 * The event with every header and query name and value well-formed: a lone surrogate, which no
 * UTF-8 request can carry (only a hand-made event), becomes U+FFFD, as a UTF-8 decoder makes of
 * such bytes. Hono's adaptor cannot write one into a URL (encodeURIComponent throws) and would
 * answer the event with a bare 500; this way the app and the lane refuse the value as any other.
 */
function wellFormed(event: APIGatewayProxyEvent): APIGatewayProxyEvent {
  const maps = CLIENT_TEXT.map((name): [string, TextMap] => [name, event[name]]);
  const texts = (map: TextMap) =>
    Object.entries(map ?? {}).flatMap(([name, value]) => [
      name,
      ...(value === undefined ? [] : [value].flat()),
    ]);
  if (maps.every(([, map]) => texts(map).every((text) => text.isWellFormed()))) return event;
  const fixed = (map: TextMap) =>
    map &&
    Object.fromEntries(
      Object.entries(map).map(([name, value]) => [
        name.toWellFormed(),
        Array.isArray(value) ? value.map((text) => text.toWellFormed()) : value?.toWellFormed(),
      ]),
    );
  return { ...event, ...Object.fromEntries(maps.map(([name, map]) => [name, fixed(map)])) };
}

/**
 * The lane's request, when `event` is one the lane answers exactly as the app would: a GET without
 * a body, of a path the lane can route, whose headers the fetch API would take as they are
 * (printable ASCII without surrounding blanks; Hono's adapter percent-encodes anything else, and
 * the Headers class trims or refuses it).
 */
function laneRequest(lane: ApiLane, event: APIGatewayProxyEvent): LaneRequest | undefined {
  if (event.httpMethod !== 'GET' || event.body) return undefined;
  const endpoint = lane.endpointOf(event.requestContext?.domainName, event.path);
  const header = endpoint && plainHeaders(event);
  if (!endpoint || !header) return undefined;
  const query = queryOf(event);
  return {
    endpoint,
    path: event.path,
    target: query ? `${event.path}?${query}` : event.path,
    header,
    address: clientAddress({ requestContext: event.requestContext }),
  };
}

/** A field name as HTTP defines it (a token). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A field value of printable ASCII, neither starting nor ending with a blank. */
const PLAIN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The event's headers as Hono's adapter puts them into Headers: every value of multiValueHeaders,
 * then each field of `headers` that those lack. Undefined when a name or value is not plain.
 */
function plainHeaders(event: APIGatewayProxyEvent): HeaderReader | undefined {
  const fields = new Map<string, string[]>();
  const add = (name: string, value: string) => {
    if (!FIELD_NAME.test(name) || !PLAIN_VALUE.test(value)) return false;
    const lower = name.toLowerCase();
    const values = fields.get(lower);
    if (values) values.push(value);
    else fields.set(lower, [value]);
    return true;
  };
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {}))
    for (const value of values ?? []) if (!add(name, value)) return undefined;
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value && !fields.has(name.toLowerCase()) && !add(name, value)) return undefined;
  return (name) => fields.get(name)?.join(', ');
}

/**
 * The query string as Hono's v1 adapter writes it into the Request's URL: every value of
 * multiValueQueryStringParameters, names and values percent-encoded (the event is well-formed, so
 * encodeURIComponent does not throw).
 */
function queryOf(event: APIGatewayProxyEvent): string {
  const pair = (name: string, value: string) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  if (event.multiValueQueryStringParameters)
    return Object.entries(event.multiValueQueryStringParameters)
      .filter(([, values]) => values)
      .map(([name, values]) => (values ?? []).map((value) => pair(name, value)).join('&'))
      .join('&');
  return Object.entries(event.queryStringParameters ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => pair(name, value || ''))
    .join('&');
}

/** The lane's answer as Hono's adapter makes a proxy result: header names lower-cased, in order. */
function laneAnswer({ status, headers, body }: LaneAnswer): ProxyAnswer {
  const multiValueHeaders = Object.fromEntries(
    Object.entries(headers)
      .map(([name, value]): [string, string[]] => [name.toLowerCase(), [value]])
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return { statusCode: status, multiValueHeaders, body: Buffer.from(body) };
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
