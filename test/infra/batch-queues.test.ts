/**
 * Batches on AWS in the templates (issue 28): a queue per batch group with its dead-letter queue,
 * encryption, TLS only and an alarm; each consumer fed by its queue with partial batch responses and
 * bounded concurrency; the visibility timeout past the consumer's timeout and the item lease; the
 * batches function's routes, its and the senders' grants. synthApp runs cdk-nag: a finding throws.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionPlans } from '../../infra/function-plan.js';
import { physicalFunctionName } from '../../infra/function-stack.js';
import {
  BATCH_LEASE_MARGIN_SECONDS,
  BATCHES_FUNCTION,
  batchGroupMembers,
  batchQueueUrlVariable,
  RECONCILE_FUNCTION,
} from '../../schemas/functions.js';
import { deployedRoutes, synthApp } from './synth-app.js';

const dev = synthApp({ batchMaxReceiveCount: '3', batchMaxConcurrency: '7', emailEgress: 'vpc' });
type Json = Record<string, unknown>;
const groups = [...batchGroupMembers().keys()];
const consumers = functionPlans().filter((plan) => plan.kind === 'batch-consumer');
const queues = Object.values(dev.main.findResources('AWS::SQS::Queue')) as Json[];
const propertiesOf = (resource: Json) => resource.Properties as Json;
const all = <T>(type: string) =>
  [...dev.all.values()].flatMap((template) => Object.values(template.findResources(type)) as T[]);

describe('batch queues', () => {
  it('has one consumer per batch group, none for the account reads', () => {
    expect(consumers.map((plan) => plan.name).sort()).toEqual(groups.map((group) => `batch-${group}`).sort());
    expect(groups).not.toContain('account');
    expect(groups).toContain('emails-smtp');
  });

  it('gives each group a queue redriving to its own dead-letter queue, both encrypted', () => {
    const redriven = queues.filter((queue) => propertiesOf(queue).RedrivePolicy);
    expect(redriven).toHaveLength(groups.length);
    expect(queues).toHaveLength(2 * groups.length);
    for (const queue of queues) expect(propertiesOf(queue).SqsManagedSseEnabled).toBe(true);
    for (const queue of redriven)
      expect(propertiesOf(queue).RedrivePolicy).toMatchObject({ maxReceiveCount: 3 });
    const targets = new Set(
      redriven.map((queue) =>
        JSON.stringify((propertiesOf(queue).RedrivePolicy as Json).deadLetterTargetArn),
      ),
    );
    expect(targets.size).toBe(groups.length);
  });

  it('refuses requests without TLS on every queue', () => {
    const policies = Object.values(dev.main.findResources('AWS::SQS::QueuePolicy')) as Json[];
    expect(policies).toHaveLength(2 * groups.length);
    for (const policy of policies)
      expect(JSON.stringify(propertiesOf(policy).PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });

  it('keeps a message invisible past the consumer timeout and the item lease', () => {
    const timeouts = queues
      .filter((queue) => propertiesOf(queue).RedrivePolicy)
      .map((queue) => propertiesOf(queue).VisibilityTimeout as number)
      .sort((a, b) => a - b);
    const needed = consumers
      .map((plan) => plan.timeoutSeconds + BATCH_LEASE_MARGIN_SECONDS)
      .sort((a, b) => a - b);
    for (const [at, timeout] of timeouts.entries()) expect(timeout).toBeGreaterThan(needed[at] as number);
  });

  it('alarms on each dead-letter queue holding a message, to the alarm topic', () => {
    const alarms = Object.values(
      dev.main.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: 'ApproximateNumberOfMessagesVisible', Namespace: 'AWS/SQS' },
      }),
    ) as Json[];
    expect(alarms).toHaveLength(groups.length);
    for (const alarm of alarms) {
      expect(propertiesOf(alarm)).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(propertiesOf(alarm).AlarmActions).toHaveLength(1);
    }
  });

  it('feeds each consumer from an event source mapping with partial batch responses and bounded concurrency', () => {
    const mappings = all<Json>('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(groups.length);
    for (const mapping of mappings)
      expect(propertiesOf(mapping)).toMatchObject({
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 7 },
      });
  });

  it('puts the SMTP consumer in the email egress VPC, like the email functions', () => {
    const emails = dev.nested.get('Functions-emails');
    emails?.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: physicalFunctionName('dev', 'batch-emails-smtp'),
      VpcConfig: Match.objectLike({ SubnetIds: Match.anyValue() }),
    });
  });
});

describe('the batches function and the senders', () => {
  it('routes every batch path to the batches function', () => {
    const routes = deployedRoutes(dev);
    for (const path of [
      '/v1/batches',
      '/v1/batches/{id}',
      '/v1/batches/{id}/results',
      '/v1/batches/{id}/cancel',
    ])
      expect(routes.get(`ANY ${path}`), path).toBe(physicalFunctionName('dev', BATCHES_FUNCTION));
  });

  it('gives the batches and reconcile functions every queue URL and sqs:SendMessage', () => {
    const service = dev.nested.get('Functions-service');
    for (const name of [BATCHES_FUNCTION, RECONCILE_FUNCTION]) {
      const fn = Object.values(
        service?.findResources('AWS::Lambda::Function', {
          Properties: { FunctionName: physicalFunctionName('dev', name) },
        }) ?? {},
      )[0] as Json;
      const variables = Object.keys(((propertiesOf(fn).Environment as Json).Variables as Json) ?? {});
      for (const group of groups) expect(variables, name).toContain(batchQueueUrlVariable(group));
    }
    const sends = all<Json>('AWS::IAM::Policy').flatMap((policy) =>
      ((propertiesOf(policy).PolicyDocument as Json).Statement as Json[]).filter((statement) =>
        [statement.Action].flat().includes('sqs:SendMessage'),
      ),
    );
    // Both senders to every queue, and each consumer to its own (a deferred item).
    expect(sends.length).toBeGreaterThanOrEqual(2 + groups.length);
  });

  it('grants the batch keys on the table to the batches, consumer and reconcile functions only', () => {
    const granted = all<Json>('AWS::IAM::Policy').filter((policy) =>
      ((propertiesOf(policy).PolicyDocument as Json).Statement as Json[]).some(
        (statement) => statement.Sid === 'batches',
      ),
    );
    expect(granted).toHaveLength(2 + groups.length);
    const statement = ((propertiesOf(granted[0] as Json).PolicyDocument as Json).Statement as Json[]).find(
      (candidate) => candidate.Sid === 'batches',
    ) as Json;
    expect(statement.Condition).toEqual({
      'ForAllValues:StringLike': {
        'dynamodb:LeadingKeys': ['BATCH#*', 'BATCHES#UNFINISHED', 'BATCHIDEM#*', 'WEBHOOKS#PENDING'],
      },
    });
    expect(statement.Action).toContain('dynamodb:BatchWriteItem');
  });
});
