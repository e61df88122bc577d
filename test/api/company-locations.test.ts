/**
 * GET /v1/companies/locations/by-slug, the first operation beyond the spec's catalog, through every
 * transport: REST v1, its derived /api/v2 extension path, and its MCP tool, which tools/list shows
 * only to a connection whose filter asks for it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successEnvelopeSchema, v2EnvelopeSchema } from '../../schemas/envelope.js';
import { companyLocations } from '../../schemas/operations/companies.js';
import { datasetFixtures } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { harnessForFile } from '../support/harness.js';
import { connectClient, type ListeningApp, listen } from '../support/mcp-server.js';

const SLUG = datasetFixtures.richCompany.slug;
const file = harnessForFile({ credits: 100 });

const v1Body = successEnvelopeSchema(companyLocations.data, 'none', 1).strict();

/** Company details (whose headquarters and locations the offices are), and the balance after it. */
async function details() {
  const response = await file.harness.get(`/v1/companies/details/by-slug?slug=${SLUG}`, file.apiKey);
  const { data } = (await response.json()) as {
    data: { headquarters: { id: string; name: string } | null; locations: { id: string; name: string }[] };
  };
  return { ...data, balance: Number(response.headers.get('x-credits-remaining')) };
}

describe('REST v1', () => {
  it("answers the company's offices, headquarters first, for 1 credit", async () => {
    const { harness, apiKey } = file;
    const company = await details();
    const response = await harness.get(`/v1/companies/locations/by-slug?slug=${SLUG}`, apiKey);
    expect(response.status).toBe(200);
    const body = v1Body.parse(await response.json());
    const { offices } = companyLocations.data.parse(body.data);
    expect(offices.map(({ id, name }) => ({ id, name }))).toEqual(company.locations);
    expect(offices.filter((office) => office.headquarters).map((office) => office.id)).toEqual([
      company.headquarters?.id,
    ]);
    expect(offices[0]?.headquarters).toBe(true);
    expect(offices.length).toBeGreaterThan(1);
    expect(body.meta.creditCost).toBe(1);
    expect(response.headers.get('x-credits-remaining')).toBe(String(company.balance - 1));
  });

  it('refunds a company that does not exist with 404', async () => {
    const { harness, apiKey } = file;
    const response = await harness.get('/v1/companies/locations/by-slug?slug=no-such-company', apiKey);
    const body = await expectError(response, 404, 'resource_not_found');
    expect(body.error.retryable).toBe(false);
    const after = await harness.get(`/v1/companies/locations/by-slug?slug=${SLUG}`, apiKey);
    const before = Number(response.headers.get('x-credits-remaining') ?? Number.NaN);
    expect(Number(after.headers.get('x-credits-remaining'))).toBe(before - 1);
  });

  it('takes only a slug', async () => {
    const response = await file.harness.get(
      `/v1/companies/locations/by-slug?slug=${SLUG}&url=https://www.linkedin.com/company/${SLUG}`,
      file.apiKey,
    );
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.details).toContainEqual(expect.objectContaining({ field: 'url' }));
  });
});

describe('/api/v2 extension', () => {
  it('answers the same offices at /api/v2/ext/companies/{universal_name}/locations, in the v2 envelope', async () => {
    const { harness, apiKey } = file;
    const v1 = v1Body.parse(
      await (await harness.get(`/v1/companies/locations/by-slug?slug=${SLUG}`, apiKey)).json(),
    );
    const response = await harness.app.request(`/api/v2/ext/companies/${SLUG}/locations`, {
      headers: { 'X-API-Key': apiKey },
    });
    expect(response.status).toBe(200);
    const body = v2EnvelopeSchema(companyLocations.data, 'none', 1)
      .strict()
      .parse(await response.json());
    expect(body.data).toEqual(v1.data);
    expect(body.meta.operation).toBe('companies.locations');
  });
});

describe('MCP tool get_company_locations', () => {
  let app: ListeningApp;
  const clients: Client[] = [];
  const connect = async (query: string) => {
    const client = await connectClient(`${app.url}${query}`, file.apiKey);
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    app = await listen(file.harness);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('is not in the default tools/list, which stays the spec catalog', async () => {
    const names = (await (await connect('')).listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain('get_company_locations');
    expect(names).toContain('get_company_details');
  });

  it.each(['?toolsets=companies', '?tools=get_company_locations'])(
    'is listed and callable with %s, answering what REST answers',
    async (query) => {
      const client = await connect(query);
      const tool = (await client.listTools()).tools.find((entry) => entry.name === 'get_company_locations');
      expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['slug']);
      const result = (await client.callTool({
        name: 'get_company_locations',
        arguments: { slug: SLUG },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const rest = v1Body.parse(
        await (await file.harness.get(`/v1/companies/locations/by-slug?slug=${SLUG}`, file.apiKey)).json(),
      );
      expect(v1Body.parse(result.structuredContent).data).toEqual(rest.data);
    },
  );

  it('is refused, as an unknown tool, on a connection that did not ask for it', async () => {
    const client = await connect('');
    await expect(
      client.callTool({ name: 'get_company_locations', arguments: { slug: SLUG } }),
    ).rejects.toThrow(/get_company_locations/);
  });
});
