/**
 * Lambda's InvokeWithResponseStream, over signed HTTP (shared/net/aws-http.ts) instead of the AWS
 * SDK's Lambda client: /mcp's one AWS call, and with the store's DynamoDB client already its own, the
 * SDK's client was the last piece of the SDK's runtime /mcp loaded at start (about 270 KB of its
 * cold start; docs/benchmarks.md). The answer's events are decoded here (AWS's event-stream framing
 * is a length, headers, a payload and two CRC32s; the SDK's codec sits behind a barrel that loads
 * its whole runtime) into the SDK's shapes (`PayloadChunk.Payload`, `InvokeComplete`), as they
 * arrive, so a caller can tell an answer cut off after its first chunk from a call that never
 * started. The tests frame every answer with the SDK's own codec.
 *
 * No retries (the SDK client was built with maxAttempts 1): an invoke that failed in transit may have
 * run, and a retry would bill the call twice.
 */
import type { IncomingMessage } from 'node:http';
import { text } from 'node:stream/consumers';
import { crc32 } from 'node:zlib';
import { AwsHttp, AwsServiceError } from '../../shared/net/aws-http.js';

/** One event of the answer, as the SDK's `InvokeWithResponseStreamResponseEvent`. */
export type InvocationEvent =
  | { PayloadChunk: { Payload: Uint8Array }; InvokeComplete?: undefined }
  | {
      InvokeComplete: { ErrorCode?: string; ErrorDetails?: string; LogResult?: string };
      PayloadChunk?: undefined;
    };

export class LambdaStreamingInvoker {
  private readonly http: AwsHttp;

  /** `endpoint`: unset on AWS (the region's Lambda endpoint); start:synth and the tests give theirs. */
  constructor(options: { region: string; endpoint?: string }) {
    this.http = new AwsHttp({ service: 'lambda', credentials: 'environment', ...options });
  }

  /** Invokes `functionName` with `payload`; yields the events of its answer as they arrive. */
  async *invoke(functionName: string, payload: Buffer): AsyncGenerator<InvocationEvent> {
    const response = await this.http.send({
      method: 'POST',
      path: `/2021-11-15/functions/${encodeURIComponent(functionName)}/response-streaming-invocations`,
      headers: { 'content-type': 'application/octet-stream' },
      body: payload,
    });
    if (response.statusCode !== 200) throw await refusal(response);
    let pending: Buffer = Buffer.alloc(0);
    for await (const data of response) {
      pending = pending.length === 0 ? (data as Buffer) : Buffer.concat([pending, data as Buffer]);
      // Each message opens with its total length; decode every message that has fully arrived.
      while (pending.length >= 4 && pending.length >= pending.readUInt32BE(0)) {
        const length = pending.readUInt32BE(0);
        const event = eventOf(decodeMessage(pending.subarray(0, length)));
        pending = pending.subarray(length);
        if (event) yield event;
      }
    }
    if (pending.length > 0) throw new Error('the answer ended inside an event');
  }
}

async function refusal(response: IncomingMessage): Promise<AwsServiceError> {
  const status = response.statusCode ?? 0;
  const answer = await text(response);
  let body: { message?: unknown; Message?: unknown } = {};
  try {
    body = JSON.parse(answer) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status alone names it.
  }
  // `X-Amzn-ErrorType: ResourceNotFoundException:http://internal.amazon.com/…`: the code before `:`.
  const code = String(response.headers['x-amzn-errortype'] ?? '').split(':')[0] || `Http${status}`;
  const message = body.message ?? body.Message;
  return new AwsServiceError(code, typeof message === 'string' ? message : code, status);
}

/** The event a message carries; undefined for an event type this code does not know (the SDK skips those too). */
function eventOf(message: EventMessage): InvocationEvent | undefined {
  const header = (name: string) => message.headers.get(name);
  const type = header(':message-type');
  if (type === 'exception') {
    const detail = JSON.parse(Buffer.from(message.body).toString('utf8') || '{}') as { message?: string };
    const code = header(':exception-type') ?? 'UnknownException';
    throw new AwsServiceError(code, detail.message ?? code, 200);
  }
  if (type === 'error') {
    const code = header(':error-code') ?? 'UnknownError';
    throw new AwsServiceError(code, header(':error-message') ?? code, 200);
  }
  switch (header(':event-type')) {
    case 'PayloadChunk':
      return { PayloadChunk: { Payload: message.body } };
    case 'InvokeComplete':
      return { InvokeComplete: JSON.parse(Buffer.from(message.body).toString('utf8') || '{}') };
    default:
      return undefined;
  }
}

/** An event-stream message: its string-valued headers (the only kind Lambda's events use) and payload. */
interface EventMessage {
  headers: Map<string, string>;
  body: Buffer;
}

/** Bytes of each header value type of the framing, after the type byte; -1: a 2-byte length, then that many. */
const HEADER_VALUE_BYTES = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];
const STRING_HEADER = 7;

/**
 * One whole message: total length (4 bytes), headers' length (4), the CRC32 of those 8, the headers,
 * the payload, and the CRC32 of everything before it. A checksum that does not hold is an error.
 */
function decodeMessage(message: Buffer): EventMessage {
  const headersLength = message.readUInt32BE(4);
  if (message.length < 16 + headersLength || message.readUInt32BE(8) !== crc32(message.subarray(0, 8))) {
    throw new Error('an event whose prelude does not hold');
  }
  if (message.readUInt32BE(message.length - 4) !== crc32(message.subarray(0, message.length - 4))) {
    throw new Error('an event whose checksum does not hold');
  }
  const headers = new Map<string, string>();
  const end = 12 + headersLength;
  let at = 12;
  while (at < end) {
    const nameLength = message.readUInt8(at);
    const name = message.toString('utf8', at + 1, at + 1 + nameLength);
    const type = message.readUInt8(at + 1 + nameLength);
    at += 2 + nameLength;
    const size = HEADER_VALUE_BYTES[type];
    if (size === undefined) throw new Error(`an event header of an unknown type: ${type}`);
    if (size >= 0) {
      at += size;
      continue;
    }
    const valueLength = message.readUInt16BE(at);
    if (type === STRING_HEADER) headers.set(name, message.toString('utf8', at + 2, at + 2 + valueLength));
    at += 2 + valueLength;
  }
  return { headers, body: message.subarray(end, message.length - 4) };
}
