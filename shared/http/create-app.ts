/**
 * The REST app: the routes of every API family (api-binding.ts) over the served operations, all
 * through the same pipeline, one error renderer, one request log line. Used by the local server
 * (every operation) and by each Lambda function (its own operation only); the pages function, which
 * serves no operation, takes the app beneath it (`createApp`).
 */
import { Hono } from 'hono';
import { AuthFailuresThrottledError, InternalError, ResourceNotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { errorResponse, newRequestId } from '../pipeline/public-response.js';
import type { LookupPipeline } from '../pipeline/run-lookup.js';
import { SERVICE_VERSION } from '../version.js';
import { type ApiBinding, mountApi, type RestEnv } from './api-binding.js';
import { AuthFailureThrottle, type AuthFailureThrottleSettings } from './auth-failure-throttle.js';
import { clientAddress } from './client-address.js';
import { compression } from './compression.js';
import { carriesRequestId, toHttpResponse } from './render.js';

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

export function createRestApp(options: RestAppOptions): Hono<RestEnv> {
  const app = createApp(options);
  for (const api of options.apis) mountApi(app, api, options.operations, options.pipeline);
  return app;
}

/**
 * What every app of the service has before its routes (the REST app's, and the pages function's,
 * which serves no operation): request ids and the request log line, the refused-credentials
 * throttle, compression, /healthz, the JSON not-found and the one error handler.
 */
export function createApp(options: AppOptions): Hono<RestEnv> {
  const { logger } = options;
  const app = new Hono<RestEnv>();

  app.use('*', async (c, next) => {
    const started = performance.now();
    c.set('requestId', newRequestId());
    await next();
    const requestId = c.get('requestId');
    if (!carriesRequestId(c.res, requestId)) c.res.headers.set('X-Request-Id', requestId);
    // The line's fields cost time to gather even when the level drops it.
    if (!logger.isLevelEnabled('info')) return;
    const lookup = c.get('lookup');
    logger.info(
      {
        requestId,
        method: c.req.method,
        path: c.req.path,
        operation: lookup?.operation,
        accountId: lookup?.accountId,
        keyId: lookup?.keyId,
        status: c.res.status,
        creditCost: lookup?.creditCost ?? 0,
        latencyMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });
  if (options.authFailures) throttleAuthFailures(app, new AuthFailureThrottle(options.authFailures), logger);
  app.use('*', compression());

  if (options.storeProbe) serveHealth(app, options.storeProbe);

  app.notFound((c) =>
    toHttpResponse(errorResponse(new ResourceNotFoundError('No endpoint at this path.'), c.get('requestId'))),
  );
  app.onError((error, c) => {
    logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error');
    return toHttpResponse(errorResponse(new InternalError(error), c.get('requestId')));
  });
  return app;
}

/**
 * Before anything else (a store lookup above all), an address with too many refused credentials
 * is answered 429; afterwards a 401 to a request that carried a credential counts against it. A
 * request without any is not counted: it costs nothing and is usually a first try.
 */
function throttleAuthFailures(app: Hono<RestEnv>, throttle: AuthFailureThrottle, logger: Logger) {
  app.use('*', async (c, next) => {
    const address = clientAddress(c.env);
    const retryAfter = throttle.retryAfterSeconds(address);
    if (retryAfter !== undefined) {
      logger.info(
        { requestId: c.get('requestId'), address, retryAfter },
        'authentication failures throttled',
      );
      return toHttpResponse(errorResponse(new AuthFailuresThrottledError(retryAfter), c.get('requestId')));
    }
    await next();
    const credentialSent =
      c.req.header('authorization') !== undefined || c.req.header('x-api-key') !== undefined;
    if (c.res.status === 401 && credentialSent) throttle.recordFailure(address);
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
