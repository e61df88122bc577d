/**
 * Reads a synthesized CDK app (the cloud assembly in cdk.out) into the Deployment `npm run start:synth`
 * serves. Everything comes from the CloudFormation templates and the asset manifest CDK writes beside
 * them, never from the catalog or infra/: a route, a permission or a variable missing from a template
 * is missing here too. Every value goes through the intrinsic-function evaluator (stack-template.ts)
 * for one local account and region; whatever it cannot read is a CloudAssemblyError naming the
 * template and the logical id.
 */
import { join } from 'node:path';
import type {
  ApiMethod,
  DeployedFunction,
  DeployedQueue,
  DeployedSecret,
  DeployedTable,
  Deployment,
  InvokePermission,
  PolicyStatement,
  QueueEventSource,
  Schedule,
} from '../deployment-model.js';
import { openAssembly } from './assembly-directory.js';
import { CloudAssemblyError } from './cloud-assembly-error.js';
import { arn, type Environment, lambdaArn } from './resource-kinds.js';
import { isObject, type JsonObject, type StackTemplate } from './stack-template.js';

export interface ReadDeploymentOptions {
  region?: string;
  accountId?: string;
  /** The SQS endpoint queue URLs point at (start:synth's own); SQS's regional endpoint by default. */
  queueEndpoint?: string;
}

const DEFAULT_REGION = 'us-east-1';
const DEFAULT_ACCOUNT_ID = '123456789012';

/** One resource of a type in any stack, with the stack that evaluates it. */
interface Located {
  stack: StackTemplate;
  logicalId: string;
  properties: JsonObject;
}

/** The IAM statements of a policy document (Statement is one object or a list). */
function statementsOf(document: unknown): PolicyStatement[] {
  const statement = isObject(document) ? document.Statement : undefined;
  if (statement === undefined) return [];
  return (Array.isArray(statement) ? statement : [statement]) as PolicyStatement[];
}

/** `rate(5 minutes)` → 300000; undefined for cron() expressions. */
function rateIntervalMs(expression: string): number | undefined {
  const match = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(expression);
  if (!match) return undefined;
  const unitMs = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[match[2] as 'minute' | 'hour' | 'day'];
  return Number(match[1]) * unitMs;
}

/** `arn:aws:apigateway:<region>:lambda:path/<version>/functions/<function arn>/<invocation>`. */
const LAMBDA_INTEGRATION_URI =
  /:lambda:path\/[^/]+\/functions\/(.+)\/(invocations|response-streaming-invocations)$/;

/**
 * Reads cdk.out (the directory `cdk synth` or `app.synth()` writes) into the deployment the templates
 * describe, for one local account (default 123456789012) and region (default us-east-1).
 */
export function readDeployment(cdkOut: string, options: ReadDeploymentOptions = {}): Deployment {
  const environment: Environment = {
    region: options.region ?? DEFAULT_REGION,
    accountId: options.accountId ?? DEFAULT_ACCOUNT_ID,
    ...(options.queueEndpoint === undefined ? {} : { queueEndpoint: options.queueEndpoint }),
  };
  const root = openAssembly(cdkOut, environment);
  const stacks = root.withNestedStacks();
  const all = (type: string): Located[] =>
    stacks.flatMap((stack) =>
      stack.resourcesOf(type).map(([logicalId, properties]) => ({ stack, logicalId, properties })),
    );
  const one = (type: string): Located => {
    const found = all(type);
    const [first] = found;
    if (found.length !== 1 || !first)
      throw new CloudAssemblyError(`${root.file}: expected one ${type} in the app, found ${found.length}`);
    return first;
  };

  const restApi = one('AWS::ApiGateway::RestApi');
  const apiId = restApi.stack.string({ Ref: restApi.logicalId }, restApi.logicalId);
  const stage = one('AWS::ApiGateway::Stage');
  return {
    stackName: root.name,
    region: environment.region,
    accountId: environment.accountId,
    api: {
      id: apiId,
      stage: stage.stack.string(stage.properties.StageName, stage.logicalId),
      executeApiArn: arn(environment, 'execute-api', apiId),
      methods: readMethods(restApi, all),
    },
    functions: readFunctions(cdkOut, all),
    permissions: all('AWS::Lambda::Permission').map((permission) => readPermission(permission, environment)),
    tables: all('AWS::DynamoDB::Table').map(readTable),
    secrets: all('AWS::SecretsManager::Secret').map(readSecret),
    schedules: all('AWS::Events::Rule').flatMap(readSchedule),
    queues: all('AWS::SQS::Queue').map(readQueue),
    queueEventSources: all('AWS::Lambda::EventSourceMapping').flatMap((mapping) =>
      readQueueEventSource(mapping, environment),
    ),
  };
}

