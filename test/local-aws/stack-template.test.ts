// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax, not JavaScript's.
/**
 * The CloudFormation intrinsic-function evaluator on its own: templates held in memory (a root stack
 * and one nested stack), each supported function and pseudo parameter resolved for one local account,
 * and each refusal a CloudAssemblyError naming the template and the logical id.
 */
import { describe, expect, it } from 'vitest';
import { CloudAssemblyError } from '../../local-aws/cloud-assembly/cloud-assembly-error.js';
import {
  type AssemblyFiles,
  StackTemplate,
  type Template,
} from '../../local-aws/cloud-assembly/stack-template.js';

const ACCOUNT = { region: 'eu-west-1', accountId: '210987654321' };

const child: Template = {
  Parameters: { TableName: { Type: 'String' } },
  Outputs: {
    Described: { Value: { 'Fn::Sub': 'table ${TableName} in ${AWS::Region}' } },
    OwnName: { Value: { Ref: 'AWS::StackName' } },
  },
};

const root: Template = {
  Parameters: {
    Greeting: { Type: 'String', Default: 'hello' },
    Required: { Type: 'String' },
    FromSsm: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/lookup/greeting' },
  },
  Resources: {
    CDKMetadata: { Type: 'AWS::CDK::Metadata', Properties: {} },
    Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'fixture' } },
    Role: { Type: 'AWS::IAM::Role', Properties: {} },
    Table: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'fixture-table' } },
    Topic: { Type: 'AWS::SNS::Topic', Properties: { TopicName: 'fixture-topic' } },
    Secret: { Type: 'AWS::SecretsManager::Secret', Properties: { Name: 'fixture-secret' } },
    Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: { FunctionName: { 'Fn::Sub': '${Greeting}-function' } },
    },
    Child: {
      Type: 'AWS::CloudFormation::Stack',
      Properties: {
        TemplateURL: { 'Fn::Join': ['', ['https://s3.', { Ref: 'AWS::URLSuffix' }, '/assets/child.json']] },
        Parameters: { TableName: { Ref: 'Table' } },
      },
    },
    Orphan: {
      Type: 'AWS::CloudFormation::Stack',
      Properties: { TemplateURL: 'https://s3/assets/gone.json' },
    },
  },
};

/** The cloud assembly's side, in memory: one asset (the nested template) and the local account. */
function filesOf(templates: Record<string, Template>, assets: Record<string, string>): AssemblyFiles {
  return {
    environment: ACCOUNT,
    assetPath: (objectKey) => (Object.hasOwn(assets, objectKey) ? assets[objectKey] : undefined),
    readJson: (file) => structuredClone(templates[file]),
  };
}

const files = filesOf(
  { 'Child.nested.template.json': child },
  { 'child.json': 'Child.nested.template.json' },
);
const stack = () => StackTemplate.root(files, 'Fixture.template.json', 'Fixture', structuredClone(root));
const generated = (logicalId: string) =>
  expect.stringMatching(new RegExp(`^Fixture-${logicalId}-[0-9A-F]{12}$`));

