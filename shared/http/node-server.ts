/**
 * The node:http server of `npm start`: Hono's Node adaptor behind the checks only the wire can make
 * (request-framing.ts), the API lane for the API's GETs (api-lane.ts), the answers to
 * requests the parser refuses (client-error.ts), and limits on connections and idle sockets.
 * Whatever is refused before the app sees it still gets the service's error envelope with an
 * X-Request-Id, and a log line.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Config } from '../config.js';
import { type ApiError, InvalidRequestError } from '../errors.js';
import type { Logger } from '../logger.js';
import { errorResponse, newRequestId } from '../pipeline/public-response.js';
import type { ApiLane } from './api-lane.js';
import { answerClientErrors } from './client-error.js';
import { toHttpResponse } from './render.js';
import { checkRequestHead } from './request-framing.js';

export type NodeServerSettings = Pick<
  Config,
  | 'HTTP_MAX_CONNECTIONS'
  | 'HTTP_KEEP_ALIVE_SECONDS'
  | 'HTTP_HEADERS_TIMEOUT_SECONDS'
  | 'HTTP_REQUEST_TIMEOUT_SECONDS'
>;

/** How often Node looks for connections over their header or request time (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export function createNodeServer(
  app: { fetch: (request: Request, env: unknown) => Response | Promise<Response> },
  logger: Logger,
  settings: NodeServerSettings,
  /** Without one, the app answers every request (as in tests of the app's own way). */
  lane?: ApiLane,
): Server {
  const listener = getRequestListener(app.fetch, {
    // The adaptor refuses a request target it cannot turn into a URL; it would answer a bare 400.
    errorHandler: (error) =>
      refusal(
        new InvalidRequestError(
          [],
          'The request target is not a valid URL path; send a path starting with / and percent-encode other characters.',
        ),
        logger,
        error,
      ),
  });
  const server = createServer(
    {
      // checkRequestHead answers a missing Host in the error envelope; Node would send a bare 400.
      requireHostHeader: false,
      keepAliveTimeout: settings.HTTP_KEEP_ALIVE_SECONDS * 1_000,
      headersTimeout: settings.HTTP_HEADERS_TIMEOUT_SECONDS * 1_000,
      requestTimeout: settings.HTTP_REQUEST_TIMEOUT_SECONDS * 1_000,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    (incoming, outgoing) => {
      const refused = checkRequestHead(incoming.rawHeaders);
      if (refused) void writeResponse(outgoing, refusal(refused, logger));
      else if (!lane?.serve(incoming, outgoing)) void listener(incoming, outgoing);
    },
  );
  server.maxConnections = settings.HTTP_MAX_CONNECTIONS;
  answerClientErrors(server, logger);
  return server;
}

/** The answer to a request refused before the app, on a connection then closed (its head is not trusted). */
function refusal(error: ApiError, logger: Logger, cause?: unknown): Response {
  const requestId = newRequestId();
  const adaptorReason = cause instanceof Error ? cause.message : undefined;
  logger.info({ requestId, status: error.status, reason: adaptorReason ?? error.message }, 'refused request');
  const response = toHttpResponse(errorResponse(error, requestId));
  response.headers.set('Connection', 'close');
  return response;
}

async function writeResponse(outgoing: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  outgoing.writeHead(response.status, {
    ...Object.fromEntries(response.headers),
    'Content-Length': String(body.length),
  });
  outgoing.end(body);
}
