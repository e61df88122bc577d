/**
 * The MCP lookup deadline: a tool call that outlives it is answered as a 504 upstream_timeout tool
 * error that forbids automatic retries, while the admitted operation still settles on its own.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serviceCategories } from '../../schemas/operations/search.js';
import { implement } from '../../shared/pipeline/operation.js';
import { type Harness, startHarness } from '../support/harness.js';
import { connectClient, type ListeningApp, listen } from '../support/mcp-server.js';

const DEADLINE_MS = 100;
const RUN_MS = 400;
let harness: Harness;
let app: ListeningApp;

const slowCategories = implement([serviceCategories], {
  'search.service-categories': async () => {
    await new Promise((resolve) => setTimeout(resolve, RUN_MS));
    return { data: { serviceCategories: [] } };
  },
});

beforeAll(async () => {
  harness = await startHarness({
    mcpDeadlineMs: DEADLINE_MS,
    implementations: slowCategories,
  });
  app = await listen(harness);
});
afterAll(async () => {
  await app.close();
  await harness.close();
});

it('answers a call past the lookup deadline with 504, not retryable, and settles it anyway', async () => {
  const { apiKey, account } = await harness.provision({ credits: 10 });
  const client = await connectClient(app.url, apiKey);
  try {
    const result = (await client.callTool({
      name: 'search_service_categories',
      arguments: {},
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'upstream_timeout', retryable: false } });
    expect(result._meta?.['lookup-service.invalid/lookup']).toMatchObject({ status: 504 });
    expect((result.content[0] as { text: string }).text).toMatch(
      /^Cost: not settled yet .*the usage ledger will show it\.$/m,
    );
    await new Promise((resolve) => setTimeout(resolve, RUN_MS));
    const [entry] = await harness.repositories.ledger.entries(account.accountId);
    expect(entry).toMatchObject({
      operation: 'search.service-categories',
      transport: 'mcp',
      status: 'charged',
    });
  } finally {
    await client.close();
  }
});
