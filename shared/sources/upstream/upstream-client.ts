/**
 * HTTP to a service that speaks this project's /api/v2: one GET per call, built from scratch (our
 * own key as X-API-Key and nothing of the caller's request), over kept-alive connections, at most
 * UPSTREAM_MAX_IN_FLIGHT at once per process, each under its own deadline (UPSTREAM_TIMEOUT_MS,
 * a wait for a free slot included) and the caller's signal. Every answer is checked against the
 * route's public v2 envelope before anyone reads it; every failure leaves as a typed error
 * (upstream-failures.ts) whose cause names the request but never the key.
 *
 * node:http's Agent rather than fetch: Node's fetch keeps connections alive too, but tuning its pool
 * needs undici's Agent, which Node bundles without exporting (the `undici` package is no dependency
 * of this project), while http.Agent is public and bounds its sockets itself.
 */
import http from 'node:http';
import https from 'node:https';
import type * as z from 'zod';
import type { V2Route } from '../../../schemas/v2-routes.js';
import { ApiError, InvalidRequestError, LookupTimeoutError } from '../../errors.js';
import { SERVICE_VERSION } from '../../version.js';
import { RequestSlots } from './request-slots.js';
import {
  answerFailure,
  connectionFailure,
  deadlineFailure,
  invalidAnswer,
  type UpstreamAnswer,
} from './upstream-failures.js';

export interface UpstreamSettings {
  /** Scheme, host and any path prefix before /api/v2, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxInFlight: number;
}

/** One GET of a v2 route: the value of the identifier it takes (in its path or its query) and other parameters. */
export interface UpstreamRequest {
  route: V2Route;
  identifier?: string;
  query?: Record<string, string | undefined>;
}

/** v2 answers hold pages of ten records; anything near this size is an upstream gone wrong. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** Idle kept-alive connections close before Node servers' default 5 s keep-alive timeout closes them under us. */
const IDLE_CONNECTION_MS = 4_000;
/** Zod issues quoted in a logged cause. */
const QUOTED_ISSUES = 5;

export class UpstreamClient {
  private readonly agent: http.Agent;
  private readonly get: typeof http.get;
  private readonly slots: RequestSlots;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(private readonly settings: UpstreamSettings) {
    const secure = new URL(settings.baseUrl).protocol === 'https:';
    const pool = {
      keepAlive: true,
      maxSockets: settings.maxInFlight,
      maxFreeSockets: settings.maxInFlight,
      timeout: IDLE_CONNECTION_MS,
    };
    this.agent = secure ? new https.Agent(pool) : new http.Agent(pool);
    this.get = secure ? https.get : http.get;
    this.slots = new RequestSlots(settings.maxInFlight);
    this.headers = {
      'X-API-Key': settings.apiKey,
      Accept: 'application/json',
      'User-Agent': `lookup-service/${SERVICE_VERSION} (upstream adapter)`,
    };
  }

  /** The route's answer, checked against `envelope`; any failure is an ApiError. */
  async fetch<T>(request: UpstreamRequest, envelope: z.ZodType<T>, callerSignal: AbortSignal): Promise<T> {
    const url = this.urlOf(request);
    const cause = (text: string) => new Error(this.redact(`GET ${url.pathname} ${text}`));
    const deadline = AbortSignal.timeout(this.settings.timeoutMs);
    const signal = AbortSignal.any([callerSignal, deadline]);
    let giveBack: (() => void) | undefined;
    let answer: UpstreamAnswer;
    try {
      giveBack = await this.slots.take(signal);
      answer = await this.exchange(url, signal);
    } catch (error) {
      if (callerSignal.aborted) throw callerReason(callerSignal);
      if (deadline.aborted) {
        const { timeoutMs, maxInFlight } = this.settings;
        throw deadlineFailure(
          cause(
            giveBack
              ? `had no answer within ${timeoutMs} ms`
              : `waited ${timeoutMs} ms for one of the ${maxInFlight} request slots (UPSTREAM_MAX_IN_FLIGHT)`,
          ),
        );
      }
      throw error instanceof ApiError ? error : connectionFailure(error, cause);
    } finally {
      giveBack?.();
    }
    if (answer.status !== 200) throw answerFailure(answer, cause);
    return checked(answer.body, envelope, cause);
  }

  private urlOf({ route, identifier, query = {} }: UpstreamRequest): URL {
    let path = route.path;
    const search = new URLSearchParams();
    if (route.identifier !== undefined) {
      if (identifier === undefined) throw new Error(`${route.path} needs its ${route.identifier}.`);
      if (route.pathParameter)
        path = path.replace(`{${route.pathParameter}}`, pathSegment(route.identifier, identifier));
      else search.set(route.identifier, identifier);
    }
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, value);
    const url = new URL(`${this.settings.baseUrl}${path}`);
    url.search = search.toString();
    return url;
  }

  /** One GET, its whole body read; a kept-alive connection the upstream closed as we reused it is retried once. */
  private exchange(url: URL, signal: AbortSignal, retryStale = true): Promise<UpstreamAnswer> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const request = this.get(url, { agent: this.agent, headers: this.headers, signal }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_ANSWER_BYTES) return void chunks.push(chunk);
          reject(Object.assign(new Error(`an answer over ${MAX_ANSWER_BYTES} bytes`), { code: 'TOO_LARGE' }));
          request.destroy();
        });
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        // Node's documented remedy for the keep-alive race: that request never reached the upstream.
        if (retryStale && !answered && request.reusedSocket && error.code === 'ECONNRESET')
          resolve(this.exchange(url, signal, false));
        else reject(error);
      });
    });
  }

  /** Causes are logged: whatever the upstream echoes into them, our key is not repeated. */
  private redact(text: string): string {
    return text.split(this.settings.apiKey).join('[redacted]');
  }
}

/** The error the caller's signal was aborted with (the lookup's deadline), as an ApiError. */
function callerReason(signal: AbortSignal): ApiError {
  return signal.reason instanceof ApiError ? signal.reason : new LookupTimeoutError(undefined, signal.reason);
}

/**
 * An identifier as one path segment. `.` and `..` cannot be one: URL parsers resolve them (even
 * percent-encoded) as dot segments, so such a slug cannot be asked of any /api/v2 service.
 */
function pathSegment(name: string, value: string): string {
  if (value === '.' || value === '..')
    throw InvalidRequestError.single(
      name,
      'invalid_value',
      `${name} "${value}" cannot be looked up through this service's data source: a URL path cannot carry it.`,
    );
  return encodeURIComponent(value);
}

function checked<T>(body: string, envelope: z.ZodType<T>, cause: (text: string) => Error): T {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw invalidAnswer('json', cause(`answered 200 with ${body.length} characters that are not JSON`));
  }
  const parsed = envelope.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, QUOTED_ISSUES)
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
  throw invalidAnswer('schema', cause(`answered 200 off the schema (${issues.join('; ')})`));
}
