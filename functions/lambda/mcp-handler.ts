/**
 * The /mcp function: the MCP protocol (authentication, tools/list, the deadline) in this function,
 * each tools/call run by its tool group's function through LambdaToolDispatcher. It runs no
 * operation itself, so it carries neither the dataset nor Chromium.
 */
import { catalog } from '../../schemas/catalog.js';
import { toolGroups } from '../../schemas/functions.js';
import { toolGroupFunctions } from '../../shared/config.js';
import { mountMcp } from '../../shared/mcp/mount-mcp.js';
import { describedOperations } from '../../shared/pipeline/operation.js';
import { createLambdaService } from './lambda-service.js';
import { LambdaStreamingInvoker } from './lambda-streaming-invoker.js';
import { LambdaToolDispatcher } from './lambda-tool-dispatcher.js';
import { toRestHandler } from './rest-adapter.js';

const service = await createLambdaService({ operations: [], implementations: () => [] });
const functions = toolGroupFunctions(toolGroups().keys());
const invoker = new LambdaStreamingInvoker({
  region: service.config.AWS_REGION,
  endpoint: service.config.AWS_ENDPOINT_URL_LAMBDA,
});
mountMcp(service, {
  operations: describedOperations(catalog, service.config.PRICE_OVERRIDES),
  dispatcher: (tools) => new LambdaToolDispatcher(tools, functions, invoker, service.logger),
});

export const handler = toRestHandler(service.app);
