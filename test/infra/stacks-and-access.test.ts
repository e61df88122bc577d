import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { physicalFunctionName } from '../../infra/function-stack.js';
import {
  CONSOLE_FUNCTION,
  deployedFunctions,
  MCP_FUNCTION,
  OAUTH_FUNCTION,
  RECONCILE_FUNCTION,
} from '../../schemas/functions.js';
import { synthApp } from './synth-app.js';

const dev = synthApp();
const prod = synthApp({ stage: 'prod' });

type Json = Record<string, unknown>;
interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}
/** Every IAM policy statement of the app with the role it is attached to (its logical id). */
function statements(app: typeof dev): { roles: unknown[]; statement: Statement }[] {
  return [...app.all.values()].flatMap((template) =>
    Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({
        roles: policy.Properties.Roles as unknown[],
        statement,
      })),
    ),
  );
}
const actionsOf = (statement: Statement) => [statement.Action].flat();

describe('stacks', () => {
  it('keeps every stack, main and nested, well under 500 resources', () => {
    const counts = new Map(
      [...dev.all].map(([id, template]) => [id, Object.keys(template.toJSON().Resources).length]),
    );
    expect(counts.size).toBe(1 + dev.stack.functionStacks.size + dev.stack.routeStacks.size);
    for (const [id, count] of counts) expect(count, id).toBeLessThan(400);
    // The split is real: together they hold more than one stack may.
    expect([...counts.values()].reduce((sum, count) => sum + count, 0)).toBeGreaterThan(500);
  });
});

describe('table', () => {
  it('is on demand, with point-in-time recovery and TTL on expiresAt', () => {
    dev.main.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
  });

  it('is protected from deletion and retained in a production stage only', () => {
    prod.main.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    dev.main.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
      DeletionPolicy: 'Delete',
    });
  });
});

describe('secrets', () => {
  it('generates the cursor and OAuth signing secrets, retained in a production stage only', () => {
    for (const [app, policy] of [
      [prod, 'Retain'],
      [dev, 'Delete'],
    ] as const)
      for (const description of ['^CURSOR_SECRET', '^OAUTH_SIGNING_SECRET'])
        app.main.hasResource('AWS::SecretsManager::Secret', {
          Properties: Match.objectLike({
            Description: Match.stringLikeRegexp(description),
            GenerateSecretString: Match.objectLike({ ExcludePunctuation: true }),
          }),
          DeletionPolicy: policy,
        });
  });
});