function readFunctions(cdkOut: string, all: (type: string) => Located[]): DeployedFunction[] {
  const inlinePolicies = new Map<string, PolicyStatement[]>();
  for (const { stack, logicalId, properties } of all('AWS::IAM::Role')) {
    const policies = (stack.evaluate(properties.Policies, logicalId) ?? []) as { PolicyDocument: unknown }[];
    inlinePolicies.set(
      stack.string({ 'Fn::GetAtt': [logicalId, 'Arn'] }, logicalId),
      policies.flatMap((policy) => statementsOf(policy.PolicyDocument)),
    );
  }
  const rolePolicies = all('AWS::IAM::Policy').map(({ stack, logicalId, properties }) => ({
    roles: new Set(((properties.Roles ?? []) as unknown[]).map((role) => stack.string(role, logicalId))),
    statements: () => statementsOf(stack.evaluate(properties.PolicyDocument, logicalId)),
  }));

  return all('AWS::Lambda::Function').map(({ stack, logicalId, properties }) => {
    const value = (property: string) => stack.evaluate(properties[property], logicalId);
    const roleArn = stack.string(properties.Role, logicalId);
    // AWS::IAM::Policy names its roles by Ref, the role name: the ARN's last segment.
    const roleName = roleArn.slice(roleArn.lastIndexOf('/') + 1);
    const code = (value('Code') ?? {}) as { S3Key?: string };
    const codePath = code.S3Key === undefined ? undefined : stack.assembly.assetPath(code.S3Key);
    if (!codePath)
      throw stack.error(logicalId, `Code ${JSON.stringify(code)} is not an asset of the assembly`);
    // Evaluated as a whole, so a variable set to AWS::NoValue is left out as CloudFormation would.
    const variables = ((value('Environment') as { Variables?: JsonObject } | undefined)?.Variables ??
      {}) as JsonObject;
    const reservedConcurrency = value('ReservedConcurrentExecutions') as number | undefined;
    return {
      path: stack.constructPath(logicalId),
      name: stack.string({ Ref: logicalId }, logicalId),
      arn: stack.string({ 'Fn::GetAtt': [logicalId, 'Arn'] }, logicalId),
      handler: stack.string(properties.Handler, logicalId),
      runtime: stack.string(properties.Runtime, logicalId),
      // CloudFormation's defaults for the properties a template may leave out.
      architectures: (value('Architectures') as string[] | undefined) ?? ['x86_64'],
      timeoutSeconds: (value('Timeout') as number | undefined) ?? 3,
      memoryMb: (value('MemorySize') as number | undefined) ?? 128,
      ephemeralStorageMb: (value('EphemeralStorage') as { Size?: number } | undefined)?.Size ?? 512,
      environment: Object.fromEntries(
        Object.entries(variables).map(([name, variable]) => [
          name,
          stack.string(variable, `${logicalId} Environment.Variables.${name}`),
        ]),
      ),
      codeDirectory: join(cdkOut, codePath),
      roleArn,
      policy: [
        ...(inlinePolicies.get(roleArn) ?? []),
        ...rolePolicies.filter(({ roles }) => roles.has(roleName)).flatMap(({ statements }) => statements()),
      ],
      ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
    };
  });
}

