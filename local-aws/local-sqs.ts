/**
 * SQS for the functions of start:synth: the SQS JSON protocol (what `@aws-sdk/client-sqs` speaks:
 * `X-Amz-Target: AmazonSQS.<Operation>`) over the in-memory queues of sqs-queue.ts, one per
 * AWS::SQS::Queue of the templates. The operations a producer and a consumer need: SendMessage(Batch),
 * ReceiveMessage (with long polling), DeleteMessage(Batch), ChangeMessageVisibility, GetQueueUrl and
 * GetQueueAttributes. Callers are known by their SigV4 access key id, as in local-dynamodb.ts: a
 * function's role, checked against the templates' grants (`sqs:SendMessage` on the queue's ARN, ...;
 * a batch call needs its single action, as on AWS), or the operator (every action, as an
 * administrator's credentials); anyone else is refused. Refusals are SQS's own error types, so a
 * client sees what it would see on AWS.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buffer } from 'node:stream/consumers';
import * as z from 'zod';
import type { Logger } from '../shared/logger.js';
import type { Deployment, PolicyStatement } from './deployment-model.js';
import type { FunctionHost } from './function-host.js';
import { isAllowed } from './iam.js';
import { signingKeyId } from './loopback.js';
import {
  MessageNotInflightError,
  ReceiptHandleInvalidError,
  type ReceivedMessage,
  type SqsQueue,
  type SqsQueues,
} from './sqs-queue.js';

/** SQS's largest message: 256 KiB of body. */
const MAX_BODY_BYTES = 262_144;
/** The characters SQS accepts in a body (XML's), anything else is InvalidMessageContents. */
const ALLOWED_BODY = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

/** An SQS error: its type (the SDK's exception name), HTTP status and message. */
class SqsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

interface Caller {
  name: string;
  roleArn: string;
  policy: readonly PolicyStatement[];
}

const queueUrl = z.string().min(1);
const messageAttributes = z
  .record(
    z.string(),
    z.object({
      DataType: z.string(),
      StringValue: z.string().optional(),
      BinaryValue: z.string().optional(),
    }),
  )
  .optional();
const entryId = z.string().regex(/^[\w-]{1,80}$/, 'an Id is 1 to 80 letters, digits, - or _');
const delaySeconds = z.number().int().min(0).max(900).optional();

const requests = {
  SendMessage: z.object({
    QueueUrl: queueUrl,
    MessageBody: z.string(),
    DelaySeconds: delaySeconds,
    MessageAttributes: messageAttributes,
  }),
  SendMessageBatch: z.object({
    QueueUrl: queueUrl,
    Entries: z.array(
      z.object({
        Id: entryId,
        MessageBody: z.string(),
        DelaySeconds: delaySeconds,
        MessageAttributes: messageAttributes,
      }),
    ),
  }),
  ReceiveMessage: z.object({
    QueueUrl: queueUrl,
    MaxNumberOfMessages: z.number().int().min(1).max(10).optional(),
    VisibilityTimeout: z.number().int().min(0).max(43_200).optional(),
    WaitTimeSeconds: z.number().int().min(0).max(20).optional(),
    AttributeNames: z.array(z.string()).optional(),
    MessageSystemAttributeNames: z.array(z.string()).optional(),
    MessageAttributeNames: z.array(z.string()).optional(),
  }),
  DeleteMessage: z.object({ QueueUrl: queueUrl, ReceiptHandle: z.string().min(1) }),
  DeleteMessageBatch: z.object({
    QueueUrl: queueUrl,
    Entries: z.array(z.object({ Id: entryId, ReceiptHandle: z.string().min(1) })),
  }),
  ChangeMessageVisibility: z.object({
    QueueUrl: queueUrl,
    ReceiptHandle: z.string().min(1),
    VisibilityTimeout: z.number().int().min(0).max(43_200),
  }),
  GetQueueUrl: z.object({ QueueName: z.string().min(1), QueueOwnerAWSAccountId: z.string().optional() }),
  GetQueueAttributes: z.object({ QueueUrl: queueUrl, AttributeNames: z.array(z.string()).optional() }),
} as const;

type Operation = keyof typeof requests;
const isOperation = (name: string): name is Operation => Object.hasOwn(requests, name);

export interface LocalSqsOptions {
  deployment: Deployment;
  queues: SqsQueues;
  host: FunctionHost;
  /** The operator's access key id (the same as the local DynamoDB's). */
  operatorAccessKeyId: string;
  logger: Logger;
  /** Ends long polls when start:synth stops. */
  signal: AbortSignal;
}

