/**
 * Small cloud assemblies written by hand, for start:synth's reader and emulation: stack `Fixture`
 * (REST API, stage, role, table, a nested stack fed the table's name, and one function `Fn` named
 * `fixture-function` whose environment holds the given variables) and the asset manifest naming the
 * nested template and the code directory. Tests add resources of their own (queues, mappings,
 * policies on the role) and the function's code.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FixtureAssembly {
  /** Environment.Variables of the function `Fn`. */
  variables?: Record<string, unknown>;
  /** The nested stack's outputs. */
  childOutputs?: Record<string, unknown>;
  /** More resources of the root stack, by logical id. */
  resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  /** Properties of `Fn` beyond the fixture's (Timeout, ...). */
  functionProperties?: Record<string, unknown>;
  /** index.mjs of the code asset (its `handler` export runs). */
  code?: string;
}

/** Writes the assembly into a new directory under `parent`; answers its path. */
export function writeAssembly(parent: string, fixture: FixtureAssembly = {}): string {
  const directory = mkdtempSync(join(parent, 'fixture-'));
  const write = (file: string, content: unknown) =>
    writeFileSync(join(directory, file), JSON.stringify(content));
  mkdirSync(join(directory, 'asset.code'));
  writeFileSync(
    join(directory, 'asset.code', 'index.mjs'),
    fixture.code ?? 'export const handler = async () => ({});\n',
  );
  write('manifest.json', {
    version: '55.0.0',
    artifacts: {
      'Fixture.assets': { type: 'cdk:asset-manifest', properties: { file: 'Fixture.assets.json' } },
      Fixture: { type: 'aws:cloudformation:stack', properties: { templateFile: 'Fixture.template.json' } },
    },
  });
  const asset = (path: string, objectKey: string) => ({
    source: { path, packaging: 'file' },
    destinations: { local: { bucketName: 'assets', objectKey } },
  });
  write('Fixture.assets.json', {
    version: '55.0.0',
    files: {
      code: asset('asset.code', 'code.zip'),
      child: asset('Child.nested.template.json', 'child.json'),
    },
  });
  write('Child.nested.template.json', {
    Parameters: { TableName: { Type: 'String' } },
    Outputs: Object.fromEntries(
      Object.entries(fixture.childOutputs ?? {}).map(([name, value]) => [name, { Value: value }]),
    ),
  });
  write('Fixture.template.json', {
    Parameters: { Greeting: { Type: 'String', Default: 'hello' } },
    Conditions: { CDKMetadataAvailable: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] } },
    Resources: {
      CDKMetadata: { Type: 'AWS::CDK::Metadata', Condition: 'CDKMetadataAvailable', Properties: {} },
      Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'fixture' } },
      Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'test', RestApiId: { Ref: 'Api' } } },
      Role: { Type: 'AWS::IAM::Role', Properties: {} },
      Table: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'fixture-table' } },
      Child: {
        Type: 'AWS::CloudFormation::Stack',
        Properties: {
          TemplateURL: { 'Fn::Join': ['', ['https://s3.', { Ref: 'AWS::URLSuffix' }, '/assets/child.json']] },
          Parameters: { TableName: { Ref: 'Table' } },
        },
      },
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          FunctionName: 'fixture-function',
          Handler: 'index.handler',
          Runtime: 'nodejs24.x',
          Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
          Code: { S3Bucket: 'assets', S3Key: 'code.zip' },
          Environment: { Variables: fixture.variables ?? {} },
          ...fixture.functionProperties,
        },
      },
      ...fixture.resources,
    },
  });
  return directory;
}
