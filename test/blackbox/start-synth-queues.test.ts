/**
 * `npm run start:synth` on a small assembly with queues (START_SYNTH_CDK_OUT): a work queue redriven
 * to a dead-letter queue after 2 receives, a results queue, and an event source mapping (reporting
 * item failures) on a function that forwards each JSON record to the results queue through
 * SQS_ENDPOINT, signed with its role's key as the SDK would, and reports anything else as failed. A
 * client sends with the real `@aws-sdk/client-sqs` as the operator: the good records come out as
 * results, the poisoned one lands in the dead-letter queue. The same path the batch queues of the
 * real templates take (issue 28); the batch test through them waits for those templates.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAssembly } from '../support/cloud-assembly-fixture.js';
import { cleanUpProcesses, freshDataDir, type RunningServer, startServer } from '../support/processes.js';

const SCRIPT = 'functions/local/start-synth.ts';

/** Forwards each JSON body to the results queue; a body that is not JSON is a failed item. */
const FUNCTION_CODE = `
export const handler = async (event) => {
  const batchItemFailures = [];
  for (const record of event.Records) {
    let item;
    try {
      item = JSON.parse(record.body);
    } catch {
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    const response = await fetch(process.env.SQS_ENDPOINT, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.SendMessage',
        authorization: 'AWS4-HMAC-SHA256 Credential=' + process.env.AWS_ACCESS_KEY_ID + '/local/sqs/aws4_request',
      },
      body: JSON.stringify({ QueueUrl: process.env.RESULTS_URL, MessageBody: JSON.stringify({ ...item, done: true }) }),
    });
    if (!response.ok) throw new Error('SendMessage answered ' + response.status + ' ' + (await response.text()));
  }
  return { batchItemFailures };
};
`;

const queueArn = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

let scratch: string;
let service: RunningServer;
let sqs: SQSClient;
let queueEndpoint: string;
const urlOf = (name: string) => `${queueEndpoint}/123456789012/${name}`;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'synth-queues-'));
  const assembly = writeAssembly(scratch, {
    code: FUNCTION_CODE,
    functionProperties: { Timeout: 2 },
    variables: { RESULTS_URL: { Ref: 'Results' } },
    resources: {
      // The service's own key schema: start:synth issues its demo key into the table.
      Table: {
        Type: 'AWS::DynamoDB::Table',
        Properties: {
          TableName: 'fixture-table',
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
        },
      },
      Work: {
        Type: 'AWS::SQS::Queue',
        Properties: {
          QueueName: 'fixture-work',
          VisibilityTimeout: 3,
          RedrivePolicy: { deadLetterTargetArn: queueArn('DeadLetters'), maxReceiveCount: 2 },
        },
      },
      Results: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'fixture-results' } },
      DeadLetters: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'fixture-dead-letters' } },
      Grants: {
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
              { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArn('Results') },
            ],
          },
        },
      },
      Mapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: queueArn('Work'),
          FunctionName: { Ref: 'Fn' },
          BatchSize: 5,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: 2 },
        },
      },
    },
  });
  const dataDir = await freshDataDir();
  service = await startServer(dataDir, { LOG_LEVEL: 'info', START_SYNTH_CDK_OUT: assembly }, SCRIPT, 120_000);
  queueEndpoint = /3 queues on (http:\/\/\S+)/.exec(service.output())?.[1] as string;
  // The operator's key start:synth records for the CLI: it may use every queue too.
  const { credentials } = JSON.parse(readFileSync(join(dataDir, 'synth', 'dynamodb-endpoint'), 'utf8')) as {
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
  sqs = new SQSClient({ endpoint: queueEndpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
}, 180_000);

afterAll(async () => {
  sqs?.destroy();
  await service?.stop();
  await cleanUpProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

/** Receives (and deletes) from a queue until `count` messages came or the time is up. */
async function drain(queueUrl: string, count: number, withinMs: number): Promise<Message[]> {
  const received: Message[] = [];
  const deadline = Date.now() + withinMs;
  while (received.length < count && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    for (const message of Messages) {
      received.push(message);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
  }
  return received;
}

describe('queues and event source mappings through npm run start:synth', () => {
  it('runs the good records through the function and redrives the poisoned one to the dead-letter queue', async () => {
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: urlOf('fixture-work'),
        Entries: [
          { Id: 'one', MessageBody: '{"n":1}' },
          { Id: 'poison', MessageBody: 'not json {' },
          { Id: 'two', MessageBody: '{"n":2}' },
        ],
      }),
    );
    expect(sent.Failed ?? []).toEqual([]);
    const results = await drain(urlOf('fixture-results'), 2, 20_000);
    expect(results.map((message) => JSON.parse(message.Body as string)).sort((a, b) => a.n - b.n)).toEqual([
      { n: 1, done: true },
      { n: 2, done: true },
    ]);
    const dead = await drain(urlOf('fixture-dead-letters'), 1, 20_000);
    expect(dead.map(({ MessageId, Body }) => ({ MessageId, Body }))).toEqual([
      { MessageId: sent.Successful?.find(({ Id }) => Id === 'poison')?.MessageId, Body: 'not json {' },
    ]);
    // Nothing left behind, nothing delivered twice.
    expect(await drain(urlOf('fixture-work'), 1, 1_000)).toEqual([]);
    expect(await drain(urlOf('fixture-results'), 1, 1_000)).toEqual([]);
    expect(service.output()).toMatch(/"function":"fixture-function"[^\n]*"failed":1[^\n]*queue batch/);
  }, 60_000);
});
