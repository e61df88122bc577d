/**
 * The /mcp function: the MCP protocol (authentication, tools/list, the deadline) in this function,
 * each tools/call run by its tool group's function through LambdaToolDispatcher. It runs no
 * operation itself, so it carries neither the dataset nor Chromium, and it serves its tools from
 * what its build wrote down (mcp-tools.ts), so it loads no operation's schemas.
 */
import { BUNDLED_MCP_TOOLS_FILE } from '../../schemas/function-conventions.js';
import { toolGroupFunctions } from '../../shared/config.js';
import { mountMcp } from '../../shared/mcp/mount-mcp.js';
import { carriedOrMade } from './carried-documents.js';
import { createLambdaService } from './lambda-service.js';
import { LambdaStreamingInvoker } from './lambda-streaming-invoker.js';
import { LambdaToolDispatcher } from './lambda-tool-dispatcher.js';
import type { McpTools } from './mcp-tools.js';
import { toRestHandler } from './rest-adapter.js';

const service = await createLambdaService({ operations: [], implementations: () => [] });
const served = await carriedOrMade<McpTools>(
  BUNDLED_MCP_TOOLS_FILE,
  service.config.PRICE_OVERRIDES,
  async (overrides) => (await import('./mcp-tools.js')).buildMcpTools(overrides),
);
const tools = new Map(served.tools.map((entry) => [entry.tool.name, entry]));
const groups = new Set(served.tools.map((entry) => entry.operation.definition.group));
const invoker = new LambdaStreamingInvoker({
  region: service.config.AWS_REGION,
  endpoint: service.config.AWS_ENDPOINT_URL_LAMBDA,
});
mountMcp(service, {
  tools,
  dispatcher: new LambdaToolDispatcher(tools, toolGroupFunctions(groups), invoker, service.logger),
});

export const handler = toRestHandler(service.app);
