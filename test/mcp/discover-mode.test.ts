/**
 * The compact mode, `?toolsets=discover`: a handful of tools instead of 35. find_operation finds the
 * tool for a need, free; run_operation runs it, billed, metered and answered exactly as the direct
 * call of that tool, in both protocol eras.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { defaultToolNames } from '../../schemas/operation-definition.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  connectEraClient,
  ERAS,
  type Era,
  type EraClient,
  type ListeningApp,
  listen,
  postJsonRpc,
  withoutMinted,
} from '../support/mcp-server.js';
import { identifierValues } from '../support/sample-inputs.js';

let harness: Harness;
let app: ListeningApp;
let apiKey: string;
let accountId: string;
const discover = new Map<Era, EraClient>();
let direct: EraClient;

beforeAll(async () => {
  harness = await startHarness({});
  app = await listen(harness);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ credits: 1_000 }));
  for (const era of ERAS)
    discover.set(era, await connectEraClient(`${app.url}?toolsets=discover`, apiKey, era));
  direct = await connectEraClient(app.url, apiKey, '2025-11-25');
});
afterAll(async () => {
  for (const client of [...discover.values(), direct]) await client.close();
  await app.close();
  await harness.close();
});

const balance = async () => (await harness.repositories.ledger.state(accountId)).balance;
const ledgerSize = async () => (await harness.repositories.ledger.entries(accountId)).length;
const username = identifierValues.profiles?.username as string;

function structured<T>(result: CallToolResult): T {
  return result.structuredContent as T;
}

interface FoundOperation {
  tool: string;
  price: number;
  toolset: string;
  inputSchema: unknown;
}

describe('tools/list', () => {
  it('lists find_operation, run_operation and the account tools, and nothing else', async () => {
    const names = (await (discover.get('2025-11-25') as EraClient).listTools()).tools.map(
      (tool) => tool.name,
    );
    expect(names).toEqual([
      'find_operation',
      'run_operation',
      'get_account',
      'get_account_usage',
      'get_account_ledger',
    ]);
  });

  it('leaves the default list the spec catalog', async () => {
    const names = (await direct.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(defaultToolNames(catalog));
    expect(names).not.toContain('find_operation');
  });

  it('refuses find_operation on a connection that did not ask for the compact mode', async () => {
    await expect(direct.callTool({ name: 'find_operation', arguments: { need: 'profile' } })).rejects.toThrow(
      /Unknown tool/,
    );
  });
});

describe('a __proto__ argument', () => {
  it('is refused inside run_operation as an unknown argument of the named tool, free', async () => {
    const before = await balance();
    const raw = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"run_operation","arguments":{"tool":"get_profile_details","arguments":{"username":"${username}","__proto__":{"x":1}}}}}`;
    const response = await postJsonRpc(`${app.url}?toolsets=discover`, raw, {
      Authorization: `Bearer ${apiKey}`,
      'MCP-Protocol-Version': '2025-06-18',
    });
    const { result } = await response.json();
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'invalid_request', details: [{ field: '__proto__', code: 'unknown_parameter' }] },
    });
    expect(await balance()).toBe(before);
  });
});

describe.each(ERAS)('in the %s era', (era) => {
  const client = () => discover.get(era) as EraClient;

  it('finds the tool for a need, with its published input schema and price, free of charge', async () => {
    const [before, entries] = [await balance(), await ledgerSize()];
    const result = await client().callTool({
      name: 'find_operation',
      arguments: { need: 'people who work at a company' },
    });
    expect(result.isError).toBeFalsy();
    const { operations } = structured<{ data: { operations: FoundOperation[] } }>(result).data;
    const found = operations.find((operation) => operation.tool === 'get_company_people');
    expect(found).toBeDefined();
    const listed = (await direct.listTools()).tools.find((tool) => tool.name === 'get_company_people');
    expect(found?.inputSchema).toEqual(listed?.inputSchema);
    expect(listed?.description).toContain(`Costs ${found?.price} credit`);
    expect(found?.toolset).toBe('companies');
    expect(result.content.at(-1)).toEqual({ type: 'text', text: 'Cost: free, nothing charged.' });
    expect([await balance(), await ledgerSize()]).toEqual([before, entries]);
  });

  it('returns at most the matches asked for, the best first', async () => {
    const result = await client().callTool({
      name: 'find_operation',
      arguments: { need: 'company jobs', limit: 2 },
    });
    const { operations } = structured<{ data: { operations: FoundOperation[] } }>(result).data;
    expect(operations).toHaveLength(2);
    expect(operations[0]?.tool).toBe('get_company_jobs');
  });

  it('runs a named tool with the answer and the charge of the direct call', async () => {
    const args = { username };
    let before = await balance();
    const viaRun = await client().callTool({
      name: 'run_operation',
      arguments: { tool: 'get_profile_details', arguments: args },
    });
    const runCost = before - (await balance());
    before = await balance();
    const viaTool = await direct.callTool({ name: 'get_profile_details', arguments: args });
    const directCost = before - (await balance());
    expect(viaRun.isError).toBeFalsy();
    expect(withoutMinted(viaRun.structuredContent)).toEqual(withoutMinted(viaTool.structuredContent));
    expect(runCost).toBe(directCost);
    expect(runCost).toBeGreaterThan(0);
    expect((viaRun.content.at(-1) as { text: string }).text).toMatch(
      new RegExp(`^Cost: ${runCost} credits? charged; \\d+ credits remain\\.$`),
    );
    const entries = await harness.repositories.ledger.entries(accountId);
    expect(entries.filter((entry) => entry.operation === 'profiles.details').length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it('refunds a run that matches nothing, as the direct call does', async () => {
    const before = await balance();
    const result = await client().callTool({
      name: 'run_operation',
      arguments: { tool: 'get_profile_details', arguments: { username: 'nobody-at-all' } },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'resource_not_found' } });
    expect(await balance()).toBe(before);
  });

  it('refuses an unknown tool name as invalid_request naming the tool argument, free', async () => {
    const before = await balance();
    const result = await client().callTool({
      name: 'run_operation',
      arguments: { tool: 'get_everything', arguments: {} },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'invalid_request', details: [{ field: 'tool', code: 'invalid_value' }] },
    });
    expect(await balance()).toBe(before);
  });

  it('finds and runs email tools too, which the default list leaves out, free as the direct call', async () => {
    const found = await client().callTool({
      name: 'find_operation',
      arguments: { need: 'is this email address from a disposable domain', limit: 3 },
    });
    const { operations } = structured<{ data: { operations: FoundOperation[] } }>(found).data;
    expect(operations[0]).toMatchObject({ tool: 'check_disposable_email', price: 0 });
    const args = { email: 'someone@mailinator.com' };
    const before = await balance();
    const viaRun = await client().callTool({
      name: 'run_operation',
      arguments: { tool: 'check_disposable_email', arguments: args },
    });
    const emails = await connectEraClient(`${app.url}?toolsets=emails`, apiKey, era);
    const viaTool = await emails.callTool({ name: 'check_disposable_email', arguments: args });
    await emails.close();
    expect(viaRun.isError).toBeFalsy();
    expect(withoutMinted(viaRun.structuredContent)).toEqual(withoutMinted(viaTool.structuredContent));
    expect(await balance()).toBe(before);
  });

  it("refuses the named tool's unknown arguments exactly as the direct call does", async () => {
    const args = { username, constructor: 'x' };
    const viaRun = await client().callTool({
      name: 'run_operation',
      arguments: { tool: 'get_profile_details', arguments: args },
    });
    const viaTool = await direct.callTool({ name: 'get_profile_details', arguments: args });
    expect(viaRun.isError).toBe(true);
    expect(withoutMinted(viaRun.structuredContent)).toEqual(withoutMinted(viaTool.structuredContent));
  });

  it('refuses arguments of its own it does not take, and a need that is blank', async () => {
    const extra = await client().callTool({
      name: 'run_operation',
      arguments: { tool: 'get_account', extra: 1 },
    });
    expect(extra.structuredContent).toMatchObject({
      error: { code: 'invalid_request', details: [{ field: 'extra', code: 'unknown_parameter' }] },
    });
    const blank = await client().callTool({ name: 'find_operation', arguments: { need: '  ' } });
    expect(blank.structuredContent).toMatchObject({
      error: { code: 'invalid_request', details: [{ field: 'need', code: 'invalid_value' }] },
    });
  });
});
