/**
 * Every v1 data lookup through the real app, dataset and DynamoDB: a success per path variant with
 * the exact envelope (and no provider-private field), a 404 (or, for searches, an empty success),
 * and a refused input. Paging walks live in paging.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { successEnvelopeSchema } from '../../schemas/envelope.js';
import { DATA_FAMILIES } from '../../schemas/functions.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';
import {
  identifierValues,
  otherParameters,
  sampleRequests,
  unknownIdentifiers,
} from '../support/sample-inputs.js';

const file = harnessForFile({ credits: 10_000 });

/** A query matching nothing, for searches (an empty success, never a 404). */
const noMatch: Record<string, Record<string, string>> = {
  'companies.search': { keywords: 'zzqxv-nothing' },
  'companies.search-by-domain': { domain: 'nothing-here.example' },
  'search.schools': { keywords: 'zzqxv-nothing' },
  'search.people': { keywords: 'zzqxv-nothing' },
  'search.all': { keywords: 'zzqxv-nothing' },
  'search.posts-by-hashtag': { hashtag: 'zzqxvnothing' },
  'search.posts': { keywords: 'zzqxv-nothing' },
  'search.locations': { keywords: 'zzqxv-nothing' },
  'search.industries': { query: 'zzqxv-nothing' },
  'search.typeahead': { query: 'zzqxv-nothing' },
  'jobs.search': { keywords: 'zzqxv-nothing' },
};

/** Data lookups with v1 paths; those of the /api/v2 listing only are tested in test/v2/. */
const dataOperations = (catalog as readonly OperationDefinition[]).filter(
  (operation) => DATA_FAMILIES.includes(operation.family) && operation.variants.length > 0,
);
const query = (parameters: Record<string, string>) => new URLSearchParams(parameters).toString();

function requestsOf(operation: OperationDefinition, values: Record<string, Record<string, string>>) {
  return sampleRequests(operation, values).map(({ path, parameters }) => ({
    variant: path,
    url: `${path}?${query(parameters)}`,
  }));
}

const PRIVATE_FIELDS = ['internalId', 'fetchedAt', 'sourceTag'];

describe.each(dataOperations.map((operation) => [operation.id, operation] as const))('%s', (_, operation) => {
  const envelope = successEnvelopeSchema(
    operation.data,
    operation.paging,
    operation.price,
    operation.meta,
  ).strict();

  it.each(requestsOf(operation, identifierValues))(
    'answers $variant with the exact envelope',
    async ({ url }) => {
      const response = await file.harness.get(url, file.apiKey);
      expect(response.status, url).toBe(200);
      const text = await response.text();
      const body = JSON.parse(text);
      expect(envelope.safeParse(body).error).toBeUndefined();
      expect(body.meta.creditCost).toBe(operation.price);
      expect(Object.keys(body)).toEqual(['data', 'meta']);
      expect(Number(response.headers.get('x-credits-remaining'))).toBeGreaterThan(0);
      for (const field of PRIVATE_FIELDS) expect(text).not.toContain(`"${field}"`);
      const lists = Object.values(body.data).filter(Array.isArray);
      for (const list of lists) expect(list.length).toBeGreaterThan(0);
    },
  );

  if (noMatch[operation.id]) {
    it('answers a search that matches nothing with an empty list, not an error', async () => {
      const [path] = operation.variants.map((variant) => variant.path);
      const response = await file.harness.get(
        `${path}?${query(noMatch[operation.id] as Record<string, string>)}`,
        file.apiKey,
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: Record<string, unknown[]> };
      expect(Object.values(body.data)).toEqual([[]]);
    });
  } else if (operation.id !== 'search.service-categories') {
    it.each(requestsOf(operation, unknownIdentifiers))(
      'answers $variant for an unknown identifier with 404, refunded',
      async ({ url }) => {
        const before = await file.harness.get(`/v1/search/service-categories`, file.apiKey);
        const balance = Number(before.headers.get('x-credits-remaining'));
        const response = await file.harness.get(url, file.apiKey);
        await expectError(response, 404, 'resource_not_found');
        expect(Number(response.headers.get('x-credits-remaining'))).toBe(balance);
      },
    );
  }

  it('refuses an unknown parameter without charging', async () => {
    const [first] = requestsOf(operation, identifierValues);
    const response = await file.harness.get(`${first?.url}&bogus=1`, file.apiKey);
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.details).toContainEqual(
      expect.objectContaining({ field: 'bogus', code: 'unknown_parameter' }),
    );
    expect(response.headers.get('x-credits-remaining')).toBeNull();
  });

  if (operation.identifiers.length > 1) {
    it('refuses two identifiers, and none, with identifier_count', async () => {
      const variant = operation.variants[0];
      const values = identifierValues[operation.family] as Record<string, string>;
      const [one, two] = operation.identifiers as [string, string];
      const both = {
        ...otherParameters(operation),
        [one]: values[one] as string,
        [two]: values[two] as string,
      };
      const none = { ...otherParameters(operation) };
      for (const parameters of [both, none]) {
        const body = await expectError(
          await file.harness.get(`${variant?.path}?${query(parameters)}`, file.apiKey),
          400,
          'invalid_request',
        );
        expect(body.error.details).toContainEqual(expect.objectContaining({ code: 'identifier_count' }));
      }
    });
  }
});
