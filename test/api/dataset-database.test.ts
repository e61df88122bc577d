/**
 * Every v1 data lookup answers the same `data` from the dataset database (what the service serves)
 * as from the in-memory reference over the same generated sample, through the real app: one
 * request per path variant of every operation, then each paged answer's next pages. The port-level
 * comparison over every record and search table is test/unit/dataset-database.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { DATA_FAMILIES } from '../../schemas/functions.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { DatasetSource } from '../../shared/sources/dataset/dataset-source.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';
import { harnessForFile } from '../support/harness.js';
import { memoryDatasetReader } from '../support/memory-reader.js';
import { sampleRequests } from '../support/sample-inputs.js';

const served = harnessForFile({ credits: 100_000 });
const reference = harnessForFile(
  { credits: 100_000 },
  { dataSource: new DatasetSource(memoryDatasetReader(generateDataset())) },
);

const dataOperations = (catalog as readonly OperationDefinition[]).filter(
  (operation) => DATA_FAMILIES.includes(operation.family) && operation.variants.length > 0,
);

/** Pages followed per request, through the cursor each answer hands out. */
const PAGES = 3;

async function pages(file: typeof served, path: string, parameters: Record<string, string>) {
  const bodies: { status: number; data: unknown }[] = [];
  let query: Record<string, string> | null = parameters;
  while (query && bodies.length < PAGES) {
    const response = await file.harness.get(`${path}?${new URLSearchParams(query)}`, file.apiKey);
    const body = (await response.json()) as {
      data?: unknown;
      meta?: { paging?: { nextCursor?: string | null } };
    };
    bodies.push({ status: response.status, data: body.data });
    const next = body.meta?.paging?.nextCursor;
    query = next ? { ...parameters, cursor: next } : null;
  }
  return bodies;
}

describe('the dataset database serves the same data as the in-memory sample', () => {
  it.each(dataOperations.map((operation) => [operation.id, operation] as const))(
    '%s',
    async (_, operation) => {
      for (const { path, parameters } of sampleRequests(operation)) {
        const expected = await pages(reference, path, parameters);
        expect(expected[0]?.status, path).toBe(200);
        expect(await pages(served, path, parameters), path).toEqual(expected);
      }
    },
  );
});