/** Every method of the REST API, each with its resource's full path (ParentId chains cross stacks). */
function readMethods(restApi: Located, all: (type: string) => Located[]): ApiMethod[] {
  const rootId = restApi.stack.string(
    { 'Fn::GetAtt': [restApi.logicalId, 'RootResourceId'] },
    restApi.logicalId,
  );
  const resources = new Map<string, { parentId: string; pathPart: string }>();
  for (const { stack, logicalId, properties } of all('AWS::ApiGateway::Resource'))
    resources.set(stack.string({ Ref: logicalId }, logicalId), {
      parentId: stack.string(properties.ParentId, logicalId),
      pathPart: stack.string(properties.PathPart, logicalId),
    });
  const pathOf = (resourceId: string, fail: () => CloudAssemblyError): string => {
    if (resourceId === rootId) return '/';
    const resource = resources.get(resourceId);
    if (!resource) throw fail();
    const parent = pathOf(resource.parentId, fail);
    return `${parent === '/' ? '' : parent}/${resource.pathPart}`;
  };

  return all('AWS::ApiGateway::Method').map(({ stack, logicalId, properties }) => {
    const resourceId = stack.string(properties.ResourceId, logicalId);
    const integration = (properties.Integration ?? {}) as JsonObject;
    const uri = integration.Uri === undefined ? '' : stack.string(integration.Uri, logicalId);
    const [, functionArn, invocation] = LAMBDA_INTEGRATION_URI.exec(uri) ?? [];
    if (!functionArn)
      throw stack.error(logicalId, `integration URI "${uri}" does not invoke a Lambda function`);
    const timeout = stack.evaluate(integration.TimeoutInMillis, logicalId);
    return {
      httpMethod: stack.string(properties.HttpMethod, logicalId),
      resourcePath: pathOf(resourceId, () =>
        stack.error(logicalId, `ResourceId ${resourceId} is no resource of the REST API`),
      ),
      integration: {
        type: stack.string(integration.Type, logicalId),
        functionArn,
        invocation: invocation === 'invocations' ? 'buffered' : 'streamed',
        timeoutMs: timeout === undefined ? 29_000 : Number(timeout),
        responseTransferMode:
          integration.ResponseTransferMode === undefined
            ? 'BUFFERED'
            : (stack.string(integration.ResponseTransferMode, logicalId) as 'BUFFERED' | 'STREAM'),
      },
    };
  });
}

function readPermission(
  { stack, logicalId, properties }: Located,
  environment: Environment,
): InvokePermission {
  // FunctionName may be a name or an ARN; the model names functions by ARN.
  const functionName = stack.string(properties.FunctionName, logicalId);
  const sourceArn =
    properties.SourceArn === undefined ? undefined : stack.string(properties.SourceArn, logicalId);
  return {
    functionArn: functionName.startsWith('arn:') ? functionName : lambdaArn(environment, functionName),
    principal: stack.string(properties.Principal, logicalId),
    action: stack.string(properties.Action, logicalId),
    ...(sourceArn === undefined ? {} : { sourceArn }),
  };
}

function readTable({ stack, logicalId, properties }: Located): DeployedTable {
  const ttl = stack.evaluate(properties.TimeToLiveSpecification, logicalId) as
    | { AttributeName: string; Enabled: boolean }
    | undefined;
  return {
    name: stack.string({ Ref: logicalId }, logicalId),
    arn: stack.string({ 'Fn::GetAtt': [logicalId, 'Arn'] }, logicalId),
    keySchema: stack.evaluate(properties.KeySchema, logicalId) as DeployedTable['keySchema'],
    attributeDefinitions: stack.evaluate(
      properties.AttributeDefinitions,
      logicalId,
    ) as DeployedTable['attributeDefinitions'],
    ...(ttl?.Enabled ? { ttlAttribute: ttl.AttributeName } : {}),
  };
}

