/**
 * /mcp's Lambda invoke (functions/lambda/lambda-streaming-invoker.ts) against a loopback stand-in of
 * Lambda's InvokeWithResponseStream, whose events are framed by the AWS SDK's own event-stream codec:
 * the request is signed as SigV4 requires (test/support/sigv4-oracle.ts), the answer is reassembled
 * from events however the bytes arrive, each event is yielded as it arrives, and every way an
 * invoke fails reaches the dispatcher as the right tool error: 503 before the function could have
 * answered, internal_error once it did.
 */
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { EventStreamCodec, Int64 } from '@smithy/core/event-streams';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LambdaStreamingInvoker } from '../../functions/lambda/lambda-streaming-invoker.js';
import { LambdaToolDispatcher } from '../../functions/lambda/lambda-tool-dispatcher.js';
import { streamEvent } from '../../local-aws/lambda-and-secrets-api.js';
import { type LoopbackEndpoint, listenOnLoopback } from '../../local-aws/loopback.js';
import { catalog } from '../../schemas/catalog.js';
import { createLogger } from '../../shared/logger.js';
import { buildToolCatalog } from '../../shared/mcp/tool-catalog.js';
import { AwsServiceError } from '../../shared/net/aws-http.js';
import { describedOperations } from '../../shared/pipeline/operation.js';
import {
  type CapturedRequest,
  captureRequest,
  environmentRole,
  signatureHolds,
} from '../support/sigv4-oracle.js';

const REGION = 'eu-west-3';
const ROLE = {
  accessKeyId: 'ASIAMCPROLE',
  secretAccessKey: 'mcp-role-secret',
  sessionToken: 'mcp-role-token',
};

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** An event-stream message with the given headers (an exception, an event of a type yet unknown). */
const message = (headers: Record<string, string>, body: object) =>
  codec.encode({
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, { type: 'string' as const, value }]),
    ),
    body: Buffer.from(JSON.stringify(body)),
  });

const chunk = (text: string) => streamEvent('PayloadChunk', Buffer.from(text));
const complete = (outcome: object = {}) =>
  streamEvent('InvokeComplete', Buffer.from(JSON.stringify(outcome)));

let answer: (res: ServerResponse) => unknown;
const captured: CapturedRequest[] = [];
const server = createServer(async (req, res) => {
  captured.push(await captureRequest(req));
  await answer(res);
});
let endpoint: LoopbackEndpoint;
let invoker: LambdaStreamingInvoker;
environmentRole(ROLE);

beforeAll(async () => {
  endpoint = await listenOnLoopback(server);
  invoker = new LambdaStreamingInvoker({ region: REGION, endpoint: endpoint.url });
});
afterAll(async () => {
  await endpoint.close();
});
afterEach(() => {
  captured.length = 0;
});

const streaming = (res: ServerResponse) =>
  res.writeHead(200, { 'Content-Type': 'application/vnd.amazon.eventstream' });

/** Every event of an invoke, and the error it ended with (if any). */
async function drain(functionName = 'lookup-mcp-group-profiles', payload = '{"tool":"x"}') {
  const events: unknown[] = [];
  try {
    for await (const event of invoker.invoke(functionName, Buffer.from(payload))) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

describe('the invoke request', () => {
  it('is signed as the environment’s role, the function named in its path even as an ARN', async () => {
    answer = (res) => streaming(res).end(complete());
    const arn = 'arn:aws:lambda:eu-west-3:123456789012:function:lookup-mcp-group-profiles';
    await drain(arn, '{"tool":"get_profile"}');
    const [sent] = captured;
    if (!sent) throw new Error('nothing arrived');
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe(`/2021-11-15/functions/${encodeURIComponent(arn)}/response-streaming-invocations`);
    expect(sent.body).toBe('{"tool":"get_profile"}');
    expect(sent.headers['x-amz-security-token']).toBe(ROLE.sessionToken);
    expect(String(sent.headers.authorization)).toContain(`Credential=${ROLE.accessKeyId}/`);
    const scope = { service: 'lambda', region: REGION };
    expect(await signatureHolds(sent, ROLE, scope)).toBe(true);
    expect(await signatureHolds({ ...sent, body: '{"tool":"other"}' }, ROLE, scope)).toBe(false);
    expect(await signatureHolds(sent, ROLE, { ...scope, service: 'dynamodb' })).toBe(false);
  });
});

describe('the answer', () => {
  it('is reassembled from its events in order, however its bytes are split', async () => {
    const bytes = Buffer.concat([chunk('{"resp'), chunk('onse":'), chunk('1}'), complete()]);
    answer = async (res) => {
      streaming(res);
      // Seven bytes at a time: every event arrives in pieces, some pieces hold two events' bytes.
      for (let at = 0; at < bytes.length; at += 7) {
        res.write(bytes.subarray(at, at + 7));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    };
    const { events, error } = await drain();
    expect(error).toBeUndefined();
    const payload = events.flatMap((event) => {
      const piece = (event as { PayloadChunk?: { Payload: Uint8Array } }).PayloadChunk?.Payload;
      return piece ? [Buffer.from(piece)] : [];
    });
    expect(Buffer.concat(payload).toString('utf8')).toBe('{"response":1}');
    expect(events.at(-1)).toEqual({ InvokeComplete: {} });
  });

  it('yields each event as it arrives, before the answer has ended', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    answer = async (res) => {
      streaming(res).write(chunk('first'));
      await held;
      res.end(complete());
    };
    const iterator = invoker.invoke('lookup-mcp-group-profiles', Buffer.from('{}'));
    const first = await iterator.next();
    expect(
      Buffer.from((first.value as { PayloadChunk: { Payload: Uint8Array } }).PayloadChunk.Payload).toString(),
    ).toBe('first');
    release();
    expect((await iterator.next()).value).toEqual({ InvokeComplete: {} });
    expect((await iterator.next()).done).toBe(true);
  });

  it('reads an event whose headers hold every value type of the framing', async () => {
    const event = codec.encode({
      headers: {
        ':message-type': { type: 'string', value: 'event' },
        flag: { type: 'boolean', value: true },
        off: { type: 'boolean', value: false },
        small: { type: 'byte', value: 7 },
        short: { type: 'short', value: 300 },
        int: { type: 'integer', value: 70_000 },
        long: { type: 'long', value: Int64.fromNumber(2 ** 40) },
        bytes: { type: 'binary', value: new Uint8Array([1, 2, 3]) },
        at: { type: 'timestamp', value: new Date('2026-11-27T00:00:00Z') },
        id: { type: 'uuid', value: '00112233-4455-6677-8899-aabbccddeeff' },
        ':event-type': { type: 'string', value: 'PayloadChunk' },
      },
      body: Buffer.from('after every type'),
    });
    answer = (res) => streaming(res).end(Buffer.concat([event, complete()]));
    const { events, error } = await drain();
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { PayloadChunk: { Payload: Buffer.from('after every type') } },
      { InvokeComplete: {} },
    ]);
  });

  it('reports the function’s failure as InvokeComplete’s error code, and skips an event of a type it does not know', async () => {
    answer = (res) =>
      streaming(res).end(
        Buffer.concat([
          message({ ':message-type': 'event', ':event-type': 'SomethingNew' }, {}),
          complete({ ErrorCode: 'Unhandled', ErrorDetails: 'the group crashed' }),
        ]),
      );
    const { events, error } = await drain();
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { InvokeComplete: { ErrorCode: 'Unhandled', ErrorDetails: 'the group crashed' } },
    ]);
  });
});

