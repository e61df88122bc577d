/**
 * The embedded server's own way to the API. A GET of a v1 or /api/v2 path is answered from
 * node:http's request directly, without the Node adaptor's request and response objects, Hono's
 * router over every route and its chain of middleware: those cost a quarter of a free call's time
 * and of a billed one's (docs/benchmarks.md, "eleventh pass: the API lane"). A path with a parameter
 * (`/api/v2/profiles/{public_identifier}`) is matched here only when every segment is plain text
 * that the router and URL parsing take as it is; anything else (other methods, a path spelled with
 * escapes or dot segments, pages, /mcp, OAuth) goes to the app.
 *
 * Nothing is answered differently: the call is the app route's own (answerApiCall), what the
 * middleware does around it is the same code (RequestEdge, compressBody, render), and
 * test/integration/api-lane.test.ts sends each kind of request both ways and compares the answers.
 * Lambda functions have no lane (functions/local/server.ts builds it): there a request's cost is API
 * Gateway's and the cold start's, and their bundles do not carry it.
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
 * Hosts the Node adaptor takes as they are, without parsing them into a URL (its `reValidHost`):
 * for any other Host the adaptor may refuse the request (an IPv4 address it would normalize), so
 * such a request goes to the app, which answers exactly as the adaptor decides.
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

  /** Answers the request, or returns false for the app to answer it. */
  serve(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
    if (incoming.method !== 'GET') return false;
    const target = incoming.url ?? '';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const endpoint = this.endpointOf(path);
    if (!endpoint || !PLAIN_HOST.test(incoming.headers.host ?? '')) return false;
    this.answer(endpoint, incoming, outgoing, path, target).catch((error: unknown) => {
      // Only writing can fail here (answerApiCall never throws): the answer is lost with its socket.
      this.edge.logger.error({ err: error }, 'could not write an answer');
      outgoing.destroy();
    });
    return true;
  }

  /** The endpoint the router would answer `path` with, where the lane can tell; undefined otherwise. */
  private endpointOf(path: string): ApiEndpoint | undefined {
    const fixed = this.fixed.get(path);
    if (fixed || !PLAIN_PATH.test(path)) return fixed;
    const segments = path.split('/');
    return this.templates.find(
      (template) =>
        template.segments.length === segments.length &&
        template.segments.every((literal, index) => literal === undefined || literal === segments[index]),
    )?.endpoint;
  }

  private async answer(
    endpoint: ApiEndpoint,
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    path: string,
    target: string,
  ): Promise<void> {
    const started = performance.now();
    const requestId = newRequestId();
    const address = clientAddress({ incoming });
    // Repeated fields joined as the fetch API's Headers joins them, which the app's routes read.
    const header: HeaderReader = (name) => incoming.headersDistinct[name]?.join(', ');
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
    await write(outgoing, response, compress ? header('accept-encoding') : undefined);
    this.edge.log({ requestId, method: 'GET', path, status: response.status, lookup, started });
  }
}

/** The response as the app's adaptor writes it, compressed as the app's middleware compresses it. */
async function write(
  outgoing: ServerResponse,
  response: PublicResponse,
  acceptEncoding: string | undefined,
): Promise<void> {
  const { status, headers, body } = render(response);
  const encoding = chooseEncoding(acceptEncoding);
  const compressed = encoding && (await compressBody(encoding, Buffer.from(body)));
  if (encoding && compressed) {
    outgoing.writeHead(status, {
      ...headers,
      'Content-Encoding': encoding,
      Vary: 'Accept-Encoding',
      'Content-Length': compressed.length,
    });
    outgoing.end(compressed);
    return;
  }
  outgoing.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
  outgoing.end(body);
}
