/**
 * The service on AWS: the main stack holds the single DynamoDB table, the secrets, the REST API (its
 * mounts, the /mcp and pages routes, deployment, stage, access logs, WAF web ACL, custom domain), the reconcile
 * schedule and the alarms. The functions live in one nested stack per family (plus `mcp` and
 * `service`), the other routes in one nested stack per route group, so every stack stays far below
 * CloudFormation's 500 resources.
 */
import { createHash } from 'node:crypto';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, PAGES_FUNCTION, RECONCILE_FUNCTION } from '../schemas/functions.js';
import { BatchQueues } from './batch-queues.js';
import type { EmailEgressVpc } from './email-egress-vpc.js';
import { functionPlans } from './function-plan.js';
import { FunctionStack, type ServiceSecrets } from './function-stack.js';
import { integrations, RouteStack } from './route-stack.js';
import { addRoutes } from './route-tree.js';
import { apiRoutes, groupRoutes, MOUNTS } from './routes.js';
import type { Settings } from './settings.js';
import { protectStage } from './web-acl.js';

/** The custom CloudWatch metric the reconcile function emits (EMF) for every entry it settles. */
export const RECONCILE_METRIC = { namespace: METRICS_NAMESPACE, metricName: 'ReconcileSettled' } as const;

/** The DynamoDB operations the service sends (an alarm's math expression takes at most 10 metrics). */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.SCAN,
];

export interface LookupServiceStackProps extends StackProps {
  settings: Settings;
}

