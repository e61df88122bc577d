/**
 * A loopback stand-in for the one Secrets Manager call the functions make (GetSecretValue, AWS JSON
 * 1.1 over HTTP), for AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets by ARN, an unknown ARN answered
 * with ResourceNotFoundException as AWS answers it, and the ARNs asked for, in order.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SecretsManagerEndpoint {
  url: string;
  /** The SecretIds requested so far. */
  requested: string[];
  close(): Promise<void>;
}

export async function startSecretsManager(
  secrets: ReadonlyMap<string, string>,
): Promise<SecretsManagerEndpoint> {
  const requested: string[] = [];
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const answer = (status: number, payload: object) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(payload));
    };
    if (request.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
      answer(400, { __type: 'UnknownOperationException', message: 'Only GetSecretValue is served here.' });
      return;
    }
    const { SecretId } = JSON.parse(body) as { SecretId: string };
    requested.push(SecretId);
    const value = secrets.get(SecretId);
    if (value === undefined) {
      answer(400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
      return;
    }
    answer(200, { ARN: SecretId, Name: SecretId.split(':').pop(), SecretString: value, VersionId: 'v1' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    close: async () => {
      server.close();
      await once(server, 'close');
    },
  };
}
