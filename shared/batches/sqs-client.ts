/**
 * The batch queues' SQS client: SendMessageBatch, the one SQS call the functions make (a consumer's
 * messages arrive in its event, and the event source mapping deletes them), over SQS's JSON protocol
 * (shared/net/aws-json-protocol.ts) with the environment's credentials. Not the AWS SDK's client: its
 * runtime was about 220 KB of the start of each function that sends (batches, the consumers,
 * reconcile) for this one call (docs/benchmarks.md); its types are kept.
 */
import type { SendMessageBatchRequest, SendMessageBatchResult } from '@aws-sdk/client-sqs';
import { AwsJsonProtocol } from '../net/aws-json-protocol.js';

export interface SqsClientOptions {
  region: string;
  /** Unset on AWS: SQS's regional endpoint. */
  endpoint?: string;
}

/** The AWS SDK's default attempts of a call, which its SQS client made. */
const MAX_ATTEMPTS = 3;

export class SqsClient {
  private readonly protocol: AwsJsonProtocol;

  constructor(options: SqsClientOptions) {
    this.protocol = new AwsJsonProtocol({
      service: 'sqs',
      targetPrefix: 'AmazonSQS',
      credentials: 'environment',
      maxAttempts: MAX_ATTEMPTS,
      ...options,
    });
  }

  /** The entries SQS took and those it did not (`Failed`), as SQS answers them. */
  async sendMessageBatch(input: SendMessageBatchRequest): Promise<SendMessageBatchResult> {
    const output: unknown = await this.protocol.call('SendMessageBatch', { ...input });
    return output as SendMessageBatchResult;
  }
}
