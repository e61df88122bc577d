/**
 * Table tests of the rules start:synth enforces on its own: API Gateway's route selection (static
 * part, then `{param}`, then greedy `{proxy+}`; a method before ANY), its proxy event, and the IAM
 * check (an explicit Deny wins; an Allow must match action, resource and its conditions, such as the
 * partition keys a DynamoDB request touches).
 */
import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../local-aws/api-gateway.js';
import type { ApiMethod, DeployedTable, PolicyStatement } from '../../local-aws/deployment-model.js';
import { isAllowed } from '../../local-aws/iam.js';
import { partitionKeysOf, tableNamesOf } from '../../local-aws/local-dynamodb.js';
import { proxyEvent } from '../../local-aws/proxy-event.js';

const method = (httpMethod: string, resourcePath: string): ApiMethod => ({
  httpMethod,
  resourcePath,
  integration: {
    type: 'AWS_PROXY',
    functionArn: `arn:aws:lambda:us-east-1:123456789012:function:${httpMethod}${resourcePath}`,
    invocation: 'streamed',
    timeoutMs: 29_000,
    responseTransferMode: 'STREAM',
  },
});

const table = new RouteTable([
  method('ANY', '/'),
  method('ANY', '/{proxy+}'),
  method('ANY', '/v1/jobs/search'),
  method('GET', '/v1/jobs/search'),
  method('ANY', '/api/v2/profiles/{username}'),
  method('ANY', '/api/v2/profiles/{username}/posts'),
  method('ANY', '/api/v2/profiles/me'),
  method('ANY', '/docs/{proxy+}'),
]);

describe('RouteTable', () => {
  it.each([
    ['GET', '/', '/', null],
    ['POST', '/v1/jobs/search', 'ANY /v1/jobs/search', null],
    ['GET', '/v1/jobs/search', 'GET /v1/jobs/search', null],
    ['GET', '/api/v2/profiles/me', 'ANY /api/v2/profiles/me', null],
    ['GET', '/api/v2/profiles/jane', 'ANY /api/v2/profiles/{username}', { username: 'jane' }],
    ['GET', '/api/v2/profiles/j%C3%A9r%C3%B4me', 'ANY /api/v2/profiles/{username}', { username: 'jérôme' }],
    ['GET', '/api/v2/profiles/jane/posts', 'ANY /api/v2/profiles/{username}/posts', { username: 'jane' }],
    ['GET', '/api/v2/profiles/jane/likes', 'ANY /{proxy+}', { proxy: 'api/v2/profiles/jane/likes' }],
    ['GET', '/docs/assets/a.css', 'ANY /docs/{proxy+}', { proxy: 'assets/a.css' }],
    ['GET', '/v1/jobs', 'ANY /{proxy+}', { proxy: 'v1/jobs' }],
    ['GET', '/constructor', 'ANY /{proxy+}', { proxy: 'constructor' }],
    ['GET', '/__proto__/x', 'ANY /{proxy+}', { proxy: '__proto__/x' }],
  ])('%s %s → %s', (httpMethod, path, expected, pathParameters) => {
    const matched = table.match(httpMethod, path);
    const [expectedMethod, expectedPath] = expected === '/' ? ['ANY', '/'] : expected.split(' ');
    expect(matched?.method.httpMethod).toBe(expectedMethod);
    expect(matched?.method.resourcePath).toBe(expectedPath);
    expect(matched?.pathParameters).toEqual(pathParameters);
  });

  it('matches nothing without a catch-all', () => {
    const bare = new RouteTable([method('ANY', '/v1/jobs/search')]);
    expect(bare.match('GET', '/v1/jobs/details')).toBeUndefined();
    expect(bare.match('GET', '/')).toBeUndefined();
  });
});

const target = 'arn:aws:lambda:us-east-1:123456789012:function:lookup-dev-mcp-group-jobs';
const allow = (Action: string | string[], Resource: string | string[]): PolicyStatement => ({
  Effect: 'Allow',
  Action,
  Resource,
});

describe('isAllowed', () => {
  it.each<[string, PolicyStatement[], boolean]>([
    ['an exact grant', [allow('lambda:InvokeFunction', target)], true],
    [
      'a grant among several actions and resources',
      [allow(['logs:PutLogEvents', 'lambda:InvokeFunction'], ['x', target])],
      true,
    ],
    ['an action wildcard', [allow('lambda:*', target)], true],
    ['actions are case-insensitive', [allow('Lambda:invokefunction', target)], true],
    [
      'a resource wildcard',
      [allow('lambda:InvokeFunction', 'arn:aws:lambda:us-east-1:123456789012:function:lookup-dev-*')],
      true,
    ],
    ['no statement', [], false],
    ['another function', [allow('lambda:InvokeFunction', `${target}-other`)], false],
    ['another action', [allow('lambda:GetFunction', target)], false],
    ['resources are case-sensitive', [allow('lambda:InvokeFunction', target.toUpperCase())], false],
    [
      'a condition the request does not meet does not grant',
      [
        {
          ...allow('lambda:InvokeFunction', target),
          Condition: { StringEquals: { 'aws:SourceAccount': '1' } },
        },
      ],
      false,
    ],
    [
      'an explicit deny wins',
      [allow('lambda:*', '*'), { Effect: 'Deny', Action: 'lambda:InvokeFunction', Resource: target }],
      false,
    ],
  ])('%s', (_, policy, expected) => {
    expect(isAllowed(policy, 'lambda:InvokeFunction', target)).toBe(expected);
  });
});

