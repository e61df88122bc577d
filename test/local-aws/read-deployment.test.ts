// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax, not JavaScript's.
/**
 * readDeployment on the real CDK app, synthesized in-process into a temp cdk.out (one synth for the
 * file), and on small hand-written assemblies on disk (a nested template and a code asset found through
 * the asset manifest, an account and region of their own). The evaluator's own table, in memory:
 * stack-template.test.ts.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/build-app.js';
import { CloudAssemblyError } from '../../local-aws/cloud-assembly/cloud-assembly-error.js';
import { readDeployment } from '../../local-aws/cloud-assembly/read-deployment.js';
import type { Deployment, PolicyStatement } from '../../local-aws/deployment-model.js';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import {
  MCP_FUNCTION,
  operationFunctionName,
  PAGES_FUNCTION,
  RECONCILE_FUNCTION,
  toolGroupFunctionName,
  toolGroups,
} from '../../schemas/functions.js';
import { placeholderDist } from '../infra/synth-app.js';
import { writeAssembly } from '../support/cloud-assembly-fixture.js';

const scratch = mkdtempSync(join(tmpdir(), 'cloud-assembly-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** infra's physical name of a function of stage dev. */
const deployedName = (name: string) => `lookup-dev-${name}`;
const actionsOf = (statement: PolicyStatement) => [statement.Action].flat();
const resourcesOf = (statement: PolicyStatement) => [statement.Resource].flat();

