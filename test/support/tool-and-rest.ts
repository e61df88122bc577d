/**
 * One lookup made twice, as an MCP tool call over /mcp (the SDK's real client) and as the REST
 * request for the same input, each on a fresh account of the same balance, so a test can hold the
 * tool to REST: the body, the status, the balance left and the ledger entry must all be the same.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Harness } from './harness.js';
import { connectEraClient, type Era } from './mcp-server.js';

export interface ToolAndRestCall {
  tool: string;
  /** The tool's arguments; REST sends the same names and values as its query. */
  arguments: Record<string, string>;
  /** The REST path of the same operation. */
  path: string;
  /** The REST query when it must differ from the arguments (a twin domain, where answers are remembered). */
  restQuery?: Record<string, string>;
}

/** What one side of the pair answered and billed. */
export interface SettledCall {
  status: number;
  /** The body, its request id (minted per call) replaced by a marker. */
  body: unknown;
  /** The X-Credits-Remaining the call reported (absent on a free call). */
  creditsRemaining: string | undefined;
  /** The account's ledger afterwards, without what differs by nature (ids, times, transport). */
  ledger: { operation: string; cost: number; status: string; httpStatus?: number; refundReason?: string }[];
}

interface LookupMeta {
  status: number;
  headers: Record<string, string>;
}

/**
 * `mcpUrl`: the /mcp URL with the filter that serves the tool; `era`: the protocol revision the
 * tool call speaks. Both accounts start with `credits`.
 */
export async function callToolAndRest(
  harness: Harness,
  mcpUrl: string,
  call: ToolAndRestCall,
  era: Era = '2025-11-25',
  credits = 100,
): Promise<{ tool: SettledCall & { result: CallToolResult }; rest: SettledCall }> {
  const toolAccount = await harness.provision({ credits });
  const client = await connectEraClient(mcpUrl, toolAccount.apiKey, era);
  let result: CallToolResult;
  try {
    result = await client.callTool({ name: call.tool, arguments: call.arguments });
  } finally {
    await client.close();
  }
  const meta = Object.entries(result._meta ?? {}).find(([key]) => key.endsWith('/lookup'))?.[1] as
    | LookupMeta
    | undefined;
  if (!meta) throw new Error(`The result of ${call.tool} carries no lookup _meta.`);

  const restAccount = await harness.provision({ credits });
  const response = await harness.get(
    `${call.path}?${new URLSearchParams(call.restQuery ?? call.arguments)}`,
    restAccount.apiKey,
  );
  return {
    tool: {
      result,
      status: meta.status,
      body: withoutRequestId(result.structuredContent),
      creditsRemaining: meta.headers['X-Credits-Remaining'],
      ledger: await ledgerOf(harness, toolAccount.account.accountId),
    },
    rest: {
      status: response.status,
      body: withoutRequestId(await response.json()),
      creditsRemaining: response.headers.get('x-credits-remaining') ?? undefined,
      ledger: await ledgerOf(harness, restAccount.account.accountId),
    },
  };
}

async function ledgerOf(harness: Harness, accountId: string): Promise<SettledCall['ledger']> {
  return (await harness.repositories.ledger.entries(accountId)).map(
    ({ operation, cost, status, httpStatus, refundReason }) => ({
      operation,
      cost,
      status,
      ...(httpStatus === undefined ? {} : { httpStatus }),
      ...(refundReason === undefined ? {} : { refundReason }),
    }),
  );
}

function withoutRequestId(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) =>
    key === 'requestId' && typeof value === 'string' ? '<minted>' : value,
  );
}
