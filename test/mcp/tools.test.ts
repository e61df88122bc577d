/**
 * Every tool through the SDK's real client over loopback, against the REST body for the same input:
 * success bodies deep-equal (paging cursors and request ids aside, since each call mints its own),
 * errors are tool results the client accepts (its output-schema check passes on them too), and
 * `_meta` carries the status and the credit and rate-limit headers. Billing is REST's.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { errorBodySchema } from '../../schemas/errors.js';
import { toolGroups } from '../../schemas/functions.js';
import { defaultToolNames, type OperationDefinition } from '../../schemas/operation-definition.js';
import { companySearch } from '../../schemas/operations/companies.js';
import { buildToolCatalog } from '../../shared/mcp/tool-catalog.js';
import { LocalToolDispatcher, type ToolCall } from '../../shared/mcp/tool-dispatch.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  connectClient,
  connectEraClient,
  ERAS,
  type Era,
  type EraClient,
  type ListeningApp,
  listen,
  postJsonRpc,
  withoutMinted,
} from '../support/mcp-server.js';
import { identifierValues, otherParameters, sampleRequests } from '../support/sample-inputs.js';

const SERVICE_DOMAIN = 'lookup.test';
let harness: Harness;
let app: ListeningApp;
let apiKey: string;
let accountId: string;
let client: Client;
/** The same connection in each protocol era, by its own SDK's client. */
const eraClients = new Map<Era, EraClient>();

beforeAll(async () => {
  harness = await startHarness({ env: { SERVICE_DOMAIN } });
  app = await listen(harness);
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ credits: 10_000 }));
  // Every group asked for: the connection serves every tool, those listed only on request too.
  const everyTool = `${app.url}?toolsets=${[...toolGroups().keys()].join(',')}`;
  client = await connectClient(everyTool, apiKey);
  await client.listTools();
  for (const era of ERAS) eraClients.set(era, await connectEraClient(everyTool, apiKey, era));
});
afterAll(async () => {
  for (const eraClient of eraClients.values()) await eraClient.close();
  await client.close();
  await app.close();
  await harness.close();
});

interface LookupMeta {
  status: number;
  headers: Record<string, string>;
}

function lookupMeta(result: CallToolResult): LookupMeta {
  return result._meta?.[`${SERVICE_DOMAIN}/lookup`] as LookupMeta;
}

async function call(
  name: string,
  args: Record<string, unknown>,
  era: Era = '2025-11-25',
): Promise<CallToolResult> {
  return (eraClients.get(era) as EraClient).callTool({ name, arguments: args });
}

async function rest(path: string, parameters: Record<string, string>) {
  const response = await harness.get(`${path}?${new URLSearchParams(parameters)}`, apiKey);
  return { response, body: await response.json() };
}

/**
 * Tools that dial mail servers or open pages have their own files with loopback SMTP, DNS and web
 * sites (test/mcp/email-tools.test.ts, test/browser/mcp-website-tools.test.ts).
 */
const toolOperations = (catalog as readonly OperationDefinition[]).filter(
  (operation) => operation.mcpTool && operation.runtime.needs.length === 0,
);

describe.each(ERAS)('in the %s era', (era) => {
  describe.each(toolOperations.map((operation) => [operation.mcpTool, operation] as const))(
    '%s',
    (tool, operation) => {
      it.each(sampleRequests(operation))('returns the REST body of $path', async ({ path, parameters }) => {
        const result = await call(tool as string, parameters, era);
        const { response, body } = await rest(path, parameters);
        expect(response.status).toBe(200);
        expect(result.isError).toBeFalsy();
        expect(withoutMinted(result.structuredContent)).toEqual(withoutMinted(body));
        const meta = lookupMeta(result);
        const charged = (result.structuredContent as { meta: { creditCost: number } }).meta.creditCost;
        const remaining = meta.headers['X-Credits-Remaining'];
        expect(result.content).toEqual([
          { type: 'text', text: JSON.stringify(result.structuredContent) },
          {
            type: 'text',
            text:
              charged > 0
                ? `Cost: ${charged} credit${charged === 1 ? '' : 's'} charged; ${remaining} credits remain.`
                : `Cost: free, nothing charged${remaining === undefined ? '' : `; ${remaining} credits remain`}.`,
          },
        ]);
        expect(meta.status).toBe(200);
        // Free account reads spend nothing, so they tell no balance in a header (data.credits has it).
        expect(Object.keys(meta.headers).sort()).toEqual([
          'RateLimit',
          'RateLimit-Policy',
          ...(operation.price > 0 ? ['X-Credits-Remaining'] : []),
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'X-Request-Id',
        ]);
        expect(meta.headers['X-Request-Id']).toMatch(/^req_/);
        // The REST call came after the tool call: it was charged once more.
        if (operation.price > 0)
          expect(Number(response.headers.get('x-credits-remaining'))).toBe(
            Number(meta.headers['X-Credits-Remaining']) - operation.price,
          );
      });
    },
  );
});

