/**
 * One nested stack of functions (a family's operations, /mcp with its tool groups, or the service's
 * pages and reconcile): each function from its prebuilt bundle directory, its log group, its table
 * grants, its settings and a throttle alarm. Bundles are never built here: `npm run build` writes
 * `<distDir>/functions/<name>/index.mjs` and this only points at the directory.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  Aws,
  Duration,
  NestedStack,
  type NestedStackProps,
  RemovalPolicy,
  Size,
  Validations,
} from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  BUNDLED_DATASET_FILE,
  batchQueueUrlVariable,
  parseS3Uri,
  type SecretSetting,
  secretArnVariable,
  toolGroupFunctionVariable,
} from '../schemas/functions.js';
import { type BatchQueue, groupOfConsumer } from './batch-queues.js';
import { EmailEgressVpc } from './email-egress-vpc.js';
import type { FunctionPlan } from './function-plan.js';
import { settingAcknowledgements } from './nag-acknowledgements.js';
import { DEFAULT_DATASET_EPHEMERAL_MB, type Settings } from './settings.js';

/** Where a data function finds the dataset database: the bundle directory is /var/task. */
export const BUNDLED_DATASET_PATH = '/var/task/dataset.sqlite';

/** The secrets a function may read, each for one setting of shared/config.ts. */
export type ServiceSecrets = {
  CURSOR_SECRET: secretsmanager.ISecret;
  OAUTH_SIGNING_SECRET: secretsmanager.ISecret;
} & Partial<Record<SecretSetting, secretsmanager.ISecret>>;

export interface FunctionStackProps extends NestedStackProps {
  plans: readonly FunctionPlan[];
  settings: Settings;
  table: dynamodb.ITable;
  secrets: ServiceSecrets;
  /** PUBLIC_BASE_URL of the functions (the custom domain, or the stage's execute-api URL). */
  publicBaseUrl: string;
  alarmTopic: sns.ITopic;
  /**
   * The email egress VPC, when another function stack made it: every SMTP function (the email
   * operations' and /mcp's SMTP tool group) leaves through the one VPC whose NAT gateways hold the
   * Elastic IPs that the port-25 lift and reverse DNS name.
   */
  emailEgress?: EmailEgressVpc;
  /** The batch queues by group (batch-queues.ts): consumers are fed by theirs, senders get every URL. */
  batchQueues: ReadonlyMap<string, BatchQueue>;
}

/** Records a browser consumer takes per invocation (one Chromium page each), and any other consumer. */
const BROWSER_BATCH_SIZE = 1;
const BATCH_SIZE = 10;

/** A function's physical name: the stage keeps stages apart in one account. */
export const physicalFunctionName = (stage: string, name: string) => `lookup-${stage}-${name}`;

export class FunctionStack extends NestedStack {
  readonly functions = new Map<string, lambda.Function>();
  /** The email egress VPC this stack's SMTP functions use (made here unless given). */
  readonly emailEgress?: EmailEgressVpc;

  constructor(scope: Construct, id: string, props: FunctionStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const smtpFunctions = props.plans.filter((plan) => plan.needs.has('smtp'));
    const egress =
      settings.emailEgress === 'vpc' && smtpFunctions.length > 0
        ? (props.emailEgress ??
          new EmailEgressVpc(this, 'EmailEgress', {
            ...(settings.natEipAllocationIds ? { eipAllocationIds: settings.natEipAllocationIds } : {}),
            removalPolicy: removalPolicy(settings),
            logRetentionDays: settings.logRetentionDays,
          }))
        : undefined;
    this.emailEgress = egress;

    for (const plan of props.plans) {
      const fn = this.createFunction(plan, props, plan.needs.has('smtp') ? egress : undefined);
      this.functions.set(plan.name, fn);
    }
    this.wireToolGroups(props.plans, settings.stage);
    this.wireBatchQueues(props.plans, props.batchQueues, settings);
  }

