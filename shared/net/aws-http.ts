/**
 * Signed HTTP requests to one AWS service's endpoint, over one keep-alive agent: what the store's
 * DynamoDB client and /mcp's Lambda invoke share instead of the AWS SDK's clients (docs/architecture.md,
 * "The DynamoDB client"). SigV4 is `aws4`'s (a small, long-standing signer on node:crypto; the SDK's
 * own signer imports the SDK runtime's barrels, which a bundle with code splitting then loads at
 * start); credentials are given keys, or the environment's (its keys, else the SDK's credential
 * chain, loaded only then).
 */
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AwsCredentialIdentity } from '@smithy/types';
import aws4 from 'aws4';
import { nodeHttp } from './node-http.js';

/** Whom requests are signed as: given keys, or the environment's (a Lambda role, an operator's AWS setup). */
export type Credentials = AwsCredentialIdentity | 'environment';

export interface AwsHttpOptions {
  /** The signing name: `dynamodb`, `lambda`. */
  service: string;
  region: string;
  /** Unset: the service's regional endpoint. */
  endpoint?: string;
  credentials: Credentials;
}

export interface AwsRequest {
  method: 'POST';
  /** Already encoded, as it goes on the wire. */
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  /** Gives the request up (and its response, if one has begun) when it aborts. */
  signal?: AbortSignal;
}

/** The SDK's socket timeout (its Node handler's default): a connection idle this long is given up. */
const SOCKET_TIMEOUT_MS = 300_000;

export class AwsHttp {
  private readonly url: URL;
  private readonly agent: HttpAgent;

  constructor(private readonly options: AwsHttpOptions) {
    this.url = new URL(options.endpoint ?? regionalEndpoint(options.service, options.region));
    this.agent =
      this.url.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 50 })
        : new nodeHttp.Agent({ keepAlive: true, maxSockets: 50 });
  }

  /** Sends `request` signed; answers the response with its body unread. */
  async send(request: AwsRequest): Promise<IncomingMessage> {
    const { url, options } = this;
    const credentials =
      options.credentials === 'environment' ? await environmentCredentials() : options.credentials;
    const signed = aws4.sign(
      {
        service: options.service,
        region: options.region,
        method: request.method,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: `${url.pathname.replace(/\/$/, '')}${request.path}`,
        headers: { ...request.headers },
        body: request.body,
      },
      credentials,
    );
    const send = url.protocol === 'https:' ? httpsRequest : nodeHttp.request;
    return new Promise((resolve, reject) => {
      const outgoing = send(
        {
          method: signed.method,
          hostname: url.hostname,
          port: url.port,
          path: signed.path,
          headers: signed.headers,
          agent: this.agent,
          timeout: SOCKET_TIMEOUT_MS,
          ...(request.signal ? { signal: request.signal } : {}),
        },
        resolve,
      );
      outgoing.on('timeout', () => outgoing.destroy(new AwsTimeoutError()));
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  }

  /** Lets go of idle connections, so that a process with nothing else to do can end. */
  destroy(): void {
    this.agent.destroy();
  }
}

/** A refusal by an AWS service: `name` is its error code (`ConditionalCheckFailedException`…). */
export class AwsServiceError extends Error {
  constructor(
    name: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = name;
  }
}

/** A connection idle past the socket timeout. */
export class AwsTimeoutError extends Error {
  constructor() {
    super(`no answer within ${SOCKET_TIMEOUT_MS} ms`);
    this.name = 'TimeoutError';
  }
}

/** A service's endpoint in a region, as the SDK resolves it without FIPS or dual-stack. */
function regionalEndpoint(service: string, region: string): string {
  return `https://${service}.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/**
 * The environment's credentials: its keys when it has them and names no profile (a Lambda
 * function's role, always), otherwise the SDK's whole chain (profiles, SSO, containers, instance
 * roles), loaded only then and memoized by the SDK (it refreshes what expires). Credentials are not
 * settings: like the SDK, this reads them from the environment at each call, not through config.ts.
 */
let chain: (() => Promise<AwsCredentialIdentity>) | undefined;
async function environmentCredentials(): Promise<AwsCredentialIdentity> {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE } = process.env;
  if (AWS_ACCESS_KEY_ID && AWS_SECRET_ACCESS_KEY && !AWS_PROFILE) {
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
    };
  }
  chain ??= (await import('@aws-sdk/credential-provider-node')).defaultProvider();
  return chain();
}