/** The request handler of the local SQS endpoint. */
export function localSqs(
  options: LocalSqsOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { deployment, queues } = options;
  const operator: Caller = {
    name: 'operator',
    roleArn: `arn:aws:iam::${deployment.accountId}:user/operator`,
    policy: [{ Effect: 'Allow', Action: 'sqs:*', Resource: '*' }],
  };
  const callerOf = (req: IncomingMessage): Caller | undefined =>
    options.host.callerOf(req) ?? (signingKeyId(req) === options.operatorAccessKeyId ? operator : undefined);

  /** The queue a URL names (`<endpoint>/<account>/<name>`, whatever its host, as SQS reads it). */
  const queueAt = (url: string): SqsQueue => {
    const [, account, name] = /\/(\d{12})\/([^/?#]+)$/.exec(url) ?? [];
    const queue = account === deployment.accountId && name ? queues.named(name) : undefined;
    if (!queue) throw new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
    return queue;
  };

  const authorize = (caller: Caller, action: string, queue: SqsQueue) => {
    if (isAllowed(caller.policy, `sqs:${action}`, queue.definition.arn)) return;
    options.logger.warn(
      { function: caller.name, action: `sqs:${action}`, resource: queue.definition.arn },
      'access denied',
    );
    throw new SqsError(
      'AccessDenied',
      `User: ${caller.roleArn} is not authorized to perform: sqs:${action} on resource: ${queue.definition.arn} because no identity-based policy allows the sqs:${action} action`,
      403,
    );
  };

  async function run(operation: Operation, input: unknown, caller: Caller): Promise<unknown> {
    switch (operation) {
      case 'SendMessage': {
        const request = requests.SendMessage.parse(input);
        const queue = queueAt(request.QueueUrl);
        authorize(caller, 'SendMessage', queue);
        checkBody(request.MessageBody);
        const sent = queue.send(request.MessageBody, sendOptions(request, caller));
        return { MessageId: sent.messageId, MD5OfMessageBody: sent.md5OfBody };
      }
      case 'SendMessageBatch': {
        const request = requests.SendMessageBatch.parse(input);
        const queue = queueAt(request.QueueUrl);
        authorize(caller, 'SendMessage', queue);
        checkEntries(request.Entries);
        const bytes = request.Entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.MessageBody), 0);
        if (bytes > MAX_BODY_BYTES)
          throw new SqsError(
            'BatchRequestTooLong',
            `The batch's bodies total ${bytes} bytes, more than ${MAX_BODY_BYTES}.`,
          );
        const Successful: unknown[] = [];
        const Failed: unknown[] = [];
        for (const entry of request.Entries) {
          try {
            checkBody(entry.MessageBody);
            const sent = queue.send(entry.MessageBody, sendOptions(entry, caller));
            Successful.push({ Id: entry.Id, MessageId: sent.messageId, MD5OfMessageBody: sent.md5OfBody });
          } catch (error) {
            if (!(error instanceof SqsError)) throw error;
            Failed.push({ Id: entry.Id, SenderFault: true, Code: error.type, Message: error.message });
          }
        }
        return { Successful, Failed };
      }
      case 'ReceiveMessage': {
        const request = requests.ReceiveMessage.parse(input);
        const queue = queueAt(request.QueueUrl);
        authorize(caller, 'ReceiveMessage', queue);
        const received = await queue.receiveWaiting(
          request.MaxNumberOfMessages ?? 1,
          (request.WaitTimeSeconds ?? 0) * 1000,
          options.signal,
          request.VisibilityTimeout,
        );
        const systemNames = [
          ...(request.AttributeNames ?? []),
          ...(request.MessageSystemAttributeNames ?? []),
        ];
        return {
          Messages: received.map((message) =>
            receivedMessage(message, systemNames, request.MessageAttributeNames ?? []),
          ),
        };
      }
      case 'DeleteMessage': {
        const request = requests.DeleteMessage.parse(input);
        const queue = queueAt(request.QueueUrl);
        authorize(caller, 'DeleteMessage', queue);
        queue.delete(request.ReceiptHandle);
        return {};
      }
      case 'DeleteMessageBatch': {
        const request = requests.DeleteMessageBatch.parse(input);
        const queue = queueAt(request.QueueUrl);
        authorize(caller, 'DeleteMessage', queue);
        checkEntries(request.Entries);
        const Successful: unknown[] = [];
        const Failed: unknown[] = [];
        for (const entry of request.Entries) {
          try {
            queue.delete(entry.ReceiptHandle);
            Successful.push({ Id: entry.Id });
          } catch (error) {
            if (!(error instanceof ReceiptHandleInvalidError)) throw error;
            Failed.push({
              Id: entry.Id,
              SenderFault: true,
              Code: 'ReceiptHandleIsInvalid',
              Message: error.message,
            });
          }
        }
        return { Successful, Failed };
      }
      case 'ChangeMessageVisibility': {
        const request = requests.ChangeMessageVisibility.parse(input);
        const queue = queueAt(request.QueueUrl);
        authorize(caller, 'ChangeMessageVisibility', queue);
        queue.changeVisibility(request.ReceiptHandle, request.VisibilityTimeout);
        return {};
      }
      case 'GetQueueUrl': {
        const request = requests.GetQueueUrl.parse(input);
        const queue = queues.named(request.QueueName);
        if (!queue || (request.QueueOwnerAWSAccountId ?? deployment.accountId) !== deployment.accountId)
          throw new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
        authorize(caller, 'GetQueueUrl', queue);
        return { QueueUrl: queue.definition.url };
      }
      case 'GetQueueAttributes': {
        const request = requests.GetQueueAttributes.parse(input);
        const queue = queueAt(request.QueueUrl);
        authorize(caller, 'GetQueueAttributes', queue);
        return { Attributes: queueAttributes(queue, request.AttributeNames ?? []) };
      }
    }
  }

  return async (req, res) => {
    const body = await buffer(req);
    try {
      const caller = callerOf(req);
      if (!caller) {
        options.logger.warn({ accessKeyId: signingKeyId(req) ?? null }, 'unknown caller refused');
        throw new SqsError(
          'InvalidClientTokenId',
          'The security token included in the request is invalid.',
          403,
        );
      }
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
      if (!isOperation(operation))
        throw new SqsError('InvalidAction', `start:synth's SQS does not serve "${target}".`);
      let input: unknown;
      try {
        input = JSON.parse(body.toString('utf8') || '{}');
      } catch {
        throw new SqsError('InvalidParameterValue', 'The request body is not JSON.');
      }
      const output = await run(operation, input, caller);
      res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end(JSON.stringify(output));
    } catch (error) {
      const failure = asSqsError(error);
      res
        .writeHead(failure.status, { 'Content-Type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify({ __type: `com.amazonaws.sqs#${failure.type}`, message: failure.message }));
    }
  };
}

function asSqsError(error: unknown): SqsError {
  if (error instanceof SqsError) return error;
  if (error instanceof z.ZodError) {
    const issues = error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`);
    return new SqsError('InvalidParameterValue', issues.join('; '));
  }
  if (error instanceof ReceiptHandleInvalidError)
    return new SqsError('ReceiptHandleIsInvalid', error.message);
  if (error instanceof MessageNotInflightError) return new SqsError('MessageNotInflight', error.message);
  throw error;
}

function checkBody(body: string): void {
  if (body.length === 0) throw new SqsError('InvalidParameterValue', 'The message body must not be empty.');
  if (Buffer.byteLength(body) > MAX_BODY_BYTES)
    throw new SqsError('InvalidParameterValue', `The message body is longer than ${MAX_BODY_BYTES} bytes.`);
  if (!ALLOWED_BODY.test(body))
    throw new SqsError(
      'InvalidMessageContents',
      'The message body contains characters outside the allowed set.',
    );
}

function checkEntries(entries: readonly { Id: string }[]): void {
  if (entries.length === 0) throw new SqsError('EmptyBatchRequest', 'The batch request contains no entries.');
  if (entries.length > 10)
    throw new SqsError(
      'TooManyEntriesInBatchRequest',
      `The batch request has ${entries.length} entries; at most 10.`,
    );
  if (new Set(entries.map((entry) => entry.Id)).size !== entries.length)
    throw new SqsError('BatchEntryIdsNotDistinct', 'Two or more batch entries have the same Id.');
}

function sendOptions(
  request: {
    DelaySeconds?: number | undefined;
    MessageAttributes?: ReceivedMessage['messageAttributes'] | undefined;
  },
  caller: Caller,
) {
  return {
    senderId: caller.roleArn,
    ...(request.DelaySeconds === undefined ? {} : { delaySeconds: request.DelaySeconds }),
    ...(request.MessageAttributes === undefined ? {} : { messageAttributes: request.MessageAttributes }),
  };
}

/** The system attributes of a received message, each under its SQS name. */
export function systemAttributes(message: ReceivedMessage): Record<string, string> {
  return {
    ApproximateReceiveCount: String(message.receiveCount),
    SentTimestamp: String(message.sentAt),
    SenderId: message.senderId,
    ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
  };
}

function receivedMessage(
  message: ReceivedMessage,
  systemNames: readonly string[],
  attributeNames: readonly string[],
) {
  const system = Object.entries(systemAttributes(message)).filter(
    ([name]) => systemNames.includes('All') || systemNames.includes(name),
  );
  const attributes = Object.entries(message.messageAttributes).filter(
    ([name]) =>
      attributeNames.includes('All') || attributeNames.includes('.*') || attributeNames.includes(name),
  );
  return {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle,
    Body: message.body,
    MD5OfBody: message.md5OfBody,
    ...(system.length > 0 ? { Attributes: Object.fromEntries(system) } : {}),
    ...(attributes.length > 0 ? { MessageAttributes: Object.fromEntries(attributes) } : {}),
  };
}

/** The attributes asked for that this queue has (timestamps and policies are not kept here). */
function queueAttributes(queue: SqsQueue, names: readonly string[]): Record<string, string> {
  const counts = queue.counts();
  const { definition } = queue;
  const all: Record<string, string> = {
    QueueArn: definition.arn,
    ApproximateNumberOfMessages: String(counts.visible),
    ApproximateNumberOfMessagesNotVisible: String(counts.notVisible),
    ApproximateNumberOfMessagesDelayed: String(counts.delayed),
    VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
    DelaySeconds: String(definition.delaySeconds),
    MaximumMessageSize: String(MAX_BODY_BYTES),
    ...(definition.redrive ? { RedrivePolicy: JSON.stringify(definition.redrive) } : {}),
  };
  return Object.fromEntries(
    Object.entries(all).filter(([name]) => names.includes('All') || names.includes(name)),
  );
}
