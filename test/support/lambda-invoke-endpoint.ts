/**
 * A loopback endpoint speaking Lambda's InvokeWithResponseStream API, which /mcp calls to run a tool
 * group's function (AWS_ENDPOINT_URL_LAMBDA points the SDK here). Each named function's bundle runs in
 * its own process; what it streams comes back in AWS's event-stream framing, as PayloadChunk events
 * (in 64 KiB pieces, so the caller must reassemble them) and a closing InvokeComplete. A function
 * that is not here, or that fails, answers as Lambda does for a crashed function: an InvokeComplete
 * with an ErrorCode.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { CHUNK_BYTES, streamEvent as event } from '../../local-aws/lambda-and-secrets-api.js';
import type { LambdaProcess } from './lambda-process.js';

const PATH = /^\/2021-11-15\/functions\/([^/]+)\/response-streaming-invocations/;

export interface InvokeEndpoint {
  url: string;
  close(): Promise<void>;
}

export async function startInvokeEndpoint(
  functions: ReadonlyMap<string, LambdaProcess>,
): Promise<InvokeEndpoint> {
  const server = createServer(async (req, res) => {
    const name = decodeURIComponent(PATH.exec(req.url ?? '')?.[1] ?? '');
    const body = await buffer(req);
    res.writeHead(200, {
      'Content-Type': 'application/vnd.amazon.eventstream',
      'X-Amz-Executed-Version': '$LATEST',
    });
    const complete = (outcome: object) =>
      res.end(event('InvokeComplete', Buffer.from(JSON.stringify(outcome))));
    const target = functions.get(name);
    if (!target) return complete({ ErrorCode: 'Unhandled', ErrorDetails: `${name} crashed` });
    try {
      const { streamed } = await target.invokeStreaming(JSON.parse(body.toString('utf8')));
      for (let at = 0; at < streamed.body.length; at += CHUNK_BYTES) {
        res.write(event('PayloadChunk', streamed.body.subarray(at, at + CHUNK_BYTES)));
      }
      complete({});
    } catch (error) {
      complete({ ErrorCode: 'Unhandled', ErrorDetails: String(error) });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