describe('tool errors', () => {
  it('reports two identifiers as identifier_count, exactly like REST, free of charge', async () => {
    const args = { username: identifierValues.profiles?.username, url: identifierValues.profiles?.url };
    const result = await call('get_profile_details', args);
    expect(result.isError).toBe(true);
    const body = errorBodySchema().strict().parse(result.structuredContent);
    expect(body.error.details).toEqual([
      {
        field: 'username|url|publicId',
        code: 'identifier_count',
        message:
          'Send exactly one of username, url, publicId; received username and url: keep one and remove the others.',
      },
    ]);
    const meta = lookupMeta(result);
    expect(meta.status).toBe(400);
    expect(meta.headers['X-Request-Id']).toBe(body.meta.requestId);
    const restBody = await rest('/v1/profiles/details/by-username', args as Record<string, string>);
    // REST names the path's identifier; the tool, which has no path, names the choice.
    expect(restBody.body.error.details[0].code).toBe('identifier_count');
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^Cost: nothing charged\.$/m);
    expect(text).toMatch(/Change the arguments/);
  });

  it('says a tool of one identifier needs it when none was sent', async () => {
    const result = await call('get_profile_posts', {});
    expect(errorBodySchema().strict().parse(result.structuredContent).error.details).toEqual([
      {
        field: 'username',
        code: 'identifier_count',
        message: 'This tool takes exactly one identifier, username; none was sent.',
      },
    ]);
  });

  it('reports no identifier as identifier_count', async () => {
    const result = await call('get_company_details', {});
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'invalid_request', details: [{ code: 'identifier_count', field: 'slug|url|publicId' }] },
    });
  });

  it('rejects an unknown argument with unknown_parameter, as REST does', async () => {
    const parameters = { username: identifierValues.profiles?.username as string, bogus: '1' };
    const result = await call('get_profile_skills', parameters);
    const { body } = await rest('/v1/profiles/skills/by-username', parameters);
    expect(result.isError).toBe(true);
    expect(withoutMinted(result.structuredContent)).toEqual(withoutMinted(body));
    expect(body.error.details).toEqual([
      expect.objectContaining({ field: 'bogus', code: 'unknown_parameter' }),
    ]);
  });

  it('takes offsets as JSON numbers and answers what REST answers for the digits', async () => {
    const keywords = otherParameters(companySearch).keywords as string;
    const result = await call('search_companies_by_keyword', { keywords, offset: 10 });
    const { body } = await rest('/v1/companies/search', { keywords, offset: '10' });
    expect(result.structuredContent).toEqual(body);
    expect(body.meta.paging.offset).toBe(10);
  });

  it('answers a lookup that matches nothing with a refunded 404 tool error', async () => {
    const before = (await harness.repositories.ledger.state(accountId)).balance;
    const result = await call('get_profile_details', { username: 'nobody-at-all' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'resource_not_found' } });
    const meta = lookupMeta(result);
    expect(meta.status).toBe(404);
    expect(meta.headers['X-Credits-Remaining']).toBe(String(before));
    expect(meta.headers['X-RateLimit-Remaining']).toBeDefined();
    expect((result.content[0] as { text: string }).text).toMatch(
      new RegExp(
        `^Cost: nothing, the credits debited for this call were refunded; ${before} credits remain\\.$`,
        'm',
      ),
    );
  });
});

