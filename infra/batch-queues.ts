/**
 * The batch queues (issue 28): one SQS standard queue per group of batchable operations
 * (schemas/functions.ts `batchGroupMembers`), each with its dead-letter queue and an alarm on it. The
 * groups already split the operations by what they need at run time (SMTP egress in the email VPC,
 * Chromium, the dataset), so each queue feeds one consumer function built like its operations'.
 *
 * - Visibility timeout: the consumer's timeout plus the item lease's margin and a little more, so a
 *   message seen again after a consumer died finds the item's lease over and runs it (AWS requires
 *   at least the function's timeout).
 * - A message received `batchMaxReceiveCount` times without success (a poisoned body, a run that
 *   keeps throwing) moves to the dead-letter queue, kept 14 days; its alarm fires on the first one.
 * - Encrypted with SQS-managed keys, and refusing any request not over TLS.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BATCH_LEASE_MARGIN_SECONDS } from '../schemas/functions.js';
import type { FunctionPlan } from './function-plan.js';

/** Past the lease's end: room for clock skew between the consumer and SQS. */
const VISIBILITY_SLACK_SECONDS = 15;
const RETENTION = Duration.days(14);

export interface BatchQueue {
  group: string;
  queue: sqs.Queue;
  deadLetterQueue: sqs.Queue;
}

export interface BatchQueuesProps {
  /** The consumer functions' plans: one queue per plan, named by its group. */
  consumers: readonly FunctionPlan[];
  maxReceiveCount: number;
  alarmTopic: sns.ITopic;
}

/** The group of a batch consumer's plan (every operation of it has that group). */
export const groupOfConsumer = (plan: FunctionPlan) =>
  (plan.operations[0] as FunctionPlan['operations'][number]).group;

/** The visibility timeout of the queue feeding `consumer`. */
export const visibilityTimeoutSeconds = (consumer: FunctionPlan) =>
  consumer.timeoutSeconds + BATCH_LEASE_MARGIN_SECONDS + VISIBILITY_SLACK_SECONDS;

export class BatchQueues extends Construct {
  /** By group. */
  readonly queues = new Map<string, BatchQueue>();

  constructor(scope: Construct, id: string, props: BatchQueuesProps) {
    super(scope, id);
    for (const consumer of props.consumers) {
      const group = groupOfConsumer(consumer);
      const deadLetterQueue = new sqs.Queue(this, `${group}-dlq`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: RETENTION,
      });
      const queue = new sqs.Queue(this, group, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: RETENTION,
        visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(consumer)),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
      });
      new cloudwatch.Alarm(this, `${group}-dlq-messages`, {
        alarmDescription: `Batch items of the ${group} group reached their dead-letter queue (received ${props.maxReceiveCount} times without success).`,
        metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(new actions.SnsAction(props.alarmTopic));
      this.queues.set(group, { group, queue, deadLetterQueue });
    }
  }
}
