/**
 * Answers for requests Node's HTTP parser refuses before any route sees them (a method token it does
 * not know, a request line or headers over its size limit, bytes that are not HTTP). Node would send
 * a bare status line; these answers are the service's own error envelope instead, rendered by the one
 * error renderer, on a connection that is then closed because the parser cannot go on reading it.
 * Requests parsed before the bad bytes on the same connection are answered first.
 */
import { type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, InvalidRequestError, MethodNotAllowedError } from '../errors.js';
import type { Logger } from '../logger.js';
import { errorResponse, newRequestId, type PublicResponse } from '../pipeline/public-response.js';
import { toHttpResponse } from './render.js';

/** RFC 9110 `token`: what a method name is made of. A first word of other bytes is not a method. */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?= )/;
/** Long enough for any real method name, short enough never to echo a flood back. */
const MAX_QUOTED_METHOD = 32;

/**
 * The spec's error table has no row for these two statuses; the closest honest shape keeps the
 * status the condition calls for (RFC 9110 / RFC 6585) with the code of a malformed request.
 */
const REQUEST_HEADER_FIELDS_TOO_LARGE = 431;
const REQUEST_TIMEOUT = 408;

/** How long an answered connection may stay open for the client to read the answer and close. */
const LINGER_MS = 5_000;

type ParserError = Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number };

/** The public answer to a parser error: status, headers and the error body. */
export function clientErrorResponse(error: ParserError, requestId: string): PublicResponse {
  switch (error.code) {
    case 'HPE_INVALID_METHOD': {
      const method = METHOD_TOKEN.exec(failingRequestLine(error))?.[0];
      if (method) return errorResponse(new MethodNotAllowedError(quoted(method)), requestId);
      return errorResponse(notHttp(), requestId);
    }
    case 'HPE_HEADER_OVERFLOW':
      return {
        ...errorResponse(
          new InvalidRequestError(
            [],
            'The request line and headers are too large; send at most 16 KiB of them together.',
          ),
          requestId,
        ),
        status: REQUEST_HEADER_FIELDS_TOO_LARGE,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        ...errorResponse(
          new ApiError('invalid_request', {
            message: 'The request did not arrive in time; send it again, whole.',
            retryable: true,
          }),
          requestId,
        ),
        status: REQUEST_TIMEOUT,
      };
    default:
      return errorResponse(notHttp(), requestId);
  }
}

/**
 * The bytes from the start of the line the parser failed on: the packet may begin with requests
 * pipelined before it, and the parser stops inside the method token, so its line starts there.
 */
function failingRequestLine({ rawPacket, bytesParsed = 0 }: ParserError): string {
  if (!rawPacket) return '';
  const lineStart = rawPacket.lastIndexOf(0x0a, Math.max(0, bytesParsed - 1)) + 1;
  return rawPacket.subarray(lineStart).toString('latin1');
}

function notHttp(): InvalidRequestError {
  return new InvalidRequestError([], 'The request is not well-formed HTTP/1.1; send a GET request.');
}

function quoted(method: string): string {
  return method.length > MAX_QUOTED_METHOD ? `${method.slice(0, MAX_QUOTED_METHOD)}…` : method;
}

/**
 * An HTTP/1.1 message for a socket no response object owns, from the response the REST app would
 * send for the same error.
 */
async function rawHttpMessage(response: PublicResponse): Promise<Buffer> {
  const http = toHttpResponse(response);
  const body = Buffer.from(await http.arrayBuffer());
  const head = [`HTTP/1.1 ${http.status} ${STATUS_CODES[http.status] ?? ''}`];
  http.headers.forEach((value, name) => {
    head.push(`${name}: ${value}`);
  });
  head.push('connection: close', `content-length: ${body.length}`, '', '');
  return Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]);
}

/** Wires the answers into a Node HTTP server: `npm start` and its tests call this. */
export function answerClientErrors(server: Server, logger?: Logger): void {
  // The parser reports again on every later chunk of a connection it gave up on.
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    if (answered.has(socket)) return;
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const requestId = newRequestId();
    const response = clientErrorResponse(error, requestId);
    logger?.info({ requestId, status: response.status, reason: error.code }, 'unparsable request');
    void rawHttpMessage(response).then((message) =>
      // HTTP/1.1 answers in order: the requests parsed before the bad bytes (a billed lookup among
      // them) are answered first, then this, then the connection closes.
      afterAnswersInFlight(socket, () => {
        if (!socket.writable) return;
        // Closing at once could reset the connection before the client has read the answer; a
        // client that keeps sending instead of closing is cut off after a grace period.
        socket.end(message, () => setTimeout(() => socket.destroy(), LINGER_MS).unref());
      }),
    );
  });
}

/** The response Node is writing to a socket; the ones queued behind it take its place in turn. */
type SocketWithResponse = Duplex & { _httpMessage?: ServerResponse | null };

/**
 * Calls `then` once no response is being written to the socket: Node assigns the next queued
 * response of a pipelined connection when the current one finishes, before this sees 'finish'.
 */
function afterAnswersInFlight(socket: SocketWithResponse, then: () => void): void {
  const current = socket._httpMessage;
  if (!current || socket.destroyed) {
    then();
    return;
  }
  let settled = false;
  const next = () => {
    if (settled) return;
    settled = true;
    afterAnswersInFlight(socket, then);
  };
  current.once('finish', next);
  // A response that ends without finishing went with its socket.
  current.once('close', next);
}
