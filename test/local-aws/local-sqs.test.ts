/**
 * start:synth's SQS, on a hand-written assembly (a queue with a redrive policy to a dead-letter queue,
 * an event source mapping reporting item failures, the function's grants) served in-process: the
 * endpoint through the real `@aws-sdk/client-sqs` (send, receive, visibility, delete, redrive, SQS's
 * errors), the queue URLs the functions' environment resolves to, and the mapping's pollers invoking
 * a real function process (lambda-instance.ts) that fails one record of a batch, or throws.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeployment } from '../../local-aws/cloud-assembly/read-deployment.js';
import type { Deployment } from '../../local-aws/deployment-model.js';
import { FunctionHost } from '../../local-aws/function-host.js';
import { localSqs } from '../../local-aws/local-sqs.js';
import { type LoopbackEndpoint, listenOnLoopback } from '../../local-aws/loopback.js';
import { startQueuePollers } from '../../local-aws/queue-pollers.js';
import { SqsQueues } from '../../local-aws/sqs-queue.js';
import { createLogger } from '../../shared/logger.js';
import { writeAssembly } from '../support/cloud-assembly-fixture.js';

const ACCOUNT = '123456789012';
const OPERATOR_KEY = 'AKIAFIXTUREOPERATOR0';
const scratch = mkdtempSync(join(tmpdir(), 'local-sqs-'));
const eventsFile = join(scratch, 'events.jsonl');

/** Fails the records whose body is "poison"; throws (failing the batch) when one says "throw". */
const FUNCTION_CODE = `
import { appendFileSync } from 'node:fs';
export const handler = async (event) => {
  appendFileSync(process.env.EVENTS_FILE, JSON.stringify(event) + '\\n');
  if (event.Records.some((record) => record.body === 'throw')) throw new Error('the whole batch fails');
  return {
    batchItemFailures: event.Records.filter((record) => record.body === 'poison').map((record) => ({
      itemIdentifier: record.messageId,
    })),
  };
};
`;

const queueArn = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });
/** Work (polled by the function) and Plain (not polled), each redriven to DeadLetters after 2 receives. */
const queue = (VisibilityTimeout: number) => ({
  Type: 'AWS::SQS::Queue',
  Properties: {
    VisibilityTimeout,
    RedrivePolicy: { deadLetterTargetArn: queueArn('DeadLetters'), maxReceiveCount: 2 },
  },
});

let endpoint: LoopbackEndpoint;
let deployment: Deployment;
let queues: SqsQueues;
let host: FunctionHost;
const stopLongPolls = new AbortController();
const logger = createLogger('silent');

beforeAll(async () => {
  const server = createServer();
  endpoint = await listenOnLoopback(server);
  const assembly = writeAssembly(scratch, {
    code: FUNCTION_CODE,
    functionProperties: { Timeout: 1 },
    variables: {
      EVENTS_FILE: eventsFile,
      WORK_QUEUE_URL: { Ref: 'Work' },
      WORK_QUEUE_NAME: { 'Fn::GetAtt': ['Work', 'QueueName'] },
      DEAD_LETTERS_URL: { 'Fn::GetAtt': ['DeadLetters', 'QueueUrl'] },
    },
    resources: {
      // Longer than a cold start on a busy machine: a batch is not delivered twice while it starts.
      Work: queue(3),
      Plain: queue(30),
      DeadLetters: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'fixture-dead-letters' } },
      Consume: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: {
            Statement: [
              {
                Effect: 'Allow',
                Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
                Resource: queueArn('Work'),
              },
            ],
          },
        },
      },
      Mapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: queueArn('Work'),
          FunctionName: { Ref: 'Fn' },
          BatchSize: 10,
          MaximumBatchingWindowInSeconds: 1,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: 2 },
        },
      },
    },
  });
  deployment = readDeployment(assembly, { queueEndpoint: endpoint.url });
  queues = new SqsQueues(deployment.queues);
  host = new FunctionHost({
    deployment,
    workDirectory: join(scratch, 'work'),
    logger,
    environmentFor: () => ({ SQS_ENDPOINT: endpoint.url }),
  });
  const serve = localSqs({
    deployment,
    queues,
    host,
    operatorAccessKeyId: OPERATOR_KEY,
    logger,
    signal: stopLongPolls.signal,
  });
  server.on('request', (req, res) => void serve(req, res));
});

