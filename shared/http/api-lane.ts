/**
 * The API's own way in, beside the app: a GET of a v1 or /api/v2 path is answered without Hono's
 * router over every route, its chain of middleware and a server adaptor's Request and Response.
 * Two servers take it:
 * - the embedded server (`npm start`, `serve` below, from node:http's request): the adaptor, the
 *   router and the middleware cost a quarter of a free call's time and of a billed one's
 *   (docs/benchmarks.md, "eleventh pass: the API lane");
 * - each operation's Lambda function (functions/lambda/rest-adapter.ts, from API Gateway's event):
 *   Hono's Lambda adaptor builds a fetch Request, and the first one a process makes loads Node's
 *   fetch implementation (undici), 30–50 ms of every cold start (docs/benchmarks.md, "fourteenth
 *   pass").
 * A path with a parameter (`/api/v2/profiles/{public_identifier}`) is matched here only when every
 * segment is plain text that the router and URL parsing take as it is; anything else (other
 * methods, a path spelled with escapes or dot segments, pages, /mcp, OAuth) goes to the app.
 *
 * Nothing is answered differently: the call is the app route's own (answerApiCall), what the
 * middleware does around it is the same code (RequestEdge, compressBody, render), and
 * test/integration/api-lane.test.ts and lambda-api-lane.test.ts send each kind of request both ways
 * and compare the answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId, type PublicResponse } from '../pipeline/public-response.js';
import type { LookupPipeline } from '../pipeline/run-lookup.js';
import { type ApiEndpoint, answerApiCall, type LookupSummary } from './api-binding.js';
import { clientAddress } from './client-address.js';
import { chooseEncoding, compressBody } from './compression.js';
import type { HeaderReader } from './protocol-checks.js';
import { render } from './render.js';
import type { RequestEdge } from './request-edge.js';

/**
 * Hosts the servers' adaptors take as they are, without parsing them into a URL (the Node adaptor's
 * `reValidHost`; Hono's Lambda adaptor puts the host into the URL it parses): for any other Host an
 * adaptor may refuse the request (an IPv4 address it would normalize), so such a request goes to the
 * app, which answers exactly as the adaptor decides.
 */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * A path whose segments are unreserved characters only, none of them `.` or `..`: the router
 * matches it as sent, and URL parsing, which the app's input reads segments from, keeps it so.
 */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9._~-]+)+$/;

/** A path with parameters, by segment: the literal text, or undefined for a parameter. */
interface Template {
  segments: Array<string | undefined>;
  endpoint: ApiEndpoint;
}

/** A GET the lane takes, as its server received it. */
export interface LaneRequest {
  endpoint: ApiEndpoint;
  /** The path alone, for the log line. */
  path: string;
  /** The path and query as the app's router would see them. */
  target: string;
  /** The request's headers, repeated fields joined as the fetch API's Headers joins them. */
  header: HeaderReader;
  /** The client's address, for the refused-credentials throttle. */
  address: string | undefined;
}

/** The answer, compressed as the app's middleware compresses it; the server adds its framing. */
export interface LaneAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export class ApiLane {
  /** The endpoints of paths without parameters, by path. */
  private readonly fixed = new Map<string, ApiEndpoint>();
  /** The others, in the router's order (api-binding.ts `routesOf`: fewer parameters first). */
  private readonly templates: Template[] = [];

  constructor(
    endpoints: readonly ApiEndpoint[],
    private readonly pipeline: LookupPipeline,
    private readonly edge: RequestEdge,
  ) {
    for (const endpoint of endpoints) {
      const { path } = endpoint.route;
      if (!path.includes('{')) this.fixed.set(path, endpoint);
      else
        this.templates.push({
          segments: path.split('/').map((segment) => (segment.startsWith('{') ? undefined : segment)),
          endpoint,
        });
    }
  }

  /**
   * The endpoint the router would answer a GET of `path` on `host` with, where the lane can tell;
   * undefined for the app to answer.
   */
  endpointOf(host: string | undefined, path: string): ApiEndpoint | undefined {
    if (!PLAIN_HOST.test(host ?? '')) return undefined;
    const fixed = this.fixed.get(path);
    if (fixed || !PLAIN_PATH.test(path)) return fixed;
    const segments = path.split('/');
    return this.templates.find(
      (template) =>
        template.segments.length === segments.length &&
        template.segments.every((literal, index) => literal === undefined || literal === segments[index]),
    )?.endpoint;
  }

  /** What the app answers to the request, and its log line, as the app's middleware writes it. */
  async answer({ endpoint, path, target, header, address }: LaneRequest): Promise<LaneAnswer> {
    const started = performance.now();
    const requestId = newRequestId();
    let response: PublicResponse;
    let lookup: LookupSummary | undefined;
    let compress = true;
    try {
      const throttled = this.edge.throttled(address, requestId);
      if (throttled) {
        response = throttled;
        compress = false;
      } else {
        ({ response, lookup } = await answerApiCall(
          endpoint,
          this.pipeline,
          { method: 'GET', header },
          target,
          requestId,
        ));
        this.edge.answered(address, response.status, header);
      }
    } catch (error) {
      response = this.edge.unhandled(error, requestId);
    }
    const answer = await compressed(render(response), compress ? header('accept-encoding') : undefined);
    this.edge.log({ requestId, method: 'GET', path, status: answer.status, lookup, started });
    return answer;
  }

  /** Answers a request of the embedded server, or returns false for the app to answer it. */
  serve(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
    if (incoming.method !== 'GET') return false;
    const target = incoming.url ?? '';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const endpoint = this.endpointOf(incoming.headers.host, path);
    if (!endpoint) return false;
    this.answer({
      endpoint,
      path,
      target,
      header: (name) => incoming.headersDistinct[name]?.join(', '),
      address: clientAddress({ incoming }),
    })
      .then(({ status, headers, body }) => {
        outgoing.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
        outgoing.end(body);
      })
      .catch((error: unknown) => {
        // Only compressing or writing can fail here: the answer is lost with its socket.
        this.edge.logger.error({ err: error }, 'could not write an answer');
        outgoing.destroy();
      });
    return true;
  }
}

/** The rendered response, compressed as the app's middleware compresses it. */
async function compressed(
  { status, headers, body }: ReturnType<typeof render>,
  acceptEncoding: string | undefined,
): Promise<LaneAnswer> {
  const encoding = chooseEncoding(acceptEncoding);
  const bytes = encoding && (await compressBody(encoding, Buffer.from(body)));
  if (!encoding || !bytes) return { status, headers, body };
  return {
    status,
    headers: { ...headers, 'Content-Encoding': encoding, Vary: 'Accept-Encoding' },
    body: bytes,
  };
}