// Each row: how the invoke fails, the events that arrived before, the error's name.
describe.each([
  [
    'a refusal before the stream (no such function)',
    (res: ServerResponse) =>
      res
        .writeHead(404, {
          'Content-Type': 'application/json',
          'X-Amzn-ErrorType':
            'ResourceNotFoundException:http://internal.amazon.com/coral/com.amazonaws.awslambda/',
        })
        .end(JSON.stringify({ Type: 'User', Message: 'Function not found: lookup-x' })),
    0,
    'ResourceNotFoundException',
  ],
  [
    'a refusal that is not JSON (a proxy’s page)',
    (res: ServerResponse) => res.writeHead(502, { 'Content-Type': 'text/html' }).end('<h1>Bad gateway</h1>'),
    0,
    'Http502',
  ],
  [
    'an exception event after a chunk',
    (res: ServerResponse) =>
      streaming(res).end(
        Buffer.concat([
          chunk('{"partial":'),
          message(
            { ':message-type': 'exception', ':exception-type': 'ServiceException' },
            { message: 'stream broke' },
          ),
        ]),
      ),
    1,
    'ServiceException',
  ],
  [
    'a connection cut after a chunk',
    (res: ServerResponse) => {
      streaming(res).write(chunk('{"partial":'));
      setTimeout(() => res.socket?.destroy(), 20);
    },
    1,
    undefined,
  ],
  [
    'an event whose checksum does not hold',
    (res: ServerResponse) => {
      const corrupted = Buffer.from(chunk('{"b":2}'));
      const at = corrupted.length - 6;
      corrupted.writeUInt8(corrupted.readUInt8(at) ^ 1, at);
      streaming(res).end(Buffer.concat([chunk('{"a":1}'), corrupted, complete()]));
    },
    1,
    undefined,
  ],
  [
    'an answer that ends inside an event',
    (res: ServerResponse) =>
      streaming(res).end(Buffer.concat([chunk('{"a":1}'), complete().subarray(0, 10)])),
    1,
    undefined,
  ],
])('%s', (_, reply, eventsBefore, name) => {
  it('ends the invoke with an error after the events that arrived', async () => {
    answer = reply;
    const { events, error } = await drain();
    expect(events).toHaveLength(eventsBefore);
    expect(error).toBeInstanceOf(Error);
    if (name) {
      expect(error).toBeInstanceOf(AwsServiceError);
      expect((error as AwsServiceError).name).toBe(name);
    }
  });

  it('reaches the tool as 503 before any chunk, internal_error after one', async () => {
    answer = reply;
    const tools = buildToolCatalog(describedOperations(catalog, {}));
    const [tool, entry] =
      [...tools.entries()].find(([, candidate]) => candidate.operation.definition.group) ?? [];
    if (!tool || !entry) throw new Error('no tool with a group');
    const dispatcher = new LambdaToolDispatcher(
      tools,
      new Map([[entry.operation.definition.group as string, 'lookup-group']]),
      invoker,
      createLogger('silent'),
    );
    const outcome = await dispatcher.dispatch({
      tool,
      arguments: {},
      // Forwarded as it is, never read here.
      principal: {} as never,
      requestId: 'req_invoke_failure_0001',
    });
    const code = (outcome.response.body as { error: { code: string } }).error.code;
    expect([outcome.response.status, code]).toEqual(
      eventsBefore === 0 ? [503, 'service_unavailable'] : [500, 'internal_error'],
    );
    expect(outcome.creditCost).toBeUndefined();
  });
});
