/**
 * Reads a synthesized CDK app (the cloud assembly in cdk.out) into the Deployment `npm run start:synth`
 * serves. Everything comes from the CloudFormation templates and the asset manifest CDK writes beside
 * them, never from the catalog or infra/: a route, a permission or a variable missing from a template
 * is missing here too. A small, lazy, memoized evaluator resolves the intrinsic functions the templates
 * use for one local account and region; whatever it cannot resolve is an error naming the template
 * and the logical id, never a silent "undefined".
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  ApiMethod,
  DeployedFunction,
  DeployedSecret,
  DeployedTable,
  Deployment,
  InvokePermission,
  PolicyStatement,
  Schedule,
} from '../deployment-model.js';

export interface ReadDeploymentOptions {
  region?: string;
  accountId?: string;
}

/** A template the reader cannot turn into a deployment (the message names the template and logical id). */
export class CloudAssemblyError extends Error {
  override name = 'CloudAssemblyError';
}

type JsonObject = Record<string, unknown>;

interface TemplateResource {
  Type: string;
  Properties?: JsonObject;
  Metadata?: JsonObject;
  Condition?: string;
}

interface Template {
  Parameters?: Record<string, { Type: string; Default?: unknown }>;
  Resources?: Record<string, TemplateResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** The local account every physical id and ARN is made in. */
interface Environment {
  region: string;
  accountId: string;
}

const PARTITION = 'aws';
const URL_SUFFIX = 'amazonaws.com';
const DEFAULT_REGION = 'us-east-1';
const DEFAULT_ACCOUNT_ID = '123456789012';
/** `Ref: AWS::NoValue`: removes the property or list element holding it. */
const NO_VALUE = Symbol('AWS::NoValue');

/** A template's own entry (never an inherited one such as `constructor`), or undefined. */
const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hash = (seed: string) => createHash('sha256').update(seed).digest('hex');

const arn = (environment: Environment, service: string, resource: string, regional = true) =>
  `arn:${PARTITION}:${service}:${regional ? environment.region : ''}:${environment.accountId}:${resource}`;

const lambdaArn = (environment: Environment, functionName: string) =>
  arn(environment, 'lambda', `function:${functionName}`);

/** What CloudFormation would create for one resource: its physical name and id. */
interface Physical {
  /** The name property's value, or `<stack>-<logicalId>-<SUFFIX>` as CloudFormation generates it. */
  name: string;
  /** A short id for resources AWS identifies by generated ids (REST APIs, API resources). */
  id: string;
  environment: Environment;
}

interface ResourceKind {
  /** The property naming the resource; CloudFormation generates a name when it is absent. */
  nameProperty?: string;
  ref: (physical: Physical) => string;
  attributes?: Record<string, (physical: Physical) => string>;
}

const byName = ({ name }: Physical) => name;
const byId = ({ id }: Physical) => id;

/** The resource types the templates reference, with what Ref and Fn::GetAtt return for each. */
const resourceKinds: ReadonlyMap<string, ResourceKind> = new Map<string, ResourceKind>([
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

const PSEUDO_PARAMETERS: ReadonlyMap<string, (stack: StackTemplate) => string> = new Map([
  ['AWS::Region', (stack: StackTemplate) => stack.assembly.environment.region],
  ['AWS::AccountId', (stack: StackTemplate) => stack.assembly.environment.accountId],
  ['AWS::Partition', () => PARTITION],
  ['AWS::URLSuffix', () => URL_SUFFIX],
  ['AWS::StackName', (stack: StackTemplate) => stack.name],
]);

/** The cloud assembly's files: the directory, the account it is read for and its file assets. */
class Assembly {
  /** An asset's S3 object key (`<hash>.zip`, `<hash>.json`) → its path under cdk.out. */
  private readonly assets = new Map<string, string>();

  constructor(
    readonly directory: string,
    readonly environment: Environment,
    assetManifests: string[],
  ) {
    for (const file of assetManifests) {
      const manifest = this.readJson(file) as {
        files?: Record<
          string,
          { source: { path: string }; destinations: Record<string, { objectKey: string }> }
        >;
      };
      for (const asset of Object.values(manifest.files ?? {}))
        for (const destination of Object.values(asset.destinations))
          this.assets.set(destination.objectKey, asset.source.path);
    }
  }

  readJson(file: string): unknown {
    return JSON.parse(readFileSync(join(this.directory, file), 'utf8'));
  }

  /** The path under cdk.out of the asset CloudFormation would fetch from S3 as `objectKey`. */
  assetPath(objectKey: string): string | undefined {
    return this.assets.get(objectKey);
  }
}

/** One template (the main stack or a nested one), evaluated lazily and memoized. */
class StackTemplate {
  readonly resources: ReadonlyMap<string, TemplateResource>;
  private readonly memo = new Map<string, unknown>();

  constructor(
    readonly assembly: Assembly,
    /** The template file under cdk.out, for messages. */
    readonly file: string,
    readonly name: string,
    /** `<stack>/<nested stack logical id>/...`, the fallback of a resource's construct path. */
    readonly path: string,
    private readonly template: Template,
    /** The value the parent passes for a parameter (undefined: not passed). */
    private readonly passedParameter: (name: string) => unknown,
  ) {
    const resources = new Map<string, TemplateResource>();
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      // CDK's version report, and the condition it carries, create nothing a local server acts on.
      if (resource.Type === 'AWS::CDK::Metadata') continue;
      if (resource.Condition !== undefined)
        throw this.error(
          logicalId,
          `conditional resources are not supported (Condition ${resource.Condition})`,
        );
      resources.set(logicalId, resource);
    }
    this.resources = resources;
  }

  error(where: string, message: string): CloudAssemblyError {
    return new CloudAssemblyError(`${this.file}, ${where}: ${message}`);
  }

  /** This stack and every stack nested in it, depth first. */
  withNestedStacks(): StackTemplate[] {
    return [
      this,
      ...[...this.resources]
        .filter(([, resource]) => resource.Type === 'AWS::CloudFormation::Stack')
        .flatMap(([logicalId]) => this.nestedStack(logicalId).withNestedStacks()),
    ];
  }

  /** Every resource of a type in this stack: logical id and properties. */
  resourcesOf(type: string): [string, JsonObject][] {
    return [...this.resources]
      .filter(([, resource]) => resource.Type === type)
      .map(([logicalId, resource]) => [logicalId, resource.Properties ?? {}]);
  }

  /** A resource's construct path: CDK's path metadata when synthesized with it, else the stack path. */
  constructPath(logicalId: string): string {
    const path = own(this.resources.get(logicalId)?.Metadata, 'aws:cdk:path');
    return typeof path === 'string' ? path : `${this.path}/${logicalId}`;
  }

  /** A template value with every intrinsic function resolved; `where` names the logical id. */
  evaluate(value: unknown, where: string): unknown {
    if (Array.isArray(value))
      return value.map((item) => this.evaluate(item, where)).filter((item) => item !== NO_VALUE);
    if (!isObject(value)) return value;
    const keys = Object.keys(value);
    const [key] = keys;
    if (keys.length === 1 && key !== undefined && (key === 'Ref' || key.startsWith('Fn::')))
      return this.intrinsic(key, value[key], where);
    const entries = keys.map((name) => [name, this.evaluate(value[name], where)] as const);
    return Object.fromEntries(entries.filter(([, item]) => item !== NO_VALUE));
  }

  /** A template value that must resolve to a string (numbers and booleans as CloudFormation coerces them). */
  string(value: unknown, where: string): string {
    const resolved = this.evaluate(value, where);
    if (typeof resolved === 'string') return resolved;
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw this.error(where, `expected a string, got ${JSON.stringify(resolved) ?? String(resolved)}`);
  }

  private intrinsic(name: string, argument: unknown, where: string): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(this.literal(argument, name, where), where);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] =
          typeof argument === 'string'
            ? [argument.slice(0, argument.indexOf('.')), argument.slice(argument.indexOf('.') + 1)]
            : (argument as [string, string]);
        return this.getAtt(logicalId, attribute, where);
      }
      case 'Fn::Join': {
        const [delimiter, items] = argument as [string, unknown];
        return this.list(items, name, where)
          .map((item) => this.string(item, where))
          .join(delimiter);
      }
      case 'Fn::Sub':
        return this.substitute(argument, where);
      case 'Fn::Select': {
        const [index, items] = argument as [unknown, unknown];
        const list = this.list(items, name, where);
        const position = Number(this.evaluate(index, where));
        if (!Number.isInteger(position) || position < 0 || position >= list.length)
          throw this.error(where, `Fn::Select index ${String(index)} is outside a list of ${list.length}`);
        return list[position];
      }
      case 'Fn::Split': {
        const [delimiter, source] = argument as [string, unknown];
        return this.string(source, where).split(delimiter);
      }
      default:
        throw this.error(where, `unsupported intrinsic function ${name}`);
    }
  }

  private literal(argument: unknown, intrinsic: string, where: string): string {
    if (typeof argument !== 'string')
      throw this.error(where, `${intrinsic} takes a name, got ${JSON.stringify(argument)}`);
    return argument;
  }

  private list(items: unknown, intrinsic: string, where: string): unknown[] {
    const list = this.evaluate(items, where);
    if (!Array.isArray(list))
      throw this.error(where, `${intrinsic} needs a list, got ${JSON.stringify(list)}`);
    return list;
  }

  /** Fn::Sub: `${Name}` is a Ref (or the map's variable), `${Id.Attribute}` a GetAtt, `${!Text}` literal. */
  private substitute(argument: unknown, where: string): string {
    const [text, variables] =
      typeof argument === 'string' ? [argument, {}] : (argument as [string, JsonObject]);
    return text.replace(/\$\{([^}]*)\}/g, (_match, name: string) => {
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      if (Object.hasOwn(variables, name)) return this.string(variables[name], where);
      const dot = name.indexOf('.');
      const value =
        dot > 0 ? this.getAtt(name.slice(0, dot), name.slice(dot + 1), where) : this.ref(name, where);
      return this.string(value, where);
    });
  }

  private remember<T>(key: string, compute: () => T): T {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    const value = compute();
    this.memo.set(key, value);
    return value;
  }

  ref(name: string, where: string): unknown {
    if (name === 'AWS::NoValue') return NO_VALUE;
    const pseudo = PSEUDO_PARAMETERS.get(name);
    if (pseudo) return pseudo(this);
    if (own(this.template.Parameters, name))
      return this.remember(`parameter ${name}`, () => this.parameter(name, where));
    const resource = this.resources.get(name);
    if (!resource) throw this.error(where, `unknown reference ${name}`);
    return this.remember(`ref ${name}`, () =>
      this.kindOf(name, resource, where).ref(this.physical(name, where)),
    );
  }

  getAtt(logicalId: string, attribute: string, where: string): unknown {
    const resource = this.resources.get(logicalId);
    if (!resource) throw this.error(where, `Fn::GetAtt of unknown resource ${logicalId}`);
    return this.remember(`getatt ${logicalId}.${attribute}`, () => {
      if (resource.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.'))
        return this.nestedStack(logicalId).output(attribute.slice('Outputs.'.length), where);
      const read = own(this.kindOf(logicalId, resource, where).attributes, attribute);
      if (!read)
        throw this.error(where, `Fn::GetAtt ${logicalId}.${attribute} (${resource.Type}) is not supported`);
      return read(this.physical(logicalId, where));
    });
  }

  private parameter(name: string, where: string): unknown {
    const passed = this.passedParameter(name);
    if (passed !== undefined) return passed;
    const declared = own(this.template.Parameters, name);
    if (declared?.Default !== undefined && !declared.Type.startsWith('AWS::SSM::')) return declared.Default;
    throw this.error(where, `parameter ${name} has no value (not passed by a parent stack, no default)`);
  }

  private kindOf(logicalId: string, resource: TemplateResource, where: string): ResourceKind {
    const kind = resourceKinds.get(resource.Type);
    if (!kind) throw this.error(where, `references ${logicalId}, a ${resource.Type}, which is not supported`);
    return kind;
  }

  private physical(logicalId: string, where: string): Physical {
    const resource = this.resources.get(logicalId) as TemplateResource;
    const nameProperty = this.kindOf(logicalId, resource, where).nameProperty;
    const given = nameProperty ? own(resource.Properties, nameProperty) : undefined;
    const seed = hash(`${this.name}/${logicalId}`);
    return {
      name:
        given === undefined
          ? `${this.name}-${logicalId}-${seed.slice(0, 12).toUpperCase()}`
          : this.string(given, logicalId),
      id: seed.slice(0, 10),
      environment: this.assembly.environment,
    };
  }

  /** The nested stack a AWS::CloudFormation::Stack resource creates (its template is a file asset). */
  nestedStack(logicalId: string): StackTemplate {
    return this.remember(`stack ${logicalId}`, () => {
      const properties = this.resources.get(logicalId)?.Properties ?? {};
      const templateUrl = this.string(properties.TemplateURL, logicalId);
      const file = this.assembly.assetPath(templateUrl.slice(templateUrl.lastIndexOf('/') + 1));
      if (!file)
        throw this.error(logicalId, `nested template ${templateUrl} is not an asset of the assembly`);
      const parameters = (properties.Parameters ?? {}) as JsonObject;
      return new StackTemplate(
        this.assembly,
        file,
        this.physical(logicalId, logicalId).name,
        `${this.path}/${logicalId}`,
        this.assembly.readJson(file) as Template,
        (name) => (Object.hasOwn(parameters, name) ? this.evaluate(parameters[name], logicalId) : undefined),
      );
    });
  }

  private output(name: string, where: string): unknown {
    const output = own(this.template.Outputs, name);
    if (!output) throw this.error(where, `nested stack has no output ${name}`);
    return this.evaluate(output.Value, `Outputs.${name}`);
  }
}

interface ManifestArtifact {
  type: string;
  properties?: { templateFile?: string; stackName?: string; file?: string };
}

/** The stack artifact of manifest.json (exactly one) and the asset manifests beside it. */
function openAssembly(cdkOut: string, environment: Environment): StackTemplate {
  const manifestFile = join(cdkOut, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    artifacts?: Record<string, ManifestArtifact>;
  };
  const artifacts = Object.entries(manifest.artifacts ?? {});
  const stacks = artifacts.filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack');
  const [stack] = stacks;
  if (stacks.length !== 1 || !stack?.[1].properties?.templateFile)
    throw new CloudAssemblyError(`${manifestFile}: expected one stack artifact, found ${stacks.length}`);
  const [artifactId, { properties }] = stack;
  const assetManifests = artifacts.flatMap(([, artifact]) =>
    artifact.type === 'cdk:asset-manifest' && artifact.properties?.file ? [artifact.properties.file] : [],
  );
  const assembly = new Assembly(cdkOut, environment, assetManifests);
  const name = properties.stackName ?? artifactId;
  const file = properties.templateFile as string;
  return new StackTemplate(assembly, file, name, name, assembly.readJson(file) as Template, () => undefined);
}

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
