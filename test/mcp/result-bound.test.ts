/**
 * The bound on a tool result's size (shared/mcp/result-bound.ts), here lowered to 4,000 characters
 * so that sample-dataset pages exceed it: a page with positional paging is cut with paging that
 * continues right after the last item shown; a cursor page is cut and says so; either way the call
 * is billed once, as REST bills it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultChars } from '../../shared/mcp/tool-results.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  connectEraClient,
  ERAS,
  type Era,
  type EraClient,
  type ListeningApp,
  listen,
} from '../support/mcp-server.js';
import { identifierValues } from '../support/sample-inputs.js';

const BOUND = 4_000;
const SERVICE_DOMAIN = 'lookup.test';
let harness: Harness;
let app: ListeningApp;
let apiKey: string;
let accountId: string;
const clients = new Map<Era, EraClient>();

beforeAll(async () => {
  harness = await startHarness({ env: { MCP_RESULT_MAX_CHARS: String(BOUND), SERVICE_DOMAIN } });
  app = await listen(harness);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ credits: 1_000 }));
  for (const era of ERAS) clients.set(era, await connectEraClient(app.url, apiKey, era));
});
afterAll(async () => {
  for (const client of clients.values()) await client.close();
  await app.close();
  await harness.close();
});

async function rest(path: string, parameters: Record<string, string>) {
  const response = await harness.get(`${path}?${new URLSearchParams(parameters)}`, apiKey);
  return (await response.json()) as {
    data: Record<string, unknown[]>;
    meta: { paging: Record<string, unknown> };
  };
}

interface Cut {
  field: string;
  unit: string;
  kept: number;
  omitted: number;
  continues: boolean;
}

const cutOf = (result: CallToolResult) =>
  (result._meta?.[`${SERVICE_DOMAIN}/lookup`] as { cut?: Cut } | undefined)?.cut;
const texts = (result: CallToolResult) => result.content.map((block) => (block as { text: string }).text);
const balance = async () => (await harness.repositories.ledger.state(accountId)).balance;

describe.each(ERAS)('in the %s era', (era) => {
  const client = () => clients.get(era) as EraClient;

  it('cuts an offset page to fit and continues it right after the last company shown', async () => {
    const domain = 'helixgroup.com';
    const full = await rest('/v1/companies/search/by-domain', { domain, offset: '0' });
    const before = await balance();
    const first = await client().callTool({
      name: 'search_companies_by_domain',
      arguments: { domain, offset: 0 },
    });
    const charged = before - (await balance());
    expect(charged).toBe((first.structuredContent as { meta: { creditCost: number } }).meta.creditCost);

    expect(resultChars(first)).toBeLessThanOrEqual(BOUND);
    const cut = cutOf(first) as Cut;
    expect(cut).toMatchObject({ field: 'data.companies', unit: 'items', continues: true });
    expect(cut.kept).toBeGreaterThan(0);
    expect(cut.kept + cut.omitted).toBe(full.data.companies?.length);
    const shown = first.structuredContent as typeof full;
    expect(shown.data.companies).toEqual(full.data.companies?.slice(0, cut.kept));
    expect(shown.meta.paging).toMatchObject({
      offset: 0,
      returned: cut.kept,
      hasMore: true,
      nextOffset: cut.kept,
    });
    expect(texts(first).at(-1)).toMatch(
      /^Cut to \d+ of \d+ items of data\.companies to fit the 4,000-character result bound; call again/,
    );

    // The next call starts exactly where the cut one stopped.
    const next = await client().callTool({
      name: 'search_companies_by_domain',
      arguments: { domain, offset: cut.kept },
    });
    const rest2 = await rest('/v1/companies/search/by-domain', { domain, offset: String(cut.kept) });
    const nextCompanies = (next.structuredContent as typeof full).data.companies ?? [];
    expect(nextCompanies.length).toBeGreaterThan(0);
    expect(nextCompanies).toEqual(rest2.data.companies?.slice(0, nextCompanies.length));
    expect(nextCompanies[0]).toEqual(full.data.companies?.[cut.kept]);
  });

  it('cuts a cursor page and says the items left out cannot be paged to', async () => {
    const username = identifierValues.profiles?.username as string;
    const result = await client().callTool({ name: 'get_profile_posts', arguments: { username } });
    expect(result.isError).toBeFalsy();
    expect(resultChars(result)).toBeLessThanOrEqual(BOUND);
    const cut = cutOf(result) as Cut;
    expect(cut).toMatchObject({ field: 'data.posts', unit: 'items', continues: false });
    expect(cut.omitted).toBeGreaterThan(0);
    expect(texts(result).at(-1)).toContain(
      `the ${cut.omitted} items left out are not shown: narrow the request`,
    );
    // The cursor still moves by whole pages of its source: it is left as issued.
    expect(
      (result.structuredContent as { meta: { paging: { hasMore: boolean } } }).meta.paging,
    ).toHaveProperty('nextCursor');
  });

  it('leaves a result under the bound whole, with no cut in _meta', async () => {
    const result = await client().callTool({
      name: 'search_industries_by_keyword',
      arguments: { query: 'software' },
    });
    expect(cutOf(result)).toBeUndefined();
    expect(texts(result)).toHaveLength(2);
  });
});