  private createFunction(plan: FunctionPlan, props: FunctionStackProps, egress?: EmailEgressVpc) {
    const { settings } = props;
    const functionName = physicalFunctionName(settings.stage, plan.name);
    const logGroup = new logs.LogGroup(this, `${plan.name}-logs`, {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: settings.logRetentionDays,
      removalPolicy: removalPolicy(settings),
    });
    // Its own role, writing to its own log group only (instead of the AWS managed basic execution policy).
    const role = new iam.Role(this, `${plan.name}-role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'logs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    const datasetObject = datasetObjectOf(plan, settings);
    if (datasetObject) {
      // That one object: no bucket-wide or prefix grant (and no ListBucket, so a missing key reads
      // as AccessDenied). Objects encrypted with a customer-managed KMS key would need kms:Decrypt.
      role.addToPolicy(
        new iam.PolicyStatement({
          sid: 'datasetObject',
          actions: ['s3:GetObject'],
          resources: [`arn:${Aws.PARTITION}:s3:::${datasetObject.bucket}/${datasetObject.key}`],
        }),
      );
    }
    if (settings.tracing === 'true') Validations.of(role).acknowledge(settingAcknowledgements.tracing);
    if (egress) Validations.of(role).acknowledge(settingAcknowledgements.vpcAccess);
    const reserved = Object.hasOwn(settings.reservedConcurrency, plan.name)
      ? settings.reservedConcurrency[plan.name]
      : undefined;
    const fn = new lambda.Function(this, plan.name, {
      functionName,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: plan.architecture === 'x86_64' ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      handler: 'index.handler',
      // A function reading the dataset from S3 does not ship the bundled sample it would never open.
      code: lambda.Code.fromAsset(
        bundleDirectory(settings.distDir, plan.name),
        datasetObject ? { exclude: [BUNDLED_DATASET_FILE] } : {},
      ),
      memorySize: plan.memoryMb,
      timeout: Duration.seconds(plan.timeoutSeconds),
      ephemeralStorageSize: Size.mebibytes(
        datasetObject
          ? Math.max(
              plan.ephemeralStorageMb,
              settings.datasetEphemeralStorageMb ?? DEFAULT_DATASET_EPHEMERAL_MB,
            )
          : plan.ephemeralStorageMb,
      ),
      environment: { ...settings.functionEnvironment, ...environmentOf(plan, props) },
      logGroup,
      role,
      ...(reserved === undefined ? {} : { reservedConcurrentExecutions: reserved }),
      ...(settings.tracing === 'true' ? { tracing: lambda.Tracing.ACTIVE } : {}),
      ...(egress
        ? {
            vpc: egress.vpc,
            vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
            securityGroups: [egress.securityGroup],
          }
        : {}),
      description: descriptionOf(plan),
    });
    this.grantTable(fn, plan, props.table);
    for (const secret of Object.values(secretSettingsOf(plan, props))) secret.grantRead(fn);
    new cloudwatch.Alarm(this, `${plan.name}-throttles`, {
      alarmDescription: `${functionName} was throttled (reserved or account concurrency exhausted).`,
      metric: fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new actions.SnsAction(props.alarmTopic));
    return fn;
  }

  /** One statement per grant: its actions on the table only, limited to its partition-key prefixes. */
  private grantTable(fn: lambda.Function, plan: FunctionPlan, table: dynamodb.ITable) {
    for (const grant of plan.tableGrants) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          sid: grant.purpose.replace(/[^A-Za-z0-9]/g, ''),
          actions: grant.actions.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn],
          ...(grant.leadingKeys
            ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': grant.leadingKeys } } }
            : {}),
        }),
      );
    }
  }

  /** /mcp names each tool group's function in its environment and is the only one allowed to invoke them. */
  private wireToolGroups(plans: readonly FunctionPlan[], stage: string) {
    const mcp = plans.find((plan) => plan.kind === 'mcp');
    if (!mcp) return;
    const mcpFunction = this.functions.get(mcp.name) as lambda.Function;
    for (const plan of plans.filter((candidate) => candidate.kind === 'tool-group')) {
      const group = (plan.operations[0] as FunctionPlan['operations'][number]).group;
      const groupFunction = this.functions.get(plan.name) as lambda.Function;
      // The physical name, not a reference: it is known here, and keeps the variable readable.
      mcpFunction.addEnvironment(toolGroupFunctionVariable(group), physicalFunctionName(stage, plan.name));
      // The function itself, not `:*` (every version and alias): the dispatcher invokes it unqualified.
      mcpFunction.addToRolePolicy(
        new iam.PolicyStatement({
          sid: `invoke${group.replace(/[^A-Za-z0-9]/g, '')}`,
          actions: ['lambda:InvokeFunction'],
          resources: [groupFunction.functionArn],
        }),
      );
    }
  }

  /**
   * A consumer is fed by its group's queue (partial batch responses, at most `batchMaxConcurrency`
   * invocations at once) and may send to it (an item it defers); the batches function and the
   * sweeping reconcile send to every queue. Each sender gets the URLs as BATCH_QUEUE_URL_<GROUP>.
   */
  private wireBatchQueues(
    plans: readonly FunctionPlan[],
    queues: ReadonlyMap<string, BatchQueue>,
    settings: Settings,
  ) {
    const send = (fn: lambda.Function, { group, queue }: BatchQueue) => {
      fn.addEnvironment(batchQueueUrlVariable(group), queue.queueUrl);
      queue.grantSendMessages(fn);
    };
    for (const plan of plans) {
      const fn = this.functions.get(plan.name) as lambda.Function;
      if (plan.kind === 'batches' || plan.kind === 'reconcile')
        for (const queue of queues.values()) send(fn, queue);
      if (plan.kind !== 'batch-consumer') continue;
      const queue = queues.get(groupOfConsumer(plan));
      if (!queue) throw new Error(`No batch queue for the consumer ${plan.name}.`);
      send(fn, queue);
      fn.addEventSource(
        new eventSources.SqsEventSource(queue.queue, {
          batchSize: plan.needs.has('browser') ? BROWSER_BATCH_SIZE : BATCH_SIZE,
          reportBatchItemFailures: true,
          maxConcurrency: settings.batchMaxConcurrency,
        }),
      );
    }
  }
}

/** What the function runs; a batch group has too many operations to list in Lambda's 256 characters. */
function descriptionOf(plan: FunctionPlan): string {
  if (plan.kind === 'batch-consumer')
    return `batch-consumer: the ${groupOfConsumer(plan)} batch queue (${plan.operations.length} operations)`;
  return plan.operations.length
    ? `${plan.kind}: ${plan.operations.map((operation) => operation.id).join(', ')}`
    : plan.kind;
}

function bundleDirectory(distDir: string, name: string): string {
  const directory = join(distDir, 'functions', name);
  if (!existsSync(join(directory, 'index.mjs')))
    throw new Error(`No bundle for function ${name} at ${directory}/index.mjs: run \`npm run build\` first.`);
  return directory;
}

/** The S3 object holding the dataset database, for a data function when `datasetS3Uri` is set. */
const datasetObjectOf = (plan: FunctionPlan, settings: Settings) =>
  plan.readsData && settings.datasetS3Uri !== undefined ? parseS3Uri(settings.datasetS3Uri) : undefined;

const removalPolicy = (settings: Settings) =>
  settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

/** The secrets `plan` reads, by the setting each holds. */
function secretSettingsOf(plan: FunctionPlan, props: FunctionStackProps) {
  const { secrets, settings } = props;
  const held: Partial<Record<SecretSetting, secretsmanager.ISecret>> = {};
  if (plan.tableGrants.some((grant) => grant.purpose === 'page')) held.CURSOR_SECRET = secrets.CURSOR_SECRET;
  // Those that sign or verify the built-in authorization server's tokens: the ones reading connections.
  if (plan.tableGrants.some((grant) => grant.purpose === 'connections'))
    held.OAUTH_SIGNING_SECRET = secrets.OAUTH_SIGNING_SECRET;
  if (plan.readsData && settings.dataSource === 'upstream' && secrets.UPSTREAM_API_KEY)
    held.UPSTREAM_API_KEY = secrets.UPSTREAM_API_KEY;
  if (plan.needs.has('smtp') && settings.emailEgress === 'socks' && secrets.SMTP_SOCKS_PROXY)
    held.SMTP_SOCKS_PROXY = secrets.SMTP_SOCKS_PROXY;
  return held;
}

function environmentOf(plan: FunctionPlan, props: FunctionStackProps): Record<string, string> {
  const { settings } = props;
  const data: Record<string, string> =
    settings.dataSource === 'upstream'
      ? { DATA_SOURCE: 'upstream', UPSTREAM_URL: settings.upstreamUrl as string }
      : { DATASET: settings.datasetS3Uri ?? BUNDLED_DATASET_PATH };
  return {
    STORE: 'dynamodb',
    DYNAMODB_TABLE: props.table.tableName,
    PUBLIC_BASE_URL: props.publicBaseUrl,
    ...(plan.readsData ? data : {}),
    ...Object.fromEntries(
      Object.entries(secretSettingsOf(plan, props)).map(([setting, secret]) => [
        secretArnVariable(setting as SecretSetting),
        secret.secretArn,
      ]),
    ),
  };
}