describe('tools/call params', () => {
  const headers = () => ({ Authorization: `Bearer ${apiKey}`, 'MCP-Protocol-Version': '2025-06-18' });
  let id = 1_000;

  /** A tools/call with `params` spelled exactly as given (raw JSON text), over HTTP. */
  async function rawCall(params: string | undefined, url = app.url) {
    id += 1;
    const requestId = id;
    const body =
      params === undefined
        ? `{"jsonrpc":"2.0","id":${requestId},"method":"tools/call"}`
        : `{"jsonrpc":"2.0","id":${requestId},"method":"tools/call","params":${params}}`;
    const response = await postJsonRpc(url, body, headers());
    const message = (await response.json()) as {
      id: number;
      result?: CallToolResult;
      error?: { code: number; message: string; data?: unknown };
    };
    expect(message.id).toBe(requestId);
    return { status: response.status, message };
  }

  it.each(['__proto__', 'constructor', 'prototype'])(
    'refuses a %s argument as unknown_parameter, as REST does, free of charge',
    async (name) => {
      const before = (await harness.repositories.ledger.state(accountId)).balance;
      const username = identifierValues.profiles?.username as string;
      const { message } = await rawCall(
        `{"name":"get_profile_details","arguments":{"username":"${username}","${name}":"x"}}`,
      );
      expect(message.result?.isError).toBe(true);
      const body = errorBodySchema().strict().parse(message.result?.structuredContent);
      expect(body.error.details).toEqual([
        { field: name, code: 'unknown_parameter', message: `Unknown parameter ${name}.` },
      ]);
      expect(lookupMeta(message.result as CallToolResult).status).toBe(400);
      expect((await harness.repositories.ledger.state(accountId)).balance).toBe(before);
    },
  );

  it.each([
    ['{"name":"get_profile_details","arguments":[]}', /arguments/],
    ['{"name":"get_profile_details","arguments":"x"}', /arguments/],
    ['{"name":"get_profile_details","arguments":null}', /arguments/],
    ['{"name":"get_profile_details","arguments":42}', /arguments/],
    ['{"arguments":{}}', /name/],
    ['{"name":42,"arguments":{}}', /name/],
    ['{"name":null}', /name/],
    ['[]', /params/],
    ['"get_profile_details"', /params/],
    [undefined, /params/],
    ['{"name":"get_profile_details","arguments":{},"_meta":"x"}', /_meta/],
  ])('answers params %s with -32602 Invalid params and a short message', async (params, names) => {
    const before = (await harness.repositories.ledger.state(accountId)).balance;
    const { status, message } = await rawCall(params);
    expect(status).toBe(200);
    expect(message.result).toBeUndefined();
    expect(message.error?.code).toBe(-32602);
    expect(message.error?.message).toMatch(/^Invalid params: /);
    expect(message.error?.message).toMatch(names);
    // A short sentence for a person, not a dump of the schema's issues.
    expect(message.error?.message.length).toBeLessThan(200);
    expect(message.error?.message).not.toMatch(/expected|invalid_type|[[{]/);
    expect((await harness.repositories.ledger.state(accountId)).balance).toBe(before);
  });

  it('answers an unknown tool with -32602, as the MCP spec says, naming tools/list', async () => {
    const { message } = await rawCall('{"name":"get_everything","arguments":{}}');
    expect(message.result).toBeUndefined();
    expect(message.error).toEqual({
      code: -32602,
      message: 'Unknown tool "get_everything": call tools/list for the tools this connection serves.',
    });
  });

  it('answers a tool left out by ?tools= as unknown on that connection', async () => {
    const { message } = await rawCall(
      '{"name":"get_profile_details","arguments":{}}',
      `${app.url}?tools=search_companies_by_keyword`,
    );
    expect(message.error?.code).toBe(-32602);
    expect(message.error?.message).toMatch(/^Unknown tool "get_profile_details"/);
  });

  it('answers the SDK client with an error it throws, never a result', async () => {
    await expect(client.callTool({ name: 'get_everything', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});

describe('the dispatch port', () => {
  it('takes and answers plain JSON, so a call can cross a function boundary', async () => {
    const account = await harness.repositories.accounts.require(accountId);
    const call: ToolCall = {
      tool: 'get_company_details',
      arguments: { slug: identifierValues.companies?.slug },
      principal: { account, oauthSubject: 'agent-user-9' },
      requestId: 'req_dispatch_port_test',
    };
    const dispatcher = new LocalToolDispatcher(buildToolCatalog(harness.operations), harness.pipeline);
    const outcome = await dispatcher.dispatch(JSON.parse(JSON.stringify(call)) as ToolCall);
    expect(JSON.parse(JSON.stringify(outcome))).toEqual(outcome);
    expect(outcome).toMatchObject({
      creditCost: 1,
      response: { status: 200, headers: { 'X-Request-Id': call.requestId } },
    });
    const { body } = await rest('/v1/companies/details/by-slug', call.arguments as Record<string, string>);
    expect(outcome.response.body).toEqual(body);
  });
});

describe('billing through tools', () => {
  it('bills a reused JSON-RPC id as a new call and records the transport in the ledger', async () => {
    const before = (await harness.repositories.ledger.state(accountId)).balance;
    const message = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'search_service_categories', arguments: {} },
    };
    const headers = { Authorization: `Bearer ${apiKey}`, 'MCP-Protocol-Version': '2025-06-18' };
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const response = await postJsonRpc(app.url, message, headers);
      const body = await response.json();
      expect(body.id).toBe(7);
      ids.push(body.result._meta[`${SERVICE_DOMAIN}/lookup`].headers['X-Request-Id']);
      expect(response.headers.get('x-request-id')).toBe(ids[i]);
    }
    expect((await harness.repositories.ledger.state(accountId)).balance).toBe(before - 2);
    // The test clock stands still, so entries are told apart by request id, not by time.
    const entries = new Map(
      (await harness.repositories.ledger.entries(accountId)).map((entry) => [entry.requestId, entry]),
    );
    for (const id of ids) expect(entries.get(id)).toMatchObject({ transport: 'mcp', status: 'charged' });
    const { response } = await rest('/v1/search/service-categories', {});
    const restEntry = (await harness.repositories.ledger.entries(accountId)).find(
      (entry) => entry.requestId === response.headers.get('x-request-id'),
    );
    expect(restEntry).toMatchObject({ transport: 'rest', status: 'charged' });
  });
});

describe('account states as tool errors', () => {
  const username = identifierValues.profiles?.username as string;

  async function clientFor(account: Parameters<Harness['provision']>[0]) {
    const provisioned = await harness.provision(account);
    return { ...provisioned, client: await connectClient(app.url, provisioned.apiKey) };
  }

  it('lets a suspended account list tools and reports the restriction on call', async () => {
    const provisioned = await harness.provision({ credits: 10 });
    await harness.repositories.accounts.setStatus(provisioned.account.accountId, 'suspended', {
      actor: 'test',
    });
    const suspended = await connectClient(app.url, provisioned.apiKey);
    try {
      expect((await suspended.listTools()).tools).toHaveLength(defaultToolNames(catalog).length);
      const result = (await suspended.callTool({
        name: 'get_profile_details',
        arguments: { username },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        error: { code: 'insufficient_scope', retryable: false },
      });
      expect(lookupMeta(result).status).toBe(403);
      expect((result.content[0] as { text: string }).text).toMatch(/Do not switch to another tool/);
      expect((await harness.repositories.ledger.state(provisioned.account.accountId)).balance).toBe(10);
    } finally {
      await suspended.close();
    }
  });

  it('reports a balance below the price as 402 with the balance and rate-limit headers', async () => {
    const { client: poor } = await clientFor({ credits: 1 });
    try {
      const result = (await poor.callTool({
        name: 'get_profile_details',
        arguments: { username },
      })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ error: { code: 'insufficient_credits' } });
      const meta = lookupMeta(result);
      expect(meta.status).toBe(402);
      expect(meta.headers).toMatchObject({ 'X-Credits-Remaining': '1', 'X-RateLimit-Limit': '1000' });
      const text = (result.content[0] as { text: string }).text;
      expect(text).toMatch(/^Cost: nothing charged; 1 credit remains\.$/m);
      expect(text).toMatch(/top up/);
    } finally {
      await poor.close();
    }
  });

  it('reports the rate limit as 429 with Retry-After, shared with REST', async () => {
    const { client: limited, apiKey: limitedKey } = await clientFor({
      credits: 10,
      rateLimit: { limit: 2, windowSeconds: 60 },
    });
    try {
      const first = (await limited.callTool({
        name: 'search_service_categories',
        arguments: {},
      })) as CallToolResult;
      expect(lookupMeta(first).headers['X-RateLimit-Remaining']).toBe('1');
      expect((await harness.get('/v1/search/service-categories', limitedKey)).status).toBe(200);
      const refused = (await limited.callTool({
        name: 'search_service_categories',
        arguments: {},
      })) as CallToolResult;
      expect(refused.structuredContent).toMatchObject({
        error: { code: 'rate_limit_exceeded', retryable: true },
      });
      const meta = lookupMeta(refused);
      expect(meta.status).toBe(429);
      expect(Number(meta.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
      expect(meta.headers['X-RateLimit-Remaining']).toBe('0');
      expect((refused.content[0] as { text: string }).text).toMatch(/do not retry automatically/);
    } finally {
      await limited.close();
    }
  });
});
