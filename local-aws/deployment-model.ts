/**
 * The synthesized AWS app as `npm run start:synth` serves it: what the CloudFormation templates under
 * cdk.out would create, with every intrinsic function resolved for one local account and region.
 * cloud-assembly/read-deployment.ts reads it from the templates (never from the catalog or infra/: a
 * route or a permission missing from the templates is missing here too); the local API Gateway, the
 * Lambda host and the local AWS endpoints act on it.
 */

/** One IAM policy statement, as the template writes it (Action/Resource may be one or many). */
export interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
  Sid?: string;
}

export interface DeployedFunction {
  /**
   * The construct path (`LookupService-dev/Functions-jobs/jobs-search/Resource`), for messages; when the
   * app was synthesized without path metadata (an in-process `app.synth()`), the stack path and the
   * logical id (`LookupService-dev/FunctionsjobsNestedStack...ResourceB7415B88/jobssearchA81DF709`).
   */
  path: string;
  /** FunctionName, or the name CloudFormation would generate. */
  name: string;
  arn: string;
  /** `index.handler`: the module file (without .mjs/.js) and the export. */
  handler: string;
  runtime: string;
  architectures: string[];
  timeoutSeconds: number;
  memoryMb: number;
  ephemeralStorageMb: number;
  /** Environment.Variables with every token resolved to a string. */
  environment: Record<string, string>;
  /** The code asset's directory under cdk.out (absolute path). */
  codeDirectory: string;
  roleArn: string;
  /** Every statement of every AWS::IAM::Policy (and inline Policies) attached to the function's role. */
  policy: PolicyStatement[];
  reservedConcurrency?: number;
}

/** One method of the REST API: what API Gateway routes and where. */
export interface ApiMethod {
  /** `ANY`, `GET`, ... */
  httpMethod: string;
  /** The resource's full path, as API Gateway names it (`/v1/jobs/search`, `/{proxy+}`). */
  resourcePath: string;
  integration: {
    type: string;
    /** The Lambda function's ARN, from the integration URI. */
    functionArn: string;
    /** `invocations` (buffered) or `response-streaming-invocations` (streamed), from the URI. */
    invocation: 'buffered' | 'streamed';
    timeoutMs: number;
    responseTransferMode: 'BUFFERED' | 'STREAM';
  };
}

/** An AWS::Lambda::Permission: who may invoke a function (API Gateway's resource policy side). */
export interface InvokePermission {
  functionArn: string;
  principal: string;
  action: string;
  sourceArn?: string;
}

export interface DeployedTable {
  name: string;
  arn: string;
  keySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
  attributeDefinitions: { AttributeName: string; AttributeType: string }[];
  ttlAttribute?: string;
}

export interface DeployedSecret {
  arn: string;
  /** GenerateSecretString's rules: start:synth generates (and keeps) a value like Secrets Manager. */
  generate?: { length: number; excludePunctuation: boolean };
}

/** An EventBridge rule with a schedule, and the functions it invokes. */
export interface Schedule {
  expression: string;
  /** The schedule in milliseconds, from `rate(N minutes|hours|days)`; undefined for cron(). */
  intervalMs?: number;
  targetArns: string[];
}

/** An AWS::SQS::Queue: what the local SQS endpoint creates (standard queues; FIFO is not emulated). */
export interface DeployedQueue {
  name: string;
  arn: string;
  /** What `Ref` and `QueueUrl` give the functions: a URL on the local SQS endpoint. */
  url: string;
  visibilityTimeoutSeconds: number;
  delaySeconds: number;
  /** RedrivePolicy: after this many receives a message moves to the dead-letter queue. */
  redrive?: { deadLetterTargetArn: string; maxReceiveCount: number };
}

/** An AWS::Lambda::EventSourceMapping on an SQS queue: Lambda's poller for one function. */
export interface QueueEventSource {
  queueArn: string;
  functionArn: string;
  /** Records per invocation (Lambda's default for SQS: 10). */
  batchSize: number;
  /** How long the poller gathers records before invoking with fewer than BatchSize. */
  maximumBatchingWindowSeconds: number;
  /** FunctionResponseTypes includes ReportBatchItemFailures: a partial batch response is honoured. */
  reportBatchItemFailures: boolean;
  /** ScalingConfig.MaximumConcurrency: concurrent invocations (Lambda's floor and default: 2 to 1000). */
  maximumConcurrency?: number;
}

export interface Deployment {
  stackName: string;
  region: string;
  accountId: string;
  api: {
    id: string;
    /** The stage name (the `requestContext.stage` of every event). */
    stage: string;
    /** `arn:aws:execute-api:<region>:<account>:<api id>`: API Gateway's source for permissions. */
    executeApiArn: string;
    methods: ApiMethod[];
  };
  functions: DeployedFunction[];
  permissions: InvokePermission[];
  tables: DeployedTable[];
  secrets: DeployedSecret[];
  schedules: Schedule[];
  queues: DeployedQueue[];
  queueEventSources: QueueEventSource[];
}