afterAll(async () => {
  stopLongPolls.abort();
  await host?.close();
  await endpoint?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const clientAs = (accessKeyId: string) =>
  new SQSClient({
    endpoint: endpoint.url,
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey: 'unused' },
    maxAttempts: 1,
  });
const urlOf = (name: string) => deployment.queues.find((candidate) => candidate.name === name)?.url as string;
const nameOf = (logicalIdPrefix: string) =>
  deployment.queues.find((candidate) => candidate.name.startsWith(`Fixture-${logicalIdPrefix}-`))
    ?.name as string;

async function visibleCount(sqs: SQSClient, url: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages);
}

async function eventually(check: () => Promise<boolean> | boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the queues of the templates', () => {
  it("resolves Ref, QueueUrl and QueueName in a function's environment to the local endpoint's queues", () => {
    const work = nameOf('Work');
    expect(work).toMatch(/^Fixture-Work-[0-9A-F]{12}$/);
    expect(deployment.functions[0]?.environment).toMatchObject({
      WORK_QUEUE_URL: `${endpoint.url}/${ACCOUNT}/${work}`,
      WORK_QUEUE_NAME: work,
      DEAD_LETTERS_URL: `${endpoint.url}/${ACCOUNT}/fixture-dead-letters`,
    });
    expect(deployment.queueEventSources).toEqual([
      {
        queueArn: `arn:aws:sqs:us-east-1:${ACCOUNT}:${work}`,
        functionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:fixture-function`,
        batchSize: 10,
        maximumBatchingWindowSeconds: 1,
        reportBatchItemFailures: true,
        maximumConcurrency: 2,
      },
    ]);
  });
});

describe('the SQS endpoint, through @aws-sdk/client-sqs', () => {
  const sqs = () => clientAs(OPERATOR_KEY);

  it('sends, receives under a visibility timeout, makes visible again and deletes only with the latest handle', async () => {
    const client = sqs();
    const url = urlOf(nameOf('Plain'));
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: nameOf('Plain') }));
    expect(QueueUrl).toBe(url);
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: '{"item":1}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'lookup' } },
      }),
    );
    expect(await visibleCount(client, url)).toBe(1);
    const first = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    expect(first.Messages).toEqual([
      expect.objectContaining({
        MessageId: sent.MessageId,
        Body: '{"item":1}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'lookup' } },
        Attributes: expect.objectContaining({ ApproximateReceiveCount: '1' }),
      }),
    ]);
    // In flight for the queue's 30 s: nobody else receives it.
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? []).toEqual([]);
    const firstHandle = first.Messages?.[0]?.ReceiptHandle as string;
    await client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: firstHandle, VisibilityTimeout: 0 }),
    );
    const second = await client.send(new ReceiveMessageCommand({ QueueUrl: url, AttributeNames: ['All'] }));
    expect(second.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
    // The first handle is stale: it deletes nothing (as SQS documents), the latest one deletes.
    await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: firstHandle }));
    await expect(
      client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: firstHandle,
          VisibilityTimeout: 0,
        }),
      ),
    ).rejects.toMatchObject({ name: 'MessageNotInflight' });
    await client.send(
      new DeleteMessageCommand({
        QueueUrl: url,
        ReceiptHandle: second.Messages?.[0]?.ReceiptHandle as string,
      }),
    );
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
    );
    expect(Attributes).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      VisibilityTimeout: '30',
    });
    client.destroy();
  });

  it('holds a delayed message back, and a long poll receives it when it is due', async () => {
    const client = sqs();
    const url = urlOf(nameOf('Plain'));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'later', DelaySeconds: 1 }));
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? []).toEqual([]);
    const started = Date.now();
    const { Messages } = await client.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 10 }));
    expect(Messages?.map((message) => message.Body)).toEqual(['later']);
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.send(
      new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: Messages?.[0]?.ReceiptHandle as string }),
    );
    client.destroy();
  });

  it('moves a message received maxReceiveCount times to the dead-letter queue, same id and body', async () => {
    const client = sqs();
    const url = urlOf(nameOf('Plain'));
    const dead = urlOf('fixture-dead-letters');
    const sent = await client.send(
      new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', MessageBody: 'unlucky' }] }),
    );
    for (const count of ['1', '2']) {
      const { Messages } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          VisibilityTimeout: 0,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      expect(Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe(count);
    }
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? []).toEqual([]);
    const { Messages } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: dead, MaxNumberOfMessages: 10 }),
    );
    expect(Messages?.map(({ MessageId, Body }) => ({ MessageId, Body }))).toEqual([
      { MessageId: sent.Successful?.[0]?.MessageId, Body: 'unlucky' },
    ]);
    const deleted = await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: dead,
        Entries: [
          { Id: 'kept', ReceiptHandle: Messages?.[0]?.ReceiptHandle as string },
          { Id: 'forged', ReceiptHandle: 'not-a-handle' },
        ],
      }),
    );
    expect(deleted.Successful?.map(({ Id }) => Id)).toEqual(['kept']);
    expect(deleted.Failed).toEqual([
      expect.objectContaining({ Id: 'forged', Code: 'ReceiptHandleIsInvalid' }),
    ]);
    expect(await visibleCount(client, dead)).toBe(0);
    client.destroy();
  });

  it("answers with SQS's own errors", async () => {
    const client = sqs();
    const url = urlOf(nameOf('Plain'));
    await expect(
      client.send(
        new SendMessageCommand({ QueueUrl: `${endpoint.url}/${ACCOUNT}/no-such-queue`, MessageBody: 'x' }),
      ),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
    await expect(
      client.send(new GetQueueAttributesCommand({ QueueUrl: 'not a url [', AttributeNames: ['All'] })),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
    await expect(
      client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '' })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(
      client.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: [
            { Id: 'same', MessageBody: 'a' },
            { Id: 'same', MessageBody: 'b' },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'BatchEntryIdsNotDistinct' });
    await expect(
      client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: 'forged' })),
    ).rejects.toMatchObject({
      name: 'ReceiptHandleIsInvalid',
    });
    const stranger = clientAs('AKIAUNKNOWNCALLER000');
    await expect(
      stranger.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' })),
    ).rejects.toMatchObject({
      name: 'InvalidClientTokenId',
    });
    stranger.destroy();
    client.destroy();
  });
});

describe('the event source mapping', () => {
  interface SqsRecord {
    messageId: string;
    body: string;
    eventSource: string;
    eventSourceARN: string;
    awsRegion: string;
    attributes: { ApproximateReceiveCount: string };
  }
  const events = (): { Records: SqsRecord[] }[] => {
    try {
      return readFileSync(eventsFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    } catch {
      return [];
    }
  };
  const deliveries = (body: string) =>
    events().flatMap(({ Records }) => Records.filter((record) => record.body === body));
  let stopPollers: () => Promise<void>;
  beforeAll(() => {
    stopPollers = startQueuePollers({ deployment, queues, host, logger });
  });
  afterAll(() => stopPollers?.());

  it('deletes the records that succeeded and leaves a reported failure to the dead-letter queue', async () => {
    const client = clientAs(OPERATOR_KEY);
    const work = urlOf(nameOf('Work'));
    const sent = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: work,
        Entries: ['good-1', 'poison', 'good-2'].map((body, index) => ({
          Id: `m${index}`,
          MessageBody: body,
        })),
      }),
    );
    const poisonId = sent.Successful?.find(({ Id }) => Id === 'm1')?.MessageId;
    const dead = urlOf('fixture-dead-letters');
    const deadLetters: string[] = [];
    await eventually(async () => {
      const { Messages } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: dead, VisibilityTimeout: 60 }),
      );
      deadLetters.push(...(Messages ?? []).map((message) => message.MessageId as string));
      return deadLetters.length > 0;
    }, 20_000);
    expect(deadLetters).toEqual([poisonId]);
    // Each good record was delivered once (then deleted), the poison one twice (maxReceiveCount).
    expect(deliveries('good-1')).toHaveLength(1);
    expect(deliveries('good-2')).toHaveLength(1);
    expect(deliveries('poison').map((record) => record.attributes.ApproximateReceiveCount)).toEqual([
      '1',
      '2',
    ]);
    const [first] = events();
    expect(first?.Records.map((record) => record.body).sort()).toEqual(['good-1', 'good-2', 'poison']);
    expect(first?.Records[0]).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:${ACCOUNT}:${nameOf('Work')}`,
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(await visibleCount(client, work)).toBe(0);
    client.destroy();
  }, 30_000);

  it('fails the whole batch when the function throws: every record is redriven', async () => {
    const client = clientAs(OPERATOR_KEY);
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: urlOf(nameOf('Work')),
        Entries: [
          { Id: 'fine', MessageBody: 'fine' },
          { Id: 'throw', MessageBody: 'throw' },
        ],
      }),
    );
    const dead = urlOf('fixture-dead-letters');
    const bodies: string[] = [];
    await eventually(async () => {
      const { Messages } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: dead, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
      );
      bodies.push(...(Messages ?? []).map((message) => message.Body as string));
      return bodies.length >= 2;
    }, 20_000);
    expect(bodies.sort()).toEqual(['fine', 'throw']);
    expect(deliveries('fine')).toHaveLength(2);
    client.destroy();
  }, 30_000);

  it('stops its pollers when asked', async () => {
    const started = Date.now();
    await stopPollers();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
