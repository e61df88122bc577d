/**
 * Adding an operation is one catalog entry and one run function: a throwaway operation, added to a
 * copy of the catalog in memory and given its run function through `implement`, reaches REST, the
 * OpenAPI document, MCP (behind its filter), /api/v2 (the derived extension path), the function plan,
 * the CDK routes and the README's generated tables and counts, with no other edit. The catalog's own
 * promises to the spec are checked here too, each once: the default tools/list is the spec's 35
 * tools, and the v2 listing its 47 endpoints.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { apiRoutes } from '../../infra/routes.js';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import { deployedFunctions, toolGroups } from '../../schemas/functions.js';
import { defaultToolNames, type OperationDefinition } from '../../schemas/operation-definition.js';
import { byIdentifier, companyIdentifiers, dataLookup } from '../../schemas/operations/data-lookup.js';
import { v2RoutesOf } from '../../schemas/v2-routes.js';
import {
  catalogCounts,
  endpointTable,
  v2EndpointTable,
  v2MappingTable,
} from '../../scripts/endpoint-table.js';
import { implement } from '../../shared/pipeline/operation.js';
import { datasetFixtures } from '../../shared/sources/dataset/fixtures.js';
import { type Harness, startHarness } from '../support/harness.js';
import { connectClient, type ListeningApp, listen } from '../support/mcp-server.js';
import { pricedOperation } from '../support/priced-operation.js';

const SLUG = datasetFixtures.richCompany.slug;

/** The one entry: a company lookup beyond the catalog, at a price no other lookup has. */
const throwaway = dataLookup({
  id: 'companies.throwaway',
  family: 'companies',
  group: 'companies',
  summary: 'Throwaway company lookup',
  description: 'Echoes the slug it was given, as data.echo.',
  variants: byIdentifier('/v1/companies/throwaway', ['slug']),
  identifiers: ['slug'],
  query: z.object(companyIdentifiers('slug')),
  data: z.object({ echo: z.string() }),
  paging: 'none',
  price: 7,
  mcpTool: 'get_company_throwaway',
  mcpListing: 'on-request',
});
/** The one run function, checked by tsc against the entry. */
const throwawayImplementation = implement([throwaway], {
  'companies.throwaway': async ({ slug }) => ({ data: { echo: slug ?? '' } }),
});

const withThrowaway: readonly OperationDefinition[] = [...catalog, throwaway];
const EXTENSION_PATH = '/api/v2/ext/companies/{universal_name}/throwaway';

describe("the catalog's promises to the spec", () => {
  it('lists the 35 tools of the spec by default, and the 47 endpoints of the v2 listing', () => {
    expect(defaultToolNames(catalog)).toHaveLength(35);
    expect(v2Routes.filter((route) => !route.extension)).toHaveLength(47);
  });
});

describe('a throwaway operation added to a copy of the catalog', () => {
  let harness: Harness;
  let apiKey: string;
  let app: ListeningApp;
  beforeAll(async () => {
    harness = await startHarness({
      operations: [...withThrowaway, pricedOperation],
      implementations: throwawayImplementation,
    });
    ({ apiKey } = await harness.provision({ credits: 100 }));
    app = await listen(harness);
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
  });

  it('answers on its REST path, billed at its price', async () => {
    const response = await harness.get(`/v1/companies/throwaway/by-slug?slug=${SLUG}`, apiKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { echo: SLUG }, meta: { creditCost: 7 } });
    expect(response.headers.get('x-credits-remaining')).toBe('93');
  });

  it('answers on its derived /api/v2 extension path', async () => {
    const response = await harness.app.request(`/api/v2/ext/companies/${SLUG}/throwaway`, {
      headers: { 'X-API-Key': apiKey },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      data: { echo: SLUG },
      paging: null,
      meta: { operation: 'companies.throwaway', creditCost: 7 },
    });
  });

  it('is in the OpenAPI document, v1 and v2, with its price', async () => {
    const document = await (await harness.app.request('/openapi.json')).json();
    const v1 = document.paths['/v1/companies/throwaway/by-slug']?.get;
    const v2 = document.paths[EXTENSION_PATH]?.get;
    expect(v1?.description).toContain('Price: 7 credits.');
    expect(v1?.tags).toEqual(['companies']);
    expect(v2?.['x-extension']).toBe(true);
    expect(v2?.parameters).toContainEqual(expect.objectContaining({ name: 'universal_name', in: 'path' }));
  });

  it('is an MCP tool behind its filter, in the companies group', async () => {
    const listed = await connectClient(app.url, apiKey);
    const asked = await connectClient(`${app.url}?tools=get_company_throwaway`, apiKey);
    try {
      const defaults = (await listed.listTools()).tools.map((tool) => tool.name);
      expect(defaults).toEqual(defaultToolNames(catalog));
      expect((await asked.listTools()).tools.map((tool) => tool.name)).toEqual(['get_company_throwaway']);
      const result = (await asked.callTool({
        name: 'get_company_throwaway',
        arguments: { slug: SLUG },
      })) as CallToolResult;
      expect(result.structuredContent).toEqual({ data: { echo: SLUG }, meta: { creditCost: 7 } });
    } finally {
      await Promise.all([listed.close(), asked.close()]);
    }
  });

  it('gets its own Lambda function, a place in its tool group and its CDK routes', () => {
    expect(deployedFunctions(withThrowaway)).toContainEqual({
      name: 'companies-throwaway',
      kind: 'operation',
      operations: ['companies.throwaway'],
      dataset: true,
      browser: false,
    });
    expect(toolGroups(withThrowaway).get('companies')).toContain('companies.throwaway');
    const routes = apiRoutes(withThrowaway).filter((route) => route.functionName === 'companies-throwaway');
    expect(routes.map((route) => route.path)).toEqual(['/v1/companies/throwaway/by-slug', EXTENSION_PATH]);
  });

  it("is in the README's generated tables and counts", () => {
    expect(endpointTable(withThrowaway)).toContain(
      '| `GET /v1/companies/throwaway/by-slug` | `slug` | 7 |  |',
    );
    expect(v2EndpointTable(v2RoutesOf(withThrowaway))).toContain(
      `| \`GET ${EXTENSION_PATH}\` | none | 7 |  | \`{universal_name}\` = \`slug\` | yes |`,
    );
    expect(v2MappingTable(withThrowaway)).toContain(
      `| companies.throwaway | \`/v1/companies/throwaway/by-slug\` | \`${EXTENSION_PATH}\` |`,
    );
    const before = catalogCounts(catalog);
    const after = catalogCounts(withThrowaway);
    expect(after.get('operations')).toBe((before.get('operations') ?? 0) + 1);
    expect(after.get('mcp-tools')).toBe(before.get('mcp-tools'));
    expect(after.get('mcp-tools-on-request')).toBe((before.get('mcp-tools-on-request') ?? 0) + 1);
    expect(after.get('v2-extensions')).toBe((before.get('v2-extensions') ?? 0) + 1);
  });
});
