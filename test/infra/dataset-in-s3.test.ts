import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionPlans } from '../../infra/function-plan.js';
import { BUNDLED_DATASET_PATH, physicalFunctionName } from '../../infra/function-stack.js';
import { DEFAULT_DATASET_EPHEMERAL_MB, readSettings, SettingsError } from '../../infra/settings.js';
import { BUNDLED_DATASET_FILE } from '../../schemas/functions.js';
import { type SynthesizedApp, synthApp } from './synth-app.js';

type Json = Record<string, unknown>;
const URI = 's3://lookup-datasets-eu/imports/2026-11-24/dataset.sqlite';
const OBJECT_ARN = {
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':s3:::lookup-datasets-eu/imports/2026-11-24/dataset.sqlite'],
  ],
};

/** Every function of the app with its stack's template, its properties and its role's statements. */
function functionsOf(app: SynthesizedApp) {
  return [...app.nested].flatMap(([, template]) =>
    Object.entries(template.findResources('AWS::Lambda::Function')).map(([, resource]) => {
      const properties = resource.Properties as Json;
      const roleId = ((properties.Role as Json)['Fn::GetAtt'] as string[])[0] as string;
      return { template, properties, statements: statementsOf(template, roleId) };
    }),
  );
}

function statementsOf(template: Template, roleId: string): Json[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .map((policy) => policy.Properties as Json)
    .filter((policy) => (policy.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => (policy.PolicyDocument as { Statement: Json[] }).Statement);
}

const nameOf = (properties: Json) => properties.FunctionName as string;
const readsData = new Set(
  functionPlans()
    .filter((plan) => plan.readsData)
    .map((plan) => physicalFunctionName('dev', plan.name)),
);
const s3Statements = (statements: Json[]) =>
  statements.filter((statement) => JSON.stringify(statement.Action).includes('s3:'));

/** The staged code folder of a function (the assembly's `asset.<hash>`, from the S3 key of its zip). */
function assetFolder(app: SynthesizedApp, properties: Json): string {
  const key = (properties.Code as { S3Key: string }).S3Key;
  return join(app.outdir, `asset.${key.replace(/\.zip$/, '')}`);
}

describe('an imported dataset in S3 (datasetS3Uri)', () => {
  let withObject: SynthesizedApp;
  let bundled: SynthesizedApp;
  beforeAll(() => {
    withObject = synthApp({ datasetS3Uri: URI });
    bundled = synthApp();
  }, 120_000);

  it('gives data functions DATASET=<the URI>, GetObject on that one object, the storage, and no bundled sample', () => {
    const fns = functionsOf(withObject);
    expect(fns.filter(({ properties }) => readsData.has(nameOf(properties)))).toHaveLength(readsData.size);
    for (const { properties, statements } of fns) {
      const name = nameOf(properties);
      const variables = (properties.Environment as { Variables: Json }).Variables;
      const staged = readdirSync(assetFolder(withObject, properties));
      expect(staged, name).toContain('index.mjs');
      if (readsData.has(name)) {
        expect(variables.DATASET, name).toBe(URI);
        expect(s3Statements(statements), name).toEqual([
          { Sid: 'datasetObject', Effect: 'Allow', Action: 's3:GetObject', Resource: OBJECT_ARN },
        ]);
        expect(properties.EphemeralStorage, name).toEqual({ Size: DEFAULT_DATASET_EPHEMERAL_MB });
        expect(staged, name).not.toContain(BUNDLED_DATASET_FILE);
      } else {
        expect(variables.DATASET, name).toBeUndefined();
        expect(s3Statements(statements), name).toEqual([]);
      }
    }
  });

  it('grants no S3 access and ships the sample when the setting is absent', () => {
    for (const { properties, statements } of functionsOf(bundled)) {
      const name = nameOf(properties);
      expect(s3Statements(statements), name).toEqual([]);
      if (!readsData.has(name)) continue;
      expect((properties.Environment as { Variables: Json }).Variables.DATASET, name).toBe(
        BUNDLED_DATASET_PATH,
      );
      expect(properties.EphemeralStorage, name).toEqual({ Size: 512 });
      expect(existsSync(join(assetFolder(bundled, properties), BUNDLED_DATASET_FILE)), name).toBe(true);
    }
  });

  it('reads the storage size, and refuses a bad URI, a size out of range or a setting that does not apply', () => {
    const settings = (env: Record<string, string>) => readSettings(() => undefined, env);
    expect(
      settings({ LOOKUP_DATASET_S3_URI: URI, LOOKUP_DATASET_EPHEMERAL_STORAGE_MB: '6144' })
        .datasetEphemeralStorageMb,
    ).toBe(6144);
    expect(() => settings({ LOOKUP_DATASET_S3_URI: 's3://bucket/imports/*' })).toThrow(
      /datasetS3Uri \(LOOKUP_DATASET_S3_URI\): must be s3:\/\/<bucket>\/<key>/,
    );
    expect(() => settings({ LOOKUP_DATASET_S3_URI: 'https://bucket.s3.amazonaws.com/key' })).toThrow(
      SettingsError,
    );
    expect(() => settings({ LOOKUP_DATASET_EPHEMERAL_STORAGE_MB: '4096' })).toThrow(
      /datasetEphemeralStorageMb \(LOOKUP_DATASET_EPHEMERAL_STORAGE_MB\): only applies with datasetS3Uri/,
    );
    expect(() =>
      settings({ LOOKUP_DATASET_S3_URI: URI, LOOKUP_DATASET_EPHEMERAL_STORAGE_MB: '20000' }),
    ).toThrow(SettingsError);
    expect(() =>
      settings({
        LOOKUP_DATASET_S3_URI: URI,
        LOOKUP_DATA_SOURCE: 'upstream',
        LOOKUP_UPSTREAM_URL: 'https://upstream.example.com',
        LOOKUP_UPSTREAM_API_KEY_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:up-AbCdEf',
      }),
    ).toThrow(/datasetS3Uri \(LOOKUP_DATASET_S3_URI\): only applies to dataSource=dataset/);
  });
});
