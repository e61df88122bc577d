/**
 * Calls of an AWS service that speaks the JSON 1.0 protocol (`X-Amz-Target: <prefix>.<Operation>`,
 * one JSON document each way: DynamoDB, SQS) over signed HTTP (aws-http.ts), repeated as the AWS
 * SDK's standard retry strategy repeats them. What the store's DynamoDB client and the batch queues'
 * SQS client share instead of the SDK's clients (docs/architecture.md, "The DynamoDB client").
 */
import { text } from 'node:stream/consumers';
import { AwsHttp, type AwsHttpOptions, AwsServiceError } from './aws-http.js';

export interface AwsJsonProtocolOptions extends AwsHttpOptions {
  /** What precedes the operation in `X-Amz-Target`: `DynamoDB_20120810`, `AmazonSQS`. */
  targetPrefix: string;
  /** Attempts of a call that failed in a way worth repeating (a lost connection, a 5xx, throttling). */
  maxAttempts: number;
}

/** What a call may be given besides its input: a signal that gives it up (its retry too). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** The error codes the SDK's standard retry strategy treats as throttling (@smithy/core's list). */
const THROTTLING = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);

/** The SDK's standard back-off bases: a full-jitter delay up to base × 2^attempt. */
const RETRY_BASE_MS = 100;
const THROTTLING_RETRY_BASE_MS = 500;

export class AwsJsonProtocol {
  private readonly http: AwsHttp;

  constructor(private readonly options: AwsJsonProtocolOptions) {
    this.http = new AwsHttp(options);
  }

  /**
   * Sends one call, repeating it while it fails in a way worth repeating and attempts remain; its
   * answer, or an AwsServiceError named by the service's error code.
   */
  async call(
    operation: string,
    input: Record<string, unknown>,
    { signal }: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    const payload = JSON.stringify(input);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(operation, payload, signal);
      } catch (error) {
        if (attempt >= this.options.maxAttempts || signal?.aborted || !isRetryable(error)) throw error;
        const base =
          error instanceof AwsServiceError && THROTTLING.has(error.name)
            ? THROTTLING_RETRY_BASE_MS
            : RETRY_BASE_MS;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * base * 2 ** attempt));
      }
    }
  }

  /** Lets go of idle connections, so that a process with nothing else to do can end. */
  destroy(): void {
    this.http.destroy();
  }

  private async attempt(
    operation: string,
    payload: string,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const response = await this.http.send({
      method: 'POST',
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `${this.options.targetPrefix}.${operation}`,
      },
      body: payload,
      signal,
    });
    const body = await text(response);
    const parsed = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return parsed;
    throw serviceError(status, parsed);
  }
}

function serviceError(status: number, body: Record<string, unknown>): AwsServiceError {
  // `__type` is `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` (the code after `#`).
  const type = typeof body.__type === 'string' ? body.__type : '';
  const code = type.slice(type.indexOf('#') + 1) || `Http${status}`;
  const message = body.message ?? body.Message;
  return new AwsServiceError(code, typeof message === 'string' ? message : code, status);
}

/** What the SDK's standard retry strategy repeats: lost connections, timeouts, 5xx and throttling. */
function isRetryable(error: unknown): boolean {
  if (error instanceof AwsServiceError) return error.statusCode >= 500 || THROTTLING.has(error.name);
  return error instanceof Error && !(error instanceof SyntaxError);
}