function readSecret({ stack, logicalId, properties }: Located): DeployedSecret {
  const generate = stack.evaluate(properties.GenerateSecretString, logicalId) as
    | { PasswordLength?: number; ExcludePunctuation?: boolean }
    | undefined;
  return {
    arn: stack.string({ Ref: logicalId }, logicalId),
    // Secrets Manager's defaults: 32 characters, punctuation included.
    ...(generate
      ? {
          generate: {
            length: generate.PasswordLength ?? 32,
            excludePunctuation: generate.ExcludePunctuation ?? false,
          },
        }
      : {}),
  };
}

/** An enabled rule with a schedule (a rule matching events, or a disabled one, never fires here). */
function readSchedule({ stack, logicalId, properties }: Located): Schedule[] {
  if (properties.ScheduleExpression === undefined) return [];
  if (properties.State !== undefined && stack.string(properties.State, logicalId) === 'DISABLED') return [];
  const expression = stack.string(properties.ScheduleExpression, logicalId);
  const targets = (stack.evaluate(properties.Targets, logicalId) ?? []) as { Arn: unknown }[];
  const intervalMs = rateIntervalMs(expression);
  return [
    {
      expression,
      ...(intervalMs === undefined ? {} : { intervalMs }),
      targetArns: targets.map((target) => stack.string(target.Arn, logicalId)),
    },
  ];
}

function readQueue({ stack, logicalId, properties }: Located): DeployedQueue {
  const number = (property: string, fallback: number) => {
    const value = stack.evaluate(properties[property], logicalId);
    return value === undefined ? fallback : Number(value);
  };
  if (properties.FifoQueue !== undefined && stack.evaluate(properties.FifoQueue, logicalId) === true)
    throw stack.error(logicalId, 'FIFO queues are not emulated');
  const redrive = stack.evaluate(properties.RedrivePolicy, logicalId) as
    | { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown }
    | undefined;
  return {
    name: stack.string({ 'Fn::GetAtt': [logicalId, 'QueueName'] }, logicalId),
    arn: stack.string({ 'Fn::GetAtt': [logicalId, 'Arn'] }, logicalId),
    url: stack.string({ Ref: logicalId }, logicalId),
    // SQS's defaults for the properties a template may leave out.
    visibilityTimeoutSeconds: number('VisibilityTimeout', 30),
    delaySeconds: number('DelaySeconds', 0),
    ...(redrive
      ? {
          redrive: {
            deadLetterTargetArn: String(redrive.deadLetterTargetArn),
            maxReceiveCount: Number(redrive.maxReceiveCount),
          },
        }
      : {}),
  };
}

/** An enabled mapping on an SQS queue; any other event source is refused, not silently ignored. */
function readQueueEventSource(
  { stack, logicalId, properties }: Located,
  environment: Environment,
): QueueEventSource[] {
  if (properties.Enabled !== undefined && stack.evaluate(properties.Enabled, logicalId) === false) return [];
  const queueArn = stack.string(properties.EventSourceArn, logicalId);
  if (queueArn.split(':')[2] !== 'sqs')
    throw stack.error(logicalId, `event source ${queueArn} is not an SQS queue (only SQS is emulated)`);
  const functionName = stack.string(properties.FunctionName, logicalId);
  const value = (property: string) => stack.evaluate(properties[property], logicalId);
  const responseTypes = (value('FunctionResponseTypes') ?? []) as string[];
  const maximumConcurrency = (value('ScalingConfig') as { MaximumConcurrency?: number } | undefined)
    ?.MaximumConcurrency;
  return [
    {
      queueArn,
      functionArn: functionName.startsWith('arn:') ? functionName : lambdaArn(environment, functionName),
      // Lambda's defaults for an SQS source.
      batchSize: Number(value('BatchSize') ?? 10),
      maximumBatchingWindowSeconds: Number(value('MaximumBatchingWindowInSeconds') ?? 0),
      reportBatchItemFailures: responseTypes.includes('ReportBatchItemFailures'),
      ...(maximumConcurrency === undefined ? {} : { maximumConcurrency: Number(maximumConcurrency) }),
    },
  ];
}