describe('the intrinsic-function evaluator', () => {
  it.each([
    {
      intrinsic: 'a plain value, unchanged',
      value: { Port: 42, On: true },
      expected: { Port: 42, On: true },
    },
    { intrinsic: 'Ref of a parameter default', value: { Ref: 'Greeting' }, expected: 'hello' },
    { intrinsic: 'Ref AWS::Region', value: { Ref: 'AWS::Region' }, expected: 'eu-west-1' },
    { intrinsic: 'Ref AWS::AccountId', value: { Ref: 'AWS::AccountId' }, expected: '210987654321' },
    { intrinsic: 'Ref AWS::Partition', value: { Ref: 'AWS::Partition' }, expected: 'aws' },
    { intrinsic: 'Ref AWS::URLSuffix', value: { Ref: 'AWS::URLSuffix' }, expected: 'amazonaws.com' },
    { intrinsic: 'Ref AWS::StackName', value: { Ref: 'AWS::StackName' }, expected: 'Fixture' },
    { intrinsic: 'Ref of a named table: its name', value: { Ref: 'Table' }, expected: 'fixture-table' },
    { intrinsic: 'Ref of a function named by Fn::Sub', value: { Ref: 'Fn' }, expected: 'hello-function' },
    {
      intrinsic: 'Ref of an unnamed role: a generated name',
      value: { Ref: 'Role' },
      expected: generated('Role'),
    },
    {
      intrinsic: 'Ref of a topic: its ARN',
      value: { Ref: 'Topic' },
      expected: 'arn:aws:sns:eu-west-1:210987654321:fixture-topic',
    },
    {
      intrinsic: 'Ref of a secret: its ARN',
      value: { Ref: 'Secret' },
      expected: 'arn:aws:secretsmanager:eu-west-1:210987654321:secret:fixture-secret',
    },
    {
      intrinsic: 'Ref of a REST API: a generated id',
      value: { Ref: 'Api' },
      expected: expect.stringMatching(/^[0-9a-f]{10}$/),
    },
    {
      intrinsic: 'Fn::GetAtt as a list',
      value: { 'Fn::GetAtt': ['Table', 'Arn'] },
      expected: 'arn:aws:dynamodb:eu-west-1:210987654321:table/fixture-table',
    },
    {
      intrinsic: 'Fn::GetAtt as a dotted name',
      value: { 'Fn::GetAtt': 'Fn.Arn' },
      expected: 'arn:aws:lambda:eu-west-1:210987654321:function:hello-function',
    },
    {
      intrinsic: "Fn::GetAtt of a nested stack's output, from the parameter the parent passes",
      value: { 'Fn::GetAtt': ['Child', 'Outputs.Described'] },
      expected: 'table fixture-table in eu-west-1',
    },
    {
      intrinsic: "a nested stack's own AWS::StackName: the parent's generated name for it",
      value: { 'Fn::GetAtt': ['Child', 'Outputs.OwnName'] },
      expected: generated('Child'),
    },
    {
      intrinsic: 'Fn::Join, numbers and booleans as CloudFormation coerces them',
      value: { 'Fn::Join': ['-', ['a', { Ref: 'AWS::Partition' }, 3, true]] },
      expected: 'a-aws-3-true',
    },
    {
      intrinsic: 'Fn::Sub of Refs, a GetAtt and an escaped literal',
      value: { 'Fn::Sub': '${AWS::Region}/${Table}/${Table.Arn}/${!Literal}' },
      expected:
        'eu-west-1/fixture-table/arn:aws:dynamodb:eu-west-1:210987654321:table/fixture-table/${Literal}',
    },
    {
      intrinsic: "Fn::Sub with a variable map (the map's name wins over a parameter)",
      value: { 'Fn::Sub': ['${Greeting}, ${Who}', { Greeting: 'hi', Who: { Ref: 'AWS::AccountId' } }] },
      expected: 'hi, 210987654321',
    },
    { intrinsic: 'Fn::Split', value: { 'Fn::Split': [',', 'a,b,c'] }, expected: ['a', 'b', 'c'] },
    {
      intrinsic: 'Fn::Select of Fn::Split',
      value: { 'Fn::Select': [4, { 'Fn::Split': [':', { 'Fn::GetAtt': ['Table', 'Arn'] }] }] },
      expected: '210987654321',
    },
    {
      intrinsic: 'AWS::NoValue, dropped from a list',
      value: { 'Fn::Join': [',', ['a', { Ref: 'AWS::NoValue' }, 'b']] },
      expected: 'a,b',
    },
    {
      intrinsic: 'AWS::NoValue, dropped from an object',
      value: { Keep: 'x', Gone: { Ref: 'AWS::NoValue' } },
      expected: { Keep: 'x' },
    },
  ])('resolves $intrinsic', ({ value, expected }) => {
    expect(stack().evaluate(value, 'Probe')).toEqual(expected);
  });

  it('gives a resource the same physical name on every read, and lists the nested stack after its parent', () => {
    const first = stack();
    expect(first.evaluate({ Ref: 'Role' }, 'Probe')).toBe(stack().evaluate({ Ref: 'Role' }, 'Probe'));
    const template = structuredClone(root);
    delete template.Resources?.Orphan;
    const withoutOrphan = StackTemplate.root(files, 'Fixture.template.json', 'Fixture', template);
    expect(withoutOrphan.withNestedStacks().map(({ file }) => file)).toEqual([
      'Fixture.template.json',
      'Child.nested.template.json',
    ]);
  });

  it.each([
    {
      value: { 'Fn::Base64': 'text' },
      message: 'Fixture.template.json, Probe: unsupported intrinsic function Fn::Base64',
    },
    {
      value: { 'Fn::If': ['On', 'a', 'b'] },
      message: 'Fixture.template.json, Probe: unsupported intrinsic function Fn::If',
    },
    { value: { Ref: 'Missing' }, message: 'Fixture.template.json, Probe: unknown reference Missing' },
    { value: { Ref: ['Table'] }, message: 'Fixture.template.json, Probe: Ref takes a name, got ["Table"]' },
    {
      value: { 'Fn::GetAtt': ['Table', 'StreamArn'] },
      message:
        'Fixture.template.json, Probe: Fn::GetAtt Table.StreamArn (AWS::DynamoDB::Table) is not supported',
    },
    { value: { 'Fn::GetAtt': ['Nowhere', 'Arn'] }, message: 'Probe: Fn::GetAtt of unknown resource Nowhere' },
    {
      value: { Ref: 'Bucket' },
      message: 'Fixture.template.json, Probe: references Bucket, a AWS::S3::Bucket, which is not supported',
    },
    { value: { 'Fn::Select': [3, ['a', 'b']] }, message: 'Probe: Fn::Select index 3 is outside a list of 2' },
    { value: { 'Fn::Join': ['', 'not a list'] }, message: 'Probe: Fn::Join needs a list, got "not a list"' },
    { value: { 'Fn::Join': ['', [['nested']]] }, message: 'Probe: expected a string, got ["nested"]' },
    {
      value: { Ref: 'Required' },
      message: 'Probe: parameter Required has no value (not passed by a parent stack, no default)',
    },
    { value: { Ref: 'FromSsm' }, message: 'Probe: parameter FromSsm has no value' },
    {
      value: { 'Fn::GetAtt': ['Child', 'Outputs.Nope'] },
      message: 'Child.nested.template.json, Probe: nested stack has no output Nope',
    },
    {
      value: { 'Fn::GetAtt': ['Orphan', 'Outputs.Any'] },
      message:
        'Fixture.template.json, Orphan: nested template https://s3/assets/gone.json is not an asset of the assembly',
    },
  ])('refuses $value with a CloudAssemblyError naming the template and where', ({ value, message }) => {
    const evaluate = () => stack().evaluate(value, 'Probe');
    expect(evaluate).toThrow(CloudAssemblyError);
    expect(evaluate).toThrow(message);
  });

  it('refuses a conditional resource when the template is opened', () => {
    const template = structuredClone(root);
    (template.Resources as NonNullable<Template['Resources']>).Table = {
      Type: 'AWS::DynamoDB::Table',
      Condition: 'IsProduction',
    };
    const open = () => StackTemplate.root(files, 'Fixture.template.json', 'Fixture', template);
    expect(open).toThrow(CloudAssemblyError);
    expect(open).toThrow(
      'Fixture.template.json, Table: conditional resources are not supported (Condition IsProduction)',
    );
  });
});
