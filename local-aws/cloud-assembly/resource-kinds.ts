/**
 * What CloudFormation would create for each resource type the templates reference, in one local
 * account: the physical name and id it gives a resource (its own, or one generated the way
 * CloudFormation generates them), and what `Ref` and `Fn::GetAtt` return for it (names, ids, ARNs).
 */
import { createHash } from 'node:crypto';

/** The local account every physical id and ARN is made in. */
export interface Environment {
  region: string;
  accountId: string;
  /** Where queue URLs point (start:synth's local SQS endpoint); SQS's regional endpoint otherwise. */
  queueEndpoint?: string;
}

export const PARTITION = 'aws';
export const URL_SUFFIX = 'amazonaws.com';

const hash = (seed: string) => createHash('sha256').update(seed).digest('hex');

export const arn = (environment: Environment, service: string, resource: string, regional = true) =>
  `arn:${PARTITION}:${service}:${regional ? environment.region : ''}:${environment.accountId}:${resource}`;

/** A queue's URL, `<endpoint>/<account>/<name>`, as SQS gives it (the local endpoint reads the path). */
export const queueUrl = (environment: Environment, queueName: string) =>
  `${environment.queueEndpoint ?? `https://sqs.${environment.region}.${URL_SUFFIX}`}/${environment.accountId}/${queueName}`;

export const lambdaArn = (environment: Environment, functionName: string) =>
  arn(environment, 'lambda', `function:${functionName}`);

/** What CloudFormation would create for one resource: its physical name and id. */
export interface Physical {
  /** The name property's value, or `<stack>-<logicalId>-<SUFFIX>` as CloudFormation generates it. */
  name: string;
  /** A short id for resources AWS identifies by generated ids (REST APIs, API resources). */
  id: string;
  environment: Environment;
}

/**
 * A resource's physical name and id: the name its template gives it, or a generated one, derived
 * from the stack and logical id so every read of the same assembly names it alike.
 */
export function physicalOf(
  stackName: string,
  logicalId: string,
  givenName: string | undefined,
  environment: Environment,
): Physical {
  const seed = hash(`${stackName}/${logicalId}`);
  return {
    name: givenName ?? `${stackName}-${logicalId}-${seed.slice(0, 12).toUpperCase()}`,
    id: seed.slice(0, 10),
    environment,
  };
}

export interface ResourceKind {
  /** The property naming the resource; CloudFormation generates a name when it is absent. */
  nameProperty?: string;
  ref: (physical: Physical) => string;
  attributes?: Record<string, (physical: Physical) => string>;
}

const byName = ({ name }: Physical) => name;
const byId = ({ id }: Physical) => id;

/** The resource types the templates reference, with what Ref and Fn::GetAtt return for each. */
export const resourceKinds: ReadonlyMap<string, ResourceKind> = new Map<string, ResourceKind>([
  [
    'AWS::Lambda::Function',
    {
      nameProperty: 'FunctionName',
      ref: byName,
      attributes: { Arn: ({ environment, name }) => lambdaArn(environment, name) },
    },
  ],
  [
    'AWS::IAM::Role',
    {
      nameProperty: 'RoleName',
      ref: byName,
      attributes: { Arn: ({ environment, name }) => arn(environment, 'iam', `role/${name}`, false) },
    },
  ],
  [
    'AWS::DynamoDB::Table',
    {
      nameProperty: 'TableName',
      ref: byName,
      attributes: { Arn: ({ environment, name }) => arn(environment, 'dynamodb', `table/${name}`) },
    },
  ],
  [
    'AWS::Logs::LogGroup',
    {
      nameProperty: 'LogGroupName',
      ref: byName,
      attributes: { Arn: ({ environment, name }) => arn(environment, 'logs', `log-group:${name}:*`) },
    },
  ],
  [
    'AWS::SNS::Topic',
    {
      nameProperty: 'TopicName',
      ref: ({ environment, name }) => arn(environment, 'sns', name),
      attributes: {
        TopicArn: ({ environment, name }) => arn(environment, 'sns', name),
        TopicName: byName,
      },
    },
  ],
  [
    'AWS::SQS::Queue',
    {
      nameProperty: 'QueueName',
      ref: ({ environment, name }) => queueUrl(environment, name),
      attributes: {
        Arn: ({ environment, name }) => arn(environment, 'sqs', name),
        QueueName: byName,
        QueueUrl: ({ environment, name }) => queueUrl(environment, name),
      },
    },
  ],
  ['AWS::Lambda::EventSourceMapping', { ref: byId }],
  [
    'AWS::SecretsManager::Secret',
    {
      nameProperty: 'Name',
      ref: ({ environment, name }) => arn(environment, 'secretsmanager', `secret:${name}`),
    },
  ],
  [
    'AWS::Events::Rule',
    {
      nameProperty: 'Name',
      ref: byName,
      attributes: { Arn: ({ environment, name }) => arn(environment, 'events', `rule/${name}`) },
    },
  ],
  [
    'AWS::ApiGateway::RestApi',
    { ref: byId, attributes: { RootResourceId: ({ id }) => hash(`${id}/`).slice(0, 10) } },
  ],
  ['AWS::ApiGateway::Resource', { ref: byId }],
  ['AWS::ApiGateway::Deployment', { ref: byId }],
  ['AWS::ApiGateway::Stage', { nameProperty: 'StageName', ref: byName }],
  [
    'AWS::CloudFormation::Stack',
    { ref: ({ environment, name, id }) => arn(environment, 'cloudformation', `stack/${name}/${id}`) },
  ],
]);
