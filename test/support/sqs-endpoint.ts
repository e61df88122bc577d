/**
 * A loopback stand-in for the one SQS call the functions make (SendMessageBatch, AWS JSON 1.0 over
 * HTTP), for SQS_ENDPOINT: every request as it arrived, answered with the next scripted reply, or
 * else with every entry taken, as SQS answers a batch it took whole.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { type LoopbackEndpoint, listenOnLoopback } from '../../local-aws/loopback.js';
import { type CapturedRequest, captureRequest } from './sigv4-oracle.js';

export interface SqsEndpoint extends LoopbackEndpoint {
  /** The requests so far, in order. */
  captured: CapturedRequest[];
  /** Replies for the next requests, in order (a status and a JSON body). */
  replies: { status: number; body: unknown }[];
}

export async function startSqsEndpoint(): Promise<SqsEndpoint> {
  const captured: CapturedRequest[] = [];
  const replies: { status: number; body: unknown }[] = [];
  const server = createServer(async (request, response) => {
    const arrived = await captureRequest(request);
    captured.push(arrived);
    const reply = replies.shift() ?? { status: 200, body: everyEntryTaken(arrived.body) };
    response
      .writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0' })
      .end(JSON.stringify(reply.body));
  });
  const endpoint = await listenOnLoopback(server);
  return Object.assign(endpoint, { captured, replies });
}

/** SQS's answer to a batch it took whole: each entry's message id and its body's MD5, which the SDK checks. */
function everyEntryTaken(body: string) {
  const { Entries = [] } = JSON.parse(body || '{}') as { Entries?: { Id: string; MessageBody: string }[] };
  return {
    Successful: Entries.map(({ Id, MessageBody }, index) => ({
      Id,
      MessageId: `message-${index}`,
      MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex'),
    })),
    Failed: [],
  };
}
