import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionPlans, integrationTimeoutSeconds } from '../../infra/function-plan.js';
import { BUNDLED_DATASET_PATH, physicalFunctionName } from '../../infra/function-stack.js';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import {
  CONSOLE_FUNCTION,
  deployedFunctions,
  MCP_FUNCTION,
  OAUTH_FUNCTION,
  operationFunctionName,
  PAGES_FUNCTION,
  toolGroupFunctionVariable,
  toolGroups,
} from '../../schemas/functions.js';
import { deployedRoutes, synthApp } from './synth-app.js';

const synthesized = synthApp();
const name = (functionName: string) => physicalFunctionName('dev', functionName);

type Json = Record<string, unknown>;
/** Every Lambda function of the app: physical name → properties. */
const functions = new Map<string, Json>();
for (const template of synthesized.all.values())
  for (const [, resource] of Object.entries(template.findResources('AWS::Lambda::Function')))
    functions.set(resource.Properties.FunctionName as string, resource.Properties as Json);
const routes = deployedRoutes(synthesized);

describe('functions', () => {
  it('deploys one function per operation, per tool group, /mcp, pages, console, oauth and reconcile, and nothing else', () => {
    expect([...functions.keys()].sort()).toEqual(
      deployedFunctions()
        .map((spec) => name(spec.name))
        .sort(),
    );
    for (const operation of catalog)
      expect(functions.has(name(operationFunctionName(operation.id)))).toBe(true);
    expect(toolGroups().size).toBeGreaterThan(0);
    for (const own of [MCP_FUNCTION, PAGES_FUNCTION, CONSOLE_FUNCTION, OAUTH_FUNCTION, 'reconcile'])
      expect(functions.has(name(own)), own).toBe(true);
  });

  it('runs each bundle as index.handler on Node.js 24, website functions on x86_64 and the rest on ARM64', () => {
    for (const plan of functionPlans()) {
      const fn = functions.get(name(plan.name)) as Json;
      expect(fn.Runtime).toBe('nodejs24.x');
      expect(fn.Handler).toBe('index.handler');
      const browser = plan.operations.some((operation) =>
        (operation.runtime.needs as readonly string[]).includes('browser'),
      );
      expect(fn.Architectures, plan.name).toEqual([browser ? 'x86_64' : 'arm64']);
    }
    expect(functions.get(name('websites-text'))?.Architectures).toEqual(['x86_64']);
    expect(functions.get(name('profiles-details'))?.Architectures).toEqual(['arm64']);
  });

  it('gives each operation its catalog memory and a timeout past its deadline; websites 2 GB and 1 GB of /tmp', () => {
    for (const operation of catalog) {
      const fn = functions.get(name(operationFunctionName(operation.id))) as Json;
      expect(fn.MemorySize).toBeGreaterThanOrEqual(operation.runtime.memoryMb);
      expect(fn.Timeout as number).toBeGreaterThan(operation.runtime.timeoutMs / 1000);
      if ((operation.runtime.needs as readonly string[]).includes('browser')) {
        expect(fn.MemorySize).toBeGreaterThanOrEqual(2048);
        expect(fn.EphemeralStorage).toEqual({ Size: 1024 });
      }
    }
  });

  it('sizes a tool group for the largest and slowest of its operations, and /mcp past the 45 s deadline', () => {
    for (const [group, members] of toolGroups()) {
      const fn = functions.get(name(`mcp-group-${group}`)) as Json;
      const operations = catalog.filter((operation) => (members as string[]).includes(operation.id));
      expect(fn.MemorySize).toBe(Math.max(...operations.map((operation) => operation.runtime.memoryMb)));
      expect(fn.Timeout as number).toBeGreaterThan(
        Math.max(...operations.map((o) => o.runtime.timeoutMs)) / 1000,
      );
    }
    expect(functions.get(name(MCP_FUNCTION))?.Timeout as number).toBeGreaterThan(45);
  });

  it('tells every function the table, data functions the bundled dataset, and /mcp each tool group function', () => {
    for (const plan of functionPlans()) {
      const variables = ((functions.get(name(plan.name)) as Json).Environment as { Variables: Json })
        .Variables;
      expect(variables.DYNAMODB_TABLE, plan.name).toBeDefined();
      expect(variables.STORE).toBe('dynamodb');
      expect(variables.DATASET, plan.name).toBe(plan.readsData ? BUNDLED_DATASET_PATH : undefined);
    }
    const mcp = ((functions.get(name(MCP_FUNCTION)) as Json).Environment as { Variables: Json }).Variables;
    for (const group of toolGroups().keys())
      expect(mcp[toolGroupFunctionVariable(group)]).toBe(name(`mcp-group-${group}`));
    expect(toolGroupFunctionVariable('profile-activity')).toBe('TOOL_GROUP_FUNCTION_PROFILE_ACTIVITY');
  });

  it('passes the cursor secret by ARN to the functions that page with cursors (the console’s Activity too), and only to them', () => {
    const variablesOf = (functionName: string) =>
      ((functions.get(name(functionName)) as Json).Environment as { Variables: Json }).Variables;
    for (const plan of functionPlans()) {
      const cursors =
        plan.kind === 'console' || plan.operations.some((operation) => operation.paging === 'cursor');
      expect(variablesOf(plan.name).CURSOR_SECRET_SECRET_ARN !== undefined, plan.name).toBe(cursors);
      expect(variablesOf(plan.name).CURSOR_SECRET).toBeUndefined();
    }
    expect(variablesOf('profiles-posts').CURSOR_SECRET_SECRET_ARN).toBeDefined();
    expect(variablesOf('mcp-group-profile-activity').CURSOR_SECRET_SECRET_ARN).toBeDefined();
  });

  it('passes the OAuth signing secret by ARN to the functions that sign or verify tokens (oauth, console, /mcp), and only to them', () => {
    const variablesOf = (functionName: string) =>
      ((functions.get(name(functionName)) as Json).Environment as { Variables: Json }).Variables;
    const holders = functionPlans()
      .filter((plan) => variablesOf(plan.name).OAUTH_SIGNING_SECRET_SECRET_ARN !== undefined)
      .map((plan) => plan.name);
    expect(holders.sort()).toEqual([CONSOLE_FUNCTION, MCP_FUNCTION, OAUTH_FUNCTION].sort());
    for (const plan of functionPlans()) expect(variablesOf(plan.name).OAUTH_SIGNING_SECRET).toBeUndefined();
    // One secret, the stack's own, generated: letters and digits (a comma would split it in two).
    const secrets = synthesized.main.findResources('AWS::SecretsManager::Secret', {
      Properties: { Description: Match.stringLikeRegexp('^OAUTH_SIGNING_SECRET') },
    });
    expect(Object.keys(secrets)).toHaveLength(1);
    const [logicalId, secret] = Object.entries(secrets)[0] as [string, { Properties: Json }];
    const generated = secret.Properties.GenerateSecretString as Json;
    expect(generated.ExcludePunctuation).toBe(true);
    expect(generated.PasswordLength as number).toBeGreaterThanOrEqual(43);
    const arns = new Set(
      holders.map((holder) => JSON.stringify(variablesOf(holder).OAUTH_SIGNING_SECRET_SECRET_ARN)),
    );
    expect(arns.size).toBe(1);
    // Each holder reads the main stack's secret, passed to its nested stack as a parameter.
    expect(JSON.stringify(synthesized.main.toJSON().Resources)).toContain(`{"Ref":"${logicalId}"}`);
  });
});