export class LookupServiceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigateway.RestApi;
  readonly functionStacks = new Map<string, FunctionStack>();
  readonly routeStacks = new Map<string, RouteStack>();

  constructor(scope: Construct, id: string, props: LookupServiceStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const plans = functionPlans();
    const routes = apiRoutes();

    this.table = this.createTable(settings);
    const alarmTopic = new sns.Topic(this, 'Alarms', { enforceSSL: true });
    if (settings.alarmEmail)
      alarmTopic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));

    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: `lookup-${settings.stage}`,
      description: 'Professional data lookup API: v1, /api/v2, /mcp',
      // A streamed answer's idle timeout is 5 minutes on regional endpoints, 30 s on edge-optimized.
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // No binaryMediaTypes: streamed answers pass the function's bytes through as written.
      deploy: false,
      cloudWatchRole: false,
    });
    const publicBaseUrl = settings.domainName
      ? `https://${settings.domainName}`
      : `https://${this.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${settings.stage}`;

    const secrets = this.secrets(settings);
    // Here, not beside their consumers: the batches and reconcile functions of the service stack send to them.
    const batchQueues = new BatchQueues(this, 'BatchQueues', {
      consumers: plans.filter((plan) => plan.kind === 'batch-consumer'),
      maxReceiveCount: settings.batchMaxReceiveCount,
      alarmTopic,
    });
    const functions = new Map<string, lambda.IFunction>();
    // One email egress VPC: made by the first stack with SMTP functions (the emails family's), used by the rest.
    let emailEgress: EmailEgressVpc | undefined;
    for (const [stack, members] of groupBy(plans, (plan) => plan.stack)) {
      const functionStack = new FunctionStack(this, `Functions-${stack}`, {
        plans: members,
        settings,
        table: this.table,
        secrets,
        publicBaseUrl,
        alarmTopic,
        batchQueues: batchQueues.queues,
        ...(emailEgress ? { emailEgress } : {}),
      });
      emailEgress ??= functionStack.emailEgress;
      this.functionStacks.set(stack, functionStack);
      for (const [name, fn] of functionStack.functions) functions.set(name, fn);
    }
    const plansByName = new Map(plans.map((plan) => [plan.name, plan]));

    // `resourceForPath` reuses a segment already made, so /api is created once for /api/v2 and /api/v2/ext.
    const mountIds = new Map(MOUNTS.map((mount) => [mount, this.api.root.resourceForPath(mount).resourceId]));

    const methods: apigateway.Method[] = [];
    const integrationFor = integrations({ functions, plans: plansByName });
    for (const [group, members] of groupRoutes(routes)) {
      if (group === undefined) {
        // The service's own pages and /mcp, in this stack; `/` itself is the pages function's too.
        methods.push(
          ...addRoutes({
            routes: members,
            resourceFor: () => ({ base: this.api.root, basePath: '/' }),
            integrationFor,
          }),
          this.api.root.addMethod('ANY', integrationFor({ path: '/', functionName: PAGES_FUNCTION })),
        );
        continue;
      }
      const routeStack = new RouteStack(this, `Routes-${group}`, {
        restApiId: this.api.restApiId,
        rootResourceId: this.api.restApiRootResourceId,
        mounts: mountIds,
        routes: members,
        functions,
        plans: plansByName,
      });
      this.routeStacks.set(group, routeStack);
    }
    const stage = this.deploy(settings, routes, methods);
    protectStage(this, stage, settings);
    if (settings.domainName && settings.certificateArn) this.customDomain(settings, stage);

    this.scheduleReconcile(functions.get(RECONCILE_FUNCTION) as lambda.IFunction);
    this.alarms(stage, alarmTopic, functions.get(RECONCILE_FUNCTION) as lambda.IFunction);

    new CfnOutput(this, 'ApiUrl', { value: publicBaseUrl, description: 'PUBLIC_BASE_URL of the service' });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'DYNAMODB_TABLE for `STORE=dynamodb npm run admin` against this deployment',
    });
    new CfnOutput(this, 'AdminEnvironment', {
      value: [
        'STORE=dynamodb',
        `DYNAMODB_ENDPOINT=https://dynamodb.${this.region}.${this.urlSuffix}`,
        `DYNAMODB_TABLE=${this.table.tableName}`,
        `AWS_REGION=${this.region}`,
      ].join(' '),
      description:
        'The settings of `npm run admin` against this deployment: `env <this> npm run admin -- ...`',
    });
  }

  private createTable(settings: Settings): dynamodb.Table {
    return new dynamodb.Table(this, 'Table', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: 'expiresAt',
      deletionProtection: settings.production,
      removalPolicy: settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }

  /**
   * CURSOR_SECRET is generated here unless given, OAUTH_SIGNING_SECRET always (the operator rotates it
   * in place: docs/aws.md); the others exist only when their mode is on.
   */
  private secrets(settings: Settings): ServiceSecrets {
    const imported = (id: string, arn: string | undefined) =>
      arn ? secretsmanager.Secret.fromSecretCompleteArn(this, id, arn) : undefined;
    const cursor =
      imported('CursorSecretImported', settings.cursorSecretArn) ??
      new secretsmanager.Secret(this, 'CursorSecret', {
        description: 'CURSOR_SECRET: signs paging cursors',
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
        removalPolicy: settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
    // Letters and digits only: the setting is a comma-separated list (newest first) once rotated.
    const oauthSigning = new secretsmanager.Secret(this, 'OAuthSigningSecret', {
      description:
        'OAUTH_SIGNING_SECRET: the built-in authorization server derives its token-signing keys from it',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const upstream = imported('UpstreamApiKey', settings.upstreamApiKeySecretArn);
    const socks = imported('SmtpSocksProxy', settings.smtpSocksSecretArn);
    return {
      CURSOR_SECRET: cursor,
      OAUTH_SIGNING_SECRET: oauthSigning,
      ...(upstream ? { UPSTREAM_API_KEY: upstream } : {}),
      ...(socks ? { SMTP_SOCKS_PROXY: socks } : {}),
    };
  }

  /**
   * The deployment waits for every method (here and in the route stacks); its logical id carries a
   * digest of the routing table, so a changed route deploys a new one (nested-stack methods do not
   * reach the deployment's automatic hash).
   */
  private deploy(
    settings: Settings,
    routes: readonly { path: string; functionName: string }[],
    methods: apigateway.Method[],
  ) {
    const deployment = new apigateway.Deployment(this, 'Deployment', { api: this.api });
    deployment.addToLogicalId(createHash('sha256').update(JSON.stringify(routes)).digest('hex'));
    for (const dependency of [...methods, ...this.routeStacks.values()])
      deployment.node.addDependency(dependency);
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: settings.logRetentionDays,
      removalPolicy: settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const stage = new apigateway.Stage(this, 'Stage', {
      deployment,
      stageName: settings.stage,
      throttlingRateLimit: settings.throttleRateLimit,
      throttlingBurstLimit: settings.throttleBurstLimit,
      accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
      accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
      metricsEnabled: true,
      tracingEnabled: settings.tracing === 'true',
    });
    this.api.deploymentStage = stage;
    return stage;
  }

  private customDomain(settings: Settings, stage: apigateway.Stage) {
    const domain = new apigateway.DomainName(this, 'Domain', {
      domainName: settings.domainName as string,
      certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', settings.certificateArn as string),
      endpointType: apigateway.EndpointType.REGIONAL,
      securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
    });
    domain.addBasePathMapping(this.api, { stage });
    new CfnOutput(this, 'DomainTarget', {
      value: domain.domainNameAliasDomainName,
      description: `CNAME (or alias) target for ${settings.domainName}`,
    });
  }

  private scheduleReconcile(reconcile: lambda.IFunction) {
    new events.Rule(this, 'ReconcileSchedule', {
      description: 'Settles the in-flight debits a timed-out or crashed function left',
      schedule: events.Schedule.rate(Duration.minutes(5)),
      targets: [new targets.LambdaFunction(reconcile, { retryAttempts: 0 })],
    });
  }

  private alarms(stage: apigateway.Stage, topic: sns.ITopic, reconcile: lambda.IFunction) {
    const action = new actions.SnsAction(topic);
    const period = Duration.minutes(5);
    const apiMetric = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiName: this.api.restApiName, Stage: stage.stageName },
        statistic: 'Sum',
        period,
      });
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold: number) =>
      new cloudwatch.Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(action);

    alarm(
      'Api5xxRate',
      'More than 5% of API requests answered 5xx over 5 minutes',
      new cloudwatch.MathExpression({
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: { errors: apiMetric('5XXError'), requests: apiMetric('Count') },
        period,
      }),
      5,
    );
    alarm(
      'TableErrors',
      'DynamoDB answered system errors on the table',
      this.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period }),
      1,
    );
    alarm(
      'TableThrottles',
      'DynamoDB throttled requests on the table',
      this.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period }),
      1,
    );
    alarm('ReconcileErrors', 'The reconcile function failed', reconcile.metricErrors({ period }), 1);
    alarm(
      'ReconcileFindings',
      'Reconcile settled in-flight debits a function left (timeouts or crashes)',
      new cloudwatch.Metric({ ...RECONCILE_METRIC, statistic: 'Sum', period }),
      1,
    );
  }
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}
