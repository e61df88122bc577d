/**
 * The batch queues' sending on the wire (shared/batches/batch-queue.ts over sqs-client.ts): each
 * SendMessageBatch is signed as the environment's role (test/support/sigv4-oracle.ts recomputes the
 * signature from what arrived) and says what the AWS SDK's own SQS client says for the same input,
 * the control; entries SQS reports failed are sent again, alone; a throttled call is repeated as the
 * SDK's standard retry strategy would, a refused one is not. start:synth's black-box tests run the
 * same client against the SQS emulation, between the real functions.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { batchGroupMembers } from '../../schemas/functions.js';
import { BatchQueues, EnqueueError, sqsClient } from '../../shared/batches/batch-queue.js';
import { AwsServiceError } from '../../shared/net/aws-http.js';
import { type CapturedRequest, environmentRole, signatureHolds } from '../support/sigv4-oracle.js';
import { type SqsEndpoint, startSqsEndpoint } from '../support/sqs-endpoint.js';

const REGION = 'eu-west-3';
const ROLE = {
  accessKeyId: 'ASIAQUEUESENDER00001',
  secretAccessKey: 'c2VjcmV0IG9mIHRoZSBxdWV1ZSBzZW5kZXIgcm9sZQ',
  sessionToken: 'IQoJb3JpZ2luX2VjEQUEUES',
};
const QUEUE_URL = 'https://sqs.eu-west-3.amazonaws.com/123456789012/lookup-batch-profiles';
const [[group, members] = ['', []]] = [...batchGroupMembers()];
const operation = members[0]?.id ?? '';
const batch = { batchId: 'bat_0123456789abcdefABCD', operation };

let sqs: SqsEndpoint;
let queues: BatchQueues;
environmentRole(ROLE);

beforeAll(async () => {
  sqs = await startSqsEndpoint();
  const client = sqsClient({ AWS_REGION: REGION, SQS_ENDPOINT: sqs.url });
  queues = new BatchQueues(client, new Map([[group, QUEUE_URL]]), members);
});
afterAll(() => sqs.close());
afterEach(() => {
  sqs.captured.length = 0;
  sqs.replies.length = 0;
});

const bodyOf = (request: CapturedRequest) => JSON.parse(request.body) as Record<string, unknown>;

describe('a SendMessageBatch', () => {
  it('goes out per ten items, signed as the environment’s role, saying what the SDK’s client says', async () => {
    await queues.enqueue(
      batch,
      Array.from({ length: 12 }, (_, index) => index),
      30,
    );
    expect(sqs.captured).toHaveLength(2);
    const [first, second] = sqs.captured as [CapturedRequest, CapturedRequest];
    const entries = [first, second].flatMap((request) => bodyOf(request).Entries as { Id: string }[]);
    expect(entries.map((entry) => entry.Id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 12 }, (_, index) => String(index)),
    );
    expect(first.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
    expect(first.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(first.headers['x-amz-security-token']).toBe(ROLE.sessionToken);
    const scope = { service: 'sqs', region: REGION };
    expect(await signatureHolds(first, ROLE, scope)).toBe(true);
    expect(await signatureHolds({ ...first, body: first.body.replace('"0"', '"9"') }, ROLE, scope)).toBe(
      false,
    );
    expect(await signatureHolds(first, ROLE, { ...scope, service: 'dynamodb' })).toBe(false);

    // The control: the SDK's own client sending the same input to the same endpoint.
    const ours = bodyOf(first);
    const sdk = new SQSClient({ region: REGION, endpoint: sqs.url, credentials: ROLE });
    await sdk.send(new SendMessageBatchCommand(ours as never));
    sdk.destroy();
    const control = sqs.captured[2] as CapturedRequest;
    expect(control.headers['x-amz-target']).toBe(first.headers['x-amz-target']);
    expect(control.headers['content-type']).toBe(first.headers['content-type']);
    expect(bodyOf(control)).toEqual(ours);
    expect(ours.QueueUrl).toBe(QUEUE_URL);
    expect((ours.Entries as unknown[])[0]).toEqual({
      Id: '0',
      MessageBody: JSON.stringify({ batchId: batch.batchId, index: 0 }),
      DelaySeconds: 30,
    });
  });

  it('sends again, alone, the entries SQS reports failed', async () => {
    sqs.replies.push({
      status: 200,
      body: {
        Successful: [{ Id: '0', MessageId: 'm0', MD5OfMessageBody: 'x' }],
        Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }],
      },
    });
    await queues.enqueue(batch, [0, 1]);
    expect(
      sqs.captured.map((request) => (bodyOf(request).Entries as { Id: string }[]).map((entry) => entry.Id)),
    ).toEqual([['0', '1'], ['1']]);
  });

  it('is repeated after throttling, as the SDK’s standard retry strategy would', async () => {
    sqs.replies.push({
      status: 400,
      body: { __type: 'com.amazonaws.sqs#RequestThrottled', message: 'slow down' },
    });
    await queues.enqueue(batch, [0]);
    expect(sqs.captured).toHaveLength(2);
    expect(sqs.captured[1]?.body).toBe(sqs.captured[0]?.body);
  });

  it('is not repeated when SQS refuses it; the items are reported unsent with SQS’s error', async () => {
    sqs.replies.push({
      status: 400,
      body: { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' },
    });
    const error = await queues.enqueue(batch, [4, 5]).catch((caught: unknown) => caught);
    expect(sqs.captured).toHaveLength(1);
    expect(error).toBeInstanceOf(EnqueueError);
    expect((error as EnqueueError).unsent).toEqual([4, 5]);
    const cause = (error as EnqueueError).cause;
    expect(cause).toBeInstanceOf(AwsServiceError);
    expect((cause as AwsServiceError).name).toBe('QueueDoesNotExist');
    expect((cause as AwsServiceError).message).toBe('The specified queue does not exist.');
  });
});