describe('routes', () => {
  it('sends every v1 path to its operation function with ANY', () => {
    for (const operation of catalog)
      for (const variant of operation.variants)
        expect(routes.get(`ANY ${variant.path}`), variant.path).toBe(
          name(operationFunctionName(operation.id)),
        );
  });

  it('sends every /api/v2 path to its operation function with ANY', () => {
    for (const route of v2Routes)
      expect(routes.get(`ANY ${route.path}`), route.path).toBe(
        name(operationFunctionName(route.operation.id)),
      );
  });

  it('sends /mcp to the MCP function and the service pages, PRM, the server card, /healthz and everything else to pages', () => {
    expect(routes.get('ANY /mcp')).toBe(name(MCP_FUNCTION));
    for (const path of [
      '/',
      '/openapi.json',
      '/docs',
      '/docs/{proxy+}',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/mcp/server-card.json',
      '/mcp/server-card',
      '/healthz',
      '/{proxy+}',
    ])
      expect(routes.get(`ANY ${path}`), path).toBe(name(PAGES_FUNCTION));
  });

  it('sends the authorization server metadata and /oauth (token, registration, revocation, authorize) to the oauth function', () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/oauth', '/oauth/{proxy+}'])
      expect(routes.get(`ANY ${path}`), path).toBe(name(OAUTH_FUNCTION));
    // The consent page is the console's.
    expect(routes.get('ANY /console/{proxy+}')).toBe(name(CONSOLE_FUNCTION));
  });

  it('gives no route to a tool-group, a batch consumer or the reconcile function', () => {
    const routed = new Set(routes.values());
    for (const spec of deployedFunctions())
      expect(routed.has(name(spec.name)), spec.name).toBe(
        spec.kind !== 'tool-group' && spec.kind !== 'reconcile' && spec.kind !== 'batch-consumer',
      );
    expect(routes.size).toBe(
      // /mcp, the pages function's 11, the console's 2, the authorization server's 3, the batches 5.
      catalog.reduce((sum, operation) => sum + operation.variants.length, 0) +
        v2Routes.length +
        1 +
        11 +
        2 +
        3 +
        5,
    );
  });

  it('raises the integration timeout above 29 s where the budget needs it, and only there', () => {
    const timeouts = new Map<number, number>();
    for (const template of synthesized.all.values())
      for (const method of Object.values(template.findResources('AWS::ApiGateway::Method'))) {
        const timeout = (method.Properties.Integration as Json).TimeoutInMillis as number;
        timeouts.set(timeout, (timeouts.get(timeout) ?? 0) + 1);
      }
    const plans = new Map(functionPlans().map((plan) => [plan.name, plan]));
    const website = integrationTimeoutSeconds(plans.get('websites-text') as never);
    expect(website).toBeGreaterThan(35);
    expect(integrationTimeoutSeconds(plans.get('emails-verify') as never)).toBeGreaterThan(40);
    expect(integrationTimeoutSeconds(plans.get(MCP_FUNCTION) as never)).toBeGreaterThan(45);
    expect(integrationTimeoutSeconds(plans.get('profiles-details') as never)).toBe(29);
    expect(timeouts.get(website * 1000)).toBeGreaterThanOrEqual(6);
    expect(timeouts.get(29_000)).toBeGreaterThan(100);
  });

  it('streams every integration from its function (InvokeWithResponseStream), so no answer meets the 6 MB cap', () => {
    let methods = 0;
    for (const template of synthesized.all.values())
      for (const method of Object.values(template.findResources('AWS::ApiGateway::Method'))) {
        const integration = method.Properties.Integration as Json;
        expect(integration.Type).toBe('AWS_PROXY');
        expect(integration.ResponseTransferMode).toBe('STREAM');
        expect(JSON.stringify(integration.Uri)).toContain('/response-streaming-invocations');
        methods += 1;
      }
    expect(methods).toBe(routes.size);
  });

  it('serves a regional API with no binary media types, with throttling and JSON access logs', () => {
    synthesized.main.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: Match.absent(),
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    synthesized.main.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      AccessLogSetting: { Format: Match.stringLikeRegexp('^\\{"requestId"') },
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
      ]),
    });
  });

  it('grants API Gateway one invoke permission per function and route stack, none per method', () => {
    let permissions = 0;
    for (const template of synthesized.all.values())
      permissions += Object.keys(
        template.findResources('AWS::Lambda::Permission', {
          Properties: { Principal: 'apigateway.amazonaws.com' },
        }),
      ).length;
    expect(permissions).toBeLessThan(new Set(routes.values()).size * 2);
  });
});