describe('outputs', () => {
  /** An output's value with each Ref written `<name>` (Fn::Join flattened). */
  function outputText(name: string): string {
    const output = (dev.main.toJSON().Outputs as Json)[name] as { Value: unknown } | undefined;
    const text = (value: unknown): string => {
      if (typeof value === 'string') return value;
      const ref = (value as { Ref?: string }).Ref;
      if (ref) return `<${ref}>`;
      const [separator, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      return parts.map(text).join(separator);
    };
    return text(output?.Value);
  }
  const table = Object.keys(dev.main.findResources('AWS::DynamoDB::Table'))[0];
  const api = Object.keys(dev.main.findResources('AWS::ApiGateway::RestApi'))[0];

  it('names the API URL and the table, and the settings `npm run admin` needs against them', () => {
    expect(outputText('ApiUrl')).toBe(`https://<${api}>.execute-api.<AWS::Region>.<AWS::URLSuffix>/dev`);
    expect(outputText('TableName')).toBe(`<${table}>`);
    expect(outputText('AdminEnvironment')).toBe(
      `STORE=dynamodb DYNAMODB_ENDPOINT=https://dynamodb.<AWS::Region>.<AWS::URLSuffix> DYNAMODB_TABLE=<${table}> AWS_REGION=<AWS::Region>`,
    );
  });
});

describe('least privilege', () => {
  const all = statements(dev);

  it('grants no wildcard action anywhere', () => {
    for (const { statement } of all)
      for (const action of actionsOf(statement)) expect(action.endsWith('*'), action).toBe(false);
  });

  it('grants table actions on the table only, each limited to key prefixes except the reconcile scan', () => {
    const table = all.filter(({ statement }) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    expect(table.length).toBeGreaterThan(deployedFunctions().length);
    for (const { statement } of table) {
      expect(statement.Resource).toEqual(expect.objectContaining({ Ref: expect.stringMatching(/Table/) }));
      if (actionsOf(statement).includes('dynamodb:Scan')) {
        expect(actionsOf(statement)).toEqual(['dynamodb:Scan']);
        continue;
      }
      expect(statement.Condition?.['ForAllValues:StringLike']).toEqual({
        'dynamodb:LeadingKeys': expect.any(Array),
      });
    }
    const scanners = table.filter(({ statement }) => actionsOf(statement).includes('dynamodb:Scan'));
    expect(scanners).toHaveLength(1);
  });

  /** The statements of `functionName`'s role. */
  const statementsOf = (functionName: string) => {
    const fns = [...dev.all.values()].flatMap((template) =>
      Object.entries(
        template.findResources('AWS::Lambda::Function', {
          Properties: { FunctionName: physicalFunctionName('dev', functionName) },
        }),
      ),
    );
    const role = ((fns[0] as [string, Json])[1].Properties as { Role: { 'Fn::GetAtt': [string] } }).Role[
      'Fn::GetAtt'
    ][0];
    return all.filter(({ roles }) => JSON.stringify(roles).includes(role)).map(({ statement }) => statement);
  };
  const tableStatementsOf = (functionName: string) =>
    statementsOf(functionName).filter((s) => actionsOf(s)[0]?.startsWith('dynamodb:'));
  const prefixesOf = (statement: Statement) =>
    ((statement.Condition as Json)['ForAllValues:StringLike'] as Json)['dynamodb:LeadingKeys'] as string[];
  /** Partition-key prefix → the table actions `functionName` may take on it. */
  const accessOf = (functionName: string) => {
    const access = new Map<string, Set<string>>();
    for (const statement of tableStatementsOf(functionName))
      for (const prefix of prefixesOf(statement))
        for (const action of actionsOf(statement))
          access.set(prefix, new Set([...(access.get(prefix) ?? []), action.replace('dynamodb:', '')]));
    return access;
  };
  const AUTHORIZATION_RECORDS = ['AUTHZ#*', 'AUTHZGRANT#*', 'AUTHZUID#*'];

  it('lets a data lookup touch only account, key and probe items, and /mcp only read, but for its heartbeat and connections', () => {
    const prefixes = tableStatementsOf('profiles-details').flatMap(prefixesOf);
    expect(new Set(prefixes)).toEqual(new Set(['APIKEY#*', 'ACCOUNT#*', 'PROBE']));
    const mcp = tableStatementsOf(MCP_FUNCTION);
    expect(new Set(mcp.flatMap(actionsOf))).toEqual(new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem']));
    // Its writes: the health check's heartbeat item, and a connection's last use (the built-in
    // authorization server's tokens name their connection; /mcp records its use every 5 minutes).
    const mcpWrites = mcp.filter((s) => actionsOf(s).includes('dynamodb:UpdateItem'));
    expect(new Set(mcpWrites.flatMap(prefixesOf))).toEqual(new Set(['PROBE', 'CONNECTION#*']));
    expect(accessOf(MCP_FUNCTION).get('CONNECTION#*')).toEqual(new Set(['GetItem', 'UpdateItem']));
  });

  it('lets the oauth function touch only the authorization records and connections, never an account or a key', () => {
    const access = accessOf(OAUTH_FUNCTION);
    expect(new Set(access.keys())).toEqual(new Set([...AUTHORIZATION_RECORDS, 'CONNECTION#*']));
    for (const prefix of AUTHORIZATION_RECORDS)
      expect(access.get(prefix), prefix).toEqual(
        new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query']),
      );
    // A grant destroyed (a revoked or reused token) revokes its connection; it never creates one.
    expect(access.get('CONNECTION#*')).toEqual(new Set(['GetItem', 'UpdateItem']));
    // Its signing secret is Secrets Manager's: no settings item to read or create.
    expect(access.has('SETTING#*')).toBe(false);
  });

  it('lets the console create, list and revoke connections on top of its account grants', () => {
    const access = accessOf(CONSOLE_FUNCTION);
    for (const prefix of AUTHORIZATION_RECORDS)
      expect(access.get(prefix), prefix).toEqual(
        new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query']),
      );
    expect(access.get('CONNECTION#*')).toEqual(new Set(['GetItem', 'PutItem', 'UpdateItem']));
    // The listing entries under the account (sk CONNECTION#…): written, queried, removed on a clash.
    for (const action of ['PutItem', 'Query', 'DeleteItem'])
      expect(access.get('ACCOUNT#*')?.has(action), action).toBe(true);
  });

  it('gives no other function the authorization records or the connections (tool groups get the principal from /mcp)', () => {
    const oauthPrefixes = new Set([...AUTHORIZATION_RECORDS, 'CONNECTION#*']);
    for (const spec of deployedFunctions()) {
      if ([MCP_FUNCTION, OAUTH_FUNCTION, CONSOLE_FUNCTION, RECONCILE_FUNCTION].includes(spec.name)) continue;
      for (const prefix of accessOf(spec.name).keys())
        expect(oauthPrefixes.has(prefix), `${spec.name}: ${prefix}`).toBe(false);
    }
  });

  it('lets only the oauth, console and /mcp functions read the OAuth signing secret', () => {
    // Each nested stack reads it through a parameter named after the main stack's construct.
    expect(
      Object.keys(
        dev.main.findResources('AWS::SecretsManager::Secret', {
          Properties: { Description: Match.stringLikeRegexp('^OAUTH_SIGNING_SECRET') },
        }),
      )[0],
    ).toMatch(/^OAuthSigningSecret/);
    const readers = deployedFunctions()
      .filter((spec) =>
        statementsOf(spec.name).some(
          (statement) =>
            actionsOf(statement).includes('secretsmanager:GetSecretValue') &&
            JSON.stringify(statement.Resource).includes('OAuthSigningSecret'),
        ),
      )
      .map((spec) => spec.name);
    expect(readers.sort()).toEqual([CONSOLE_FUNCTION, MCP_FUNCTION, OAUTH_FUNCTION].sort());
  });

  it('lets only the /mcp function invoke the tool-group functions', () => {
    const invokers = all.filter(({ statement }) => actionsOf(statement).includes('lambda:InvokeFunction'));
    const mcpStack = dev.nested.get('Functions-mcp');
    const mcpRole = Object.entries(
      mcpStack?.findResources('AWS::Lambda::Function', {
        Properties: { FunctionName: physicalFunctionName('dev', MCP_FUNCTION) },
      }) ?? {},
    )[0]?.[1].Properties.Role as { 'Fn::GetAtt': [string] };
    const groups = deployedFunctions().filter((spec) => spec.kind === 'tool-group');
    expect(invokers.length).toBe(groups.length);
    for (const { roles } of invokers) expect(roles).toEqual([{ Ref: mcpRole['Fn::GetAtt'][0] }]);
  });
});

describe('operations', () => {
  it('runs reconcile every 5 minutes and alarms on 5xx, throttles, table errors and reconcile findings', () => {
    dev.main.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
    for (const id of ['Api5xxRate', 'TableErrors', 'TableThrottles', 'ReconcileErrors', 'ReconcileFindings'])
      expect(
        Object.keys(dev.main.findResources('AWS::CloudWatch::Alarm')).some((key) => key.startsWith(id)),
        id,
      ).toBe(true);
    let throttleAlarms = 0;
    for (const template of dev.nested.values())
      throttleAlarms += Object.keys(
        template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'Throttles' } }),
      ).length;
    expect(throttleAlarms).toBe(deployedFunctions().length);
  });

  it('sets a retention on every log group', () => {
    for (const template of dev.all.values())
      for (const group of Object.values(template.findResources('AWS::Logs::LogGroup')))
        expect(group.Properties.RetentionInDays).toBe(30);
  });
});
