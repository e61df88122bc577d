/**
 * Checks a SigV4 signature as AWS would: recomputed from the request as it arrived (its method, path,
 * the headers it says it signed, and its body), with the AWS SDK's own signer and a JavaScript
 * SHA-256 apart from the node:crypto one the project signs with. Used on requests the project's AWS
 * clients send (shared/net/aws-http.ts), with requests of the SDK's own clients as the control.
 */
import type { IncomingMessage } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { Sha256Js } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll } from 'vitest';

export interface CapturedRequest {
  method: string;
  /** As it arrived, still encoded. */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export async function captureRequest(req: IncomingMessage): Promise<CapturedRequest> {
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: req.headers,
    body: (await buffer(req)).toString('utf8'),
  };
}

/** True when `request`'s signature is the one its credentials make for it, in `service` and `region`. */
export async function signatureHolds(
  request: CapturedRequest,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  scope: { service: string; region: string },
): Promise<boolean> {
  const authorization = String(request.headers.authorization);
  const signedHeaders = (/SignedHeaders=([^,]+)/.exec(authorization)?.[1] ?? '').split(';');
  const amzDate = String(request.headers['x-amz-date']);
  const signingDate = new Date(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  // The payload's hash is recomputed from the body that arrived, never taken from its header.
  const headers = Object.fromEntries(
    signedHeaders
      .filter((name) => name !== 'x-amz-content-sha256')
      .map((name) => [name, String(request.headers[name])]),
  );
  const signer = new SignatureV4({
    ...scope,
    credentials,
    sha256: Sha256Js,
    applyChecksum: signedHeaders.includes('x-amz-content-sha256'),
  });
  const [hostname, port] = String(request.headers.host).split(':');
  const resigned = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: hostname as string,
      port: Number(port),
      path: request.path,
      query: {},
      headers,
      body: request.body,
    },
    { signingDate },
  );
  return resigned.headers.authorization === authorization;
}

/**
 * For a test file: the environment holds `role`'s keys, as a Lambda function's does (so the clients
 * sign as it, without the SDK's credential chain), from its first hook to its last.
 */
export function environmentRole(role: {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}) {
  const saved = { ...process.env };
  beforeAll(() => {
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: role.accessKeyId,
      AWS_SECRET_ACCESS_KEY: role.secretAccessKey,
      AWS_SESSION_TOKEN: role.sessionToken,
    });
    delete process.env.AWS_PROFILE;
  });
  afterAll(() => {
    process.env = saved;
  });
}