describe('readDeployment on the synthesized app', () => {
  const cdkOut = join(scratch, 'cdk.out');
  let deployment: Deployment;
  /** Function ARN → physical name. */
  let nameOf: Map<string, string>;
  /** `ANY /v1/jobs/search` → the physical name of the function its integration invokes. */
  let routes: Map<string, string | undefined>;
  const arnOf = (name: string) => deployment.functions.find((fn) => fn.name === deployedName(name))?.arn;

  beforeAll(() => {
    const app = new App({ outdir: cdkOut, context: { distDir: placeholderDist(join(scratch, 'dist')) } });
    buildApp(app);
    app.synth();
    deployment = readDeployment(cdkOut);
    nameOf = new Map(deployment.functions.map((fn) => [fn.arn, fn.name]));
    routes = new Map(
      deployment.api.methods.map((method) => [
        `${method.httpMethod} ${method.resourcePath}`,
        nameOf.get(method.integration.functionArn),
      ]),
    );
  });

  it('routes every v1 and v2 path of the catalog with ANY to its operation function', () => {
    for (const operation of catalog)
      for (const variant of operation.variants)
        expect(routes.get(`ANY ${variant.path}`), variant.path).toBe(
          deployedName(operationFunctionName(operation.id)),
        );
    for (const route of v2Routes)
      expect(routes.get(`ANY ${route.path}`), route.path).toBe(
        deployedName(operationFunctionName(route.operation.id)),
      );
    expect(routes.size).toBe(deployment.api.methods.length);
  });

  it('routes /mcp to mcp and the catch-all and the server card to pages, every integration streamed from a deployed function', () => {
    expect(routes.get('ANY /mcp')).toBe(deployedName(MCP_FUNCTION));
    for (const path of ['/{proxy+}', '/', '/.well-known/mcp/server-card.json', '/mcp/server-card'])
      expect(routes.get(`ANY ${path}`), path).toBe(deployedName(PAGES_FUNCTION));
    for (const { resourcePath, integration } of deployment.api.methods) {
      expect(nameOf.has(integration.functionArn), resourcePath).toBe(true);
      expect(integration, resourcePath).toMatchObject({
        type: 'AWS_PROXY',
        invocation: 'streamed',
        responseTransferMode: 'STREAM',
      });
    }
    const mcp = deployment.api.methods.find((method) => method.resourcePath === '/mcp');
    expect(mcp?.integration.timeoutMs).toBeGreaterThan(45_000);
  });

  it('names the API, its stage and the account the ARNs are made in', () => {
    expect(deployment).toMatchObject({
      stackName: 'LookupService-dev',
      region: 'us-east-1',
      accountId: '123456789012',
      api: { stage: 'dev', executeApiArn: `arn:aws:execute-api:us-east-1:123456789012:${deployment.api.id}` },
    });
    expect(arnOf(MCP_FUNCTION)).toBe('arn:aws:lambda:us-east-1:123456789012:function:lookup-dev-mcp');
  });

  it('resolves every variable of every function to a plain string', () => {
    const [table] = deployment.tables;
    const [secret] = deployment.secrets;
    for (const fn of deployment.functions) {
      expect(Object.keys(fn.environment).length, fn.name).toBeGreaterThan(0);
      for (const [name, value] of Object.entries(fn.environment)) {
        expect(typeof value, `${fn.name} ${name}`).toBe('string');
        expect(value, `${fn.name} ${name}`).not.toMatch(/\$\{|\[object|undefined/);
      }
      expect(fn.environment.DYNAMODB_TABLE, fn.name).toBe(table?.name);
      if (fn.environment.CURSOR_SECRET_SECRET_ARN !== undefined)
        expect(fn.environment.CURSOR_SECRET_SECRET_ARN).toBe(secret?.arn);
    }
    const mcp = deployment.functions.find((fn) => fn.name === deployedName(MCP_FUNCTION));
    expect(mcp?.environment.PUBLIC_BASE_URL).toBe(
      `https://${deployment.api.id}.execute-api.us-east-1.amazonaws.com/dev`,
    );
  });

  it("lets /mcp invoke each tool-group function, and no other function's policy invoke any", () => {
    const invoked = (name: string) =>
      (deployment.functions.find((fn) => fn.name === deployedName(name))?.policy ?? [])
        .filter(
          (statement) =>
            statement.Effect === 'Allow' && actionsOf(statement).includes('lambda:InvokeFunction'),
        )
        .flatMap(resourcesOf)
        .sort();
    const groupArns = [...toolGroups().keys()].map((group) => arnOf(toolGroupFunctionName(group))).sort();
    expect(groupArns.length).toBeGreaterThan(0);
    expect(invoked(MCP_FUNCTION)).toEqual(groupArns);
    for (const fn of deployment.functions) {
      if (fn.name === deployedName(MCP_FUNCTION)) continue;
      const invokes = fn.policy.filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('lambda:') || action === '*'),
      );
      expect(invokes, fn.name).toEqual([]);
    }
  });

  it('gives every function its role with log and table statements on the deployed ARNs', () => {
    const [table] = deployment.tables;
    for (const fn of deployment.functions) {
      expect(fn.roleArn, fn.name).toMatch(/^arn:aws:iam::123456789012:role\//);
      const resources = fn.policy.flatMap(resourcesOf);
      expect(resources, fn.name).toContain(
        `arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/${fn.name}:*`,
      );
      expect(resources, fn.name).toContain(table?.arn);
    }
  });

  it('lets API Gateway invoke each routed function, and nothing else', () => {
    const apiGatewayMay = new Set(
      deployment.permissions
        .filter(
          (permission) =>
            permission.principal === 'apigateway.amazonaws.com' &&
            permission.action === 'lambda:InvokeFunction' &&
            permission.sourceArn?.startsWith(`${deployment.api.executeApiArn}/`),
        )
        .map((permission) => permission.functionArn),
    );
    const routed = new Set(deployment.api.methods.map((method) => method.integration.functionArn));
    expect([...apiGatewayMay].sort()).toEqual([...routed].sort());
    expect(routed.has(arnOf(toolGroupFunctionName([...toolGroups().keys()][0] as string)) as string)).toBe(
      false,
    );
  });

  it('schedules the reconcile function every 5 minutes, with EventBridge allowed to invoke it', () => {
    const reconcile = arnOf(RECONCILE_FUNCTION);
    expect(deployment.schedules).toEqual([
      { expression: 'rate(5 minutes)', intervalMs: 300_000, targetArns: [reconcile] },
    ]);
    expect(deployment.permissions).toContainEqual(
      expect.objectContaining({ functionArn: reconcile, principal: 'events.amazonaws.com' }),
    );
  });

  it('reads the table, the generated cursor and OAuth signing secrets and each function code asset', () => {
    expect(deployment.tables).toEqual([
      expect.objectContaining({
        keySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        ttlAttribute: 'expiresAt',
      }),
    ]);
    // Both generated the same way: 64 characters, no punctuation (a comma would split the OAuth list).
    expect(deployment.secrets).toEqual([
      {
        arn: expect.stringMatching(/^arn:aws:secretsmanager:us-east-1:123456789012:secret:/),
        generate: { length: 64, excludePunctuation: true },
      },
      {
        arn: expect.stringMatching(/^arn:aws:secretsmanager:us-east-1:123456789012:secret:/),
        generate: { length: 64, excludePunctuation: true },
      },
    ]);
    for (const fn of deployment.functions) {
      expect(fn.codeDirectory.startsWith(cdkOut), fn.name).toBe(true);
      expect(existsSync(join(fn.codeDirectory, 'index.mjs')), fn.name).toBe(true);
      expect(fn).toMatchObject({ handler: 'index.handler', runtime: 'nodejs24.x' });
    }
  });

  it('misses a route and a permission the templates miss, whatever the catalog says', () => {
    const edited = join(scratch, 'edited.out');
    cpSync(cdkOut, edited, { recursive: true });
    editTemplate(edited, /Routesjobs.*\.nested\.template\.json$/, (resources) => {
      for (const [id, resource] of Object.entries(resources))
        if (resource.Type === 'AWS::ApiGateway::Method' && id.startsWith('Mount0jobssearchANY'))
          delete resources[id];
    });
    editTemplate(edited, /Functionsmcp.*\.nested\.template\.json$/, (resources) => {
      for (const resource of Object.values(resources)) {
        const document = resource.Properties?.PolicyDocument as { Statement: { Sid?: string }[] } | undefined;
        if (document) document.Statement = document.Statement.filter(({ Sid }) => Sid !== 'invokejobs');
      }
    });

    const after = readDeployment(edited);
    const paths = new Set(after.api.methods.map((method) => method.resourcePath));
    expect(paths.has('/v1/jobs/search')).toBe(false);
    expect(paths.has('/api/v2/jobs/search')).toBe(true);
    expect(after.api.methods.length).toBe(deployment.api.methods.length - 1);
    const mcp = after.functions.find((fn) => fn.name === deployedName(MCP_FUNCTION));
    const invokes = mcp?.policy.flatMap(resourcesOf);
    expect(invokes).not.toContain(arnOf(toolGroupFunctionName('jobs')));
    expect(invokes).toContain(arnOf(toolGroupFunctionName('profiles')));
  });
});

const fixtureOptions = { region: 'eu-west-1', accountId: '210987654321' };
const environmentOf = (variables: Record<string, unknown>, childOutputs?: Record<string, unknown>) =>
  readDeployment(writeAssembly(scratch, { variables, childOutputs }), fixtureOptions).functions[0]
    ?.environment;

describe('the intrinsic functions of a hand-written template', () => {
  it.each([
    {
      intrinsic: 'Fn::Join with a parameter default and pseudo parameters',
      value: {
        'Fn::Join': ['-', [{ Ref: 'Greeting' }, { Ref: 'AWS::AccountId' }, { Ref: 'AWS::Partition' }]],
      },
      expected: 'hello-210987654321-aws',
    },
    {
      intrinsic: 'Fn::Sub with a map, a GetAtt, a pseudo parameter and an escaped literal',
      value: {
        'Fn::Sub': ['${Name} ${Table.Arn} ${AWS::Region} ${!Literal}', { Name: { Ref: 'AWS::StackName' } }],
      },
      expected: 'Fixture arn:aws:dynamodb:eu-west-1:210987654321:table/fixture-table eu-west-1 ${Literal}',
    },
    {
      intrinsic: 'Fn::GetAtt of a nested output (from the parameter the parent passes)',
      value: { 'Fn::GetAtt': ['Child', 'Outputs.Described'] },
      expected: 'table fixture-table in eu-west-1',
    },
    {
      intrinsic: 'Fn::Select of Fn::Split',
      value: { 'Fn::Select': [4, { 'Fn::Split': [':', { 'Fn::GetAtt': ['Fn', 'Arn'] }] }] },
      expected: '210987654321',
    },
    {
      intrinsic: 'Ref of a secret-less function: its name',
      value: { Ref: 'Fn' },
      expected: 'fixture-function',
    },
  ])('resolves $intrinsic', ({ value, expected }) => {
    const environment = environmentOf(
      { VALUE: value },
      { Described: { 'Fn::Sub': 'table ${TableName} in ${AWS::Region}' } },
    );
    expect(environment).toEqual({ VALUE: expected });
  });

  it('gives an unnamed resource a deterministic CloudFormation-style name, and drops AWS::NoValue', () => {
    const variables = { ROLE: { Ref: 'Role' }, GONE: { Ref: 'AWS::NoValue' } };
    const first = environmentOf(variables);
    expect(first).toEqual({ ROLE: expect.stringMatching(/^Fixture-Role-[0-9A-F]{12}$/) });
    expect(environmentOf(variables)).toEqual(first);
    const deployment = readDeployment(writeAssembly(scratch), fixtureOptions);
    expect(deployment.functions[0]?.roleArn).toBe(`arn:aws:iam::210987654321:role/${first?.ROLE}`);
    expect(deployment.api).toMatchObject({ stage: 'test', methods: [] });
    expect(existsSync(join(deployment.functions[0]?.codeDirectory as string, 'index.mjs'))).toBe(true);
  });

  it.each([
    { value: { Ref: 'Missing' }, message: 'Fixture.template.json, Fn: unknown reference Missing' },
    {
      value: { 'Fn::Base64': 'text' },
      message: 'Fixture.template.json, Fn: unsupported intrinsic function Fn::Base64',
    },
    {
      value: { 'Fn::GetAtt': ['Table', 'StreamArn'] },
      message:
        'Fixture.template.json, Fn: Fn::GetAtt Table.StreamArn (AWS::DynamoDB::Table) is not supported',
    },
    {
      value: { 'Fn::GetAtt': ['Child', 'Outputs.Broken'] },
      message: 'Child.nested.template.json, Outputs.Broken: unknown reference Nowhere',
    },
    {
      value: { 'Fn::Join': ['', [{ Ref: 'Child' }, { 'Fn::Split': [',', 'a,b'] }]] },
      message: 'Fn: expected a string',
    },
  ])('fails on $value naming the template and the logical id', ({ value, message }) => {
    const read = () => environmentOf({ VALUE: value }, { Broken: { Ref: 'Nowhere' } });
    expect(read).toThrow(CloudAssemblyError);
    expect(read).toThrow(message);
  });
});

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** Rewrites the one template of cdk.out whose file name matches. */
function editTemplate(cdkOut: string, file: RegExp, change: (resources: Resources) => void) {
  const [name, ...others] = readdirSync(cdkOut).filter((entry) => file.test(entry));
  if (!name || others.length > 0) throw new Error(`expected one template matching ${file} in ${cdkOut}`);
  const template = JSON.parse(readFileSync(join(cdkOut, name), 'utf8')) as { Resources: Resources };
  change(template.Resources);
  writeFileSync(join(cdkOut, name), JSON.stringify(template));
}