describe('isAllowed with dynamodb:LeadingKeys', () => {
  const table = 'arn:aws:dynamodb:us-east-1:123456789012:table/lookup';
  const billing: PolicyStatement = {
    Effect: 'Allow',
    Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    Resource: table,
    Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*'] } },
  };
  const keys = (...values: string[]) => new Map([['dynamodb:LeadingKeys', values]]);
  it.each<[string, string, string[], boolean]>([
    ['a key of the granted prefix', 'dynamodb:UpdateItem', ['ACCOUNT#acct_1'], true],
    ['a key of another prefix', 'dynamodb:UpdateItem', ['APIKEY#abc'], false],
    ['one key outside the prefix among several', 'dynamodb:GetItem', ['ACCOUNT#1', 'CURSOR#x'], false],
    ['no key at all (ForAllValues of nothing holds)', 'dynamodb:GetItem', [], true],
    ['an action not granted', 'dynamodb:DeleteItem', ['ACCOUNT#1'], false],
  ])('%s', (_, action, values, expected) => {
    expect(isAllowed([billing], action, table, keys(...values))).toBe(expected);
  });

  it('does not grant through a condition operator it cannot evaluate', () => {
    const odd: PolicyStatement = {
      ...billing,
      Condition: { 'ForAllValues:ArnLike': { 'dynamodb:LeadingKeys': ['*'] } },
    };
    expect(isAllowed([odd], 'dynamodb:GetItem', table, keys('ACCOUNT#1'))).toBe(false);
  });
});

describe('partitionKeysOf', () => {
  const table: DeployedTable = {
    name: 'lookup',
    arn: 'arn:aws:dynamodb:us-east-1:123456789012:table/lookup',
    keySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    attributeDefinitions: [],
  };
  it.each<[string, Parameters<typeof partitionKeysOf>[0], string[]]>([
    [
      'a GetItem key',
      { TableName: 'lookup', Key: { pk: { S: 'ACCOUNT#1' }, sk: { S: 'BALANCE' } } },
      ['ACCOUNT#1'],
    ],
    [
      'a PutItem item',
      { TableName: 'lookup', Item: { pk: { S: 'CURSOR#c' }, sk: { S: 'C' } } },
      ['CURSOR#c'],
    ],
    [
      'a Query key condition',
      {
        TableName: 'lookup',
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: 'ACCOUNT#2' }, ':prefix': { S: 'LEDGER#' } },
      },
      ['ACCOUNT#2'],
    ],
    [
      'a Query through a name placeholder',
      {
        TableName: 'lookup',
        KeyConditionExpression: '#k = :v',
        ExpressionAttributeNames: { '#k': 'pk' },
        ExpressionAttributeValues: { ':v': { S: 'APIKEY#h' } },
      },
      ['APIKEY#h'],
    ],
    ['a Scan', { TableName: 'lookup' }, []],
    [
      "a BatchWriteItem's puts and deletes on the table (each key once, other tables' left out)",
      {
        RequestItems: {
          lookup: [
            { PutRequest: { Item: { pk: { S: 'BATCH#b1' }, sk: { S: 'ITEM#0' } } } },
            { PutRequest: { Item: { pk: { S: 'BATCH#b1' }, sk: { S: 'ITEM#1' } } } },
            { DeleteRequest: { Key: { pk: { S: 'ACCOUNT#1' }, sk: { S: 'BATCH#b1' } } } },
          ],
          other: [{ PutRequest: { Item: { pk: { S: 'ELSEWHERE#1' }, sk: { S: 'X' } } } }],
        },
      },
      ['BATCH#b1', 'ACCOUNT#1'],
    ],
    [
      "a BatchGetItem's keys",
      { RequestItems: { lookup: { Keys: [{ pk: { S: 'APIKEY#a' }, sk: { S: 'KEY' } }] } } },
      ['APIKEY#a'],
    ],
  ])('%s', (_, request, expected) => {
    expect(partitionKeysOf(request, table)).toEqual(expected);
  });

  it('checks every table a batch operation names, and the one a single request names', () => {
    expect(tableNamesOf({ RequestItems: { lookup: [], other: { Keys: [] } } })).toEqual(['lookup', 'other']);
    expect(tableNamesOf({ TableName: 'lookup', Key: {} })).toEqual(['lookup']);
  });
});

describe('proxyEvent', () => {
  it('keeps client-chosen names such as __proto__ and constructor as plain own entries', () => {
    const event = proxyEvent(
      {
        httpMethod: 'GET',
        path: '/v1/jobs/search',
        query: [
          ['__proto__', 'a'],
          ['constructor', 'b'],
          ['__proto__', 'c'],
        ],
        headers: [['__proto__', 'h']],
        body: null,
        sourceIp: '127.0.0.1',
        protocol: 'HTTP/1.1',
        requestId: 'req-1',
      },
      { resourcePath: '/v1/jobs/search', pathParameters: null, stage: 'dev', apiId: 'api', accountId: '1' },
    );
    // A variable key: `.__proto__` would read the prototype, not the entry.
    const proto = '__proto__';
    expect(Object.getPrototypeOf(event.multiValueQueryStringParameters)).toBe(Object.prototype);
    expect(Object.hasOwn(event.multiValueQueryStringParameters ?? {}, proto)).toBe(true);
    expect(event.multiValueQueryStringParameters?.[proto]).toEqual(['a', 'c']);
    expect(event.queryStringParameters?.[proto]).toBe('c');
    expect(event.queryStringParameters?.constructor).toBe('b');
    expect(event.multiValueHeaders[proto]).toEqual(['h']);
    expect(event.requestContext.stage).toBe('dev');
    expect(event.requestContext.path).toBe('/dev/v1/jobs/search');
  });
});
