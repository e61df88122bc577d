/**
 * What every request passes on its way in and out, whichever server takes it (the app's middleware,
 * create-app.ts, and the embedded server's API lane, api-lane.ts): the refused-credentials throttle,
 * the request log line, and the answer to an error nothing else caught. One object per service, so
 * both ways count an address's refused credentials together.
 */
import { AuthFailuresThrottledError, InternalError } from '../errors.js';
import type { Logger } from '../logger.js';
import { errorResponse, type PublicResponse } from '../pipeline/public-response.js';
import type { LookupSummary } from './api-binding.js';
import type { AuthFailureThrottle } from './auth-failure-throttle.js';
import type { HeaderReader } from './protocol-checks.js';

/** What the log line says of one request. */
export interface RequestRecord {
  requestId: string;
  method: string;
  path: string;
  status: number;
  lookup?: LookupSummary;
  /** `performance.now()` when the request arrived. */
  started: number;
}

export class RequestEdge {
  constructor(
    readonly logger: Logger,
    private readonly throttle?: AuthFailureThrottle,
  ) {}

  /**
   * Before anything else (a store lookup above all), an address with too many refused credentials
   * is answered 429.
   */
  throttled(address: string | undefined, requestId: string): PublicResponse | undefined {
    const retryAfter = this.throttle?.retryAfterSeconds(address);
    if (retryAfter === undefined) return undefined;
    this.logger.info({ requestId, address, retryAfter }, 'authentication failures throttled');
    return errorResponse(new AuthFailuresThrottledError(retryAfter), requestId);
  }

  /**
   * A 401 to a request that carried a credential counts against its address. A request without any
   * is not counted: it costs nothing and is usually a first try.
   */
  answered(address: string | undefined, status: number, header: HeaderReader): void {
    if (!this.throttle || status !== 401) return;
    if (header('authorization') !== undefined || header('x-api-key') !== undefined)
      this.throttle.recordFailure(address);
  }

  log({ requestId, method, path, status, lookup, started }: RequestRecord): void {
    // The line's fields cost time to gather even when the level drops it.
    if (!this.logger.isLevelEnabled('info')) return;
    this.logger.info(
      {
        requestId,
        method,
        path,
        operation: lookup?.operation,
        accountId: lookup?.accountId,
        keyId: lookup?.keyId,
        status,
        creditCost: lookup?.creditCost ?? 0,
        latencyMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  }

  /** A bug: logged with its stack, answered 500 `internal_error`. */
  unhandled(error: unknown, requestId: string): PublicResponse {
    this.logger.error({ err: error, requestId }, 'unhandled error');
    return errorResponse(new InternalError(error), requestId);
  }
}
