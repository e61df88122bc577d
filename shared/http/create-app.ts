/**
 * The REST app: the routes of every API family (api-binding.ts) over the served operations, all
 * through the same pipeline, one error renderer, one request log line. Used by the local server
 * (every operation) and by each Lambda function (its own operation only); the pages function, which
 * serves no operation, takes the app beneath it (`createApp`).
 */
import { Hono } from 'hono';
import { ResourceNotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { errorResponse, newRequestId } from '../pipeline/public-response.js';
import type { LookupPipeline } from '../pipeline/run-lookup.js';
import { SERVICE_VERSION } from '../version.js';
import { type ApiBinding, type ApiEndpoint, mountApi, type RestEnv, routesOf } from './api-binding.js';
import { AuthFailureThrottle, type AuthFailureThrottleSettings } from './auth-failure-throttle.js';
import { clientAddress } from './client-address.js';
import { compression } from './compression.js';
import { carriesRequestId, toHttpResponse } from './render.js';
import { RequestEdge } from './request-edge.js';

export interface AppOptions {
  logger: Logger;
  /** Serve GET /healthz with this probe of the store: it resolves when the store answers. */
  storeProbe?: () => Promise<void>;
  /** Refuse a client address with 429 after this many refused credentials per window. */
  authFailures?: AuthFailureThrottleSettings;
}

export interface RestAppOptions extends AppOptions {
  operations: readonly RegisteredOperation[];
  /** The API families that serve them (v1, /api/v2), each through the same pipeline. */
  apis: readonly ApiBinding[];
  pipeline: LookupPipeline;
}

/** How long /healthz waits for the store before calling it unreachable. */
const HEALTH_PROBE_TIMEOUT_MS = 2_000;

/**
 * The app, with its endpoints and its request edge: what the embedded server's API lane
 * (api-lane.ts) answers the API's GETs with, sharing the edge so that the throttle counts what
 * either way refused.
 */
export function createRestApp(options: RestAppOptions): {
  app: Hono<RestEnv>;
  endpoints: ApiEndpoint[];
  edge: RequestEdge;
} {
  const edge = createEdge(options);
  const app = createApp(options, edge);
  const endpoints = options.apis.flatMap((api) => routesOf(api, options.operations));
  mountApi(app, endpoints, options.pipeline);
  return { app, endpoints, edge };
}

function createEdge(options: AppOptions): RequestEdge {
  return new RequestEdge(
    options.logger,
    options.authFailures && new AuthFailureThrottle(options.authFailures),
  );
}

/**
 * What every app of the service has before its routes (the REST app's, and the pages function's,
 * which serves no operation): request ids and the request log line, the refused-credentials
 * throttle, compression, /healthz, the JSON not-found and the one error handler.
 */
export function createApp(options: AppOptions, edge = createEdge(options)): Hono<RestEnv> {
  const app = new Hono<RestEnv>();

  app.use('*', async (c, next) => {
    const started = performance.now();
    c.set('requestId', newRequestId());
    await next();
    const requestId = c.get('requestId');
    if (!carriesRequestId(c.res, requestId)) c.res.headers.set('X-Request-Id', requestId);
    edge.log({
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      lookup: c.get('lookup'),
      started,
    });
  });
  if (options.authFailures) throttleAuthFailures(app, edge);
  app.use('*', compression());

  if (options.storeProbe) serveHealth(app, options.storeProbe);

  app.notFound((c) =>
    toHttpResponse(errorResponse(new ResourceNotFoundError('No endpoint at this path.'), c.get('requestId'))),
  );
  app.onError((error, c) => toHttpResponse(edge.unhandled(error, c.get('requestId'))));
  return app;
}

/** The edge's throttle of refused credentials, before anything else runs and after the answer. */
function throttleAuthFailures(app: Hono<RestEnv>, edge: RequestEdge): void {
  app.use('*', async (c, next) => {
    const address = clientAddress(c.env);
    const throttled = edge.throttled(address, c.get('requestId'));
    if (throttled) return toHttpResponse(throttled);
    await next();
    edge.answered(address, c.res.status, (name) => c.req.header(name));
  });
}

/**
 * GET /healthz: for load balancers and operators, free and without a key. 200 while the store
 * answers, 503 when it does not (lookups would fail closed then), with the version either way.
 */
function serveHealth(app: Hono<RestEnv>, storeProbe: () => Promise<void>): void {
  app.get('/healthz', async (c) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('store probe timed out')), HEALTH_PROBE_TIMEOUT_MS);
    });
    const store = await Promise.race([storeProbe(), timeout])
      .then(() => 'ok' as const)
      .catch(() => 'unreachable' as const)
      .finally(() => clearTimeout(timer));
    const healthy = store === 'ok';
    return c.json(
      { status: healthy ? 'ok' : 'unavailable', version: SERVICE_VERSION, store },
      healthy ? 200 : 503,
      { 'Cache-Control': 'no-store' },
    );
  });
}
