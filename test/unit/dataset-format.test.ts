/**
 * The dataset format's schemas: the published JSON Schema files are the zod schemas' (`npm run docs`
 * rewrites them), every line schema refuses unknown fields at any depth, and the files are listed
 * reference data first.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  companyLineSchema,
  datasetFiles,
  datasetManifestSchema,
  personLineSchema,
  reactionLineSchema,
} from '../../schemas/dataset-format.js';
import { datasetJsonSchemas, JSON_SCHEMA_FOLDER } from '../../scripts/dataset-json-schemas.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sample = generateDataset();

describe('the published JSON Schema', () => {
  it.each(datasetJsonSchemas().map(({ path, text }) => [path, text] as const))(
    '%s is current (npm run docs rewrites it)',
    async (path, text) => {
      expect(JSON.parse(await readFile(join(ROOT, path), 'utf8'))).toEqual(JSON.parse(text));
    },
  );

  it('has one file per dataset file and one for the manifest, and no other', async () => {
    const published = await readdir(join(ROOT, JSON_SCHEMA_FOLDER));
    expect(published.sort()).toEqual(
      datasetJsonSchemas()
        .map(({ path }) => path.split('/').at(-1))
        .sort(),
    );
    expect(published).toHaveLength(datasetFiles.length + 1);
  });

  it('refuses unknown fields in nested objects too', () => {
    const schema = JSON.parse(
      datasetJsonSchemas().find(({ path }) => path.endsWith('people.schema.json'))?.text ?? '{}',
    );
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.positions.items.additionalProperties).toBe(false);
    expect(schema.properties.positions.items.properties.startDate.anyOf[0].additionalProperties).toBe(false);
  });
});

describe('the line schemas', () => {
  const person = sample.people[0];
  const company = sample.companies[0];

  it('accept every record of the sample as it is', () => {
    for (const { collection, schema } of datasetFiles) {
      for (const record of sample[collection]) expect(schema.parse(record)).toEqual(record);
    }
  });

  it('refuse an unknown field at any depth', () => {
    const refused = (result: {
      success: boolean;
      error?: { issues: { path: PropertyKey[]; message: string }[] };
    }) => result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(refused(personLineSchema.safeParse({ ...person, nickname: 'x' }))).toEqual([
      ': Unrecognized key: "nickname"',
    ]);
    const position = person?.positions[0];
    expect(
      refused(
        personLineSchema.safeParse({
          ...person,
          positions: [{ ...position, startDate: { ...position?.startDate, day: 3 } }],
        }),
      ),
    ).toEqual(['positions.0.startDate: Unrecognized key: "day"']);
    expect(
      refused(
        companyLineSchema.safeParse({
          ...company,
          products: [{ name: 'A', category: null, description: null, price: 1 }],
        }),
      ),
    ).toEqual(['products.0: Unrecognized key: "price"']);
  });

  it('refuse times that are not ISO instants and reaction types the network has not', () => {
    const reaction = sample.reactions[0];
    expect(reactionLineSchema.safeParse({ ...reaction, reactedAt: '2026-11-20 12:00' }).success).toBe(false);
    expect(reactionLineSchema.safeParse({ ...reaction, reactionType: 'WOW' }).success).toBe(false);
  });

  it('list the reference data first, then companies, people and what refers to them', () => {
    expect(datasetFiles.map(({ file }) => file)).toEqual([
      'locations.jsonl',
      'industries.jsonl',
      'service-categories.jsonl',
      'schools.jsonl',
      'companies.jsonl',
      'people.jsonl',
      'posts.jsonl',
      'comments.jsonl',
      'reactions.jsonl',
      'jobs.jsonl',
    ]);
  });

  it('describe a manifest with a format, a version and no other unknown field', () => {
    const manifest = {
      format: 'lookup-service-dataset',
      version: 1,
      fetchedAt: sample.fetchedAt,
      seed: 1,
      profiles: 300,
    };
    expect(datasetManifestSchema.parse(manifest)).toEqual(manifest);
    expect(datasetManifestSchema.safeParse({ ...manifest, version: 2 }).success).toBe(false);
    expect(datasetManifestSchema.safeParse({ ...manifest, note: 'x' }).success).toBe(false);
  });
});
