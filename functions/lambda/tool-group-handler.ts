/**
 * The function of one MCP tool group, invoked by the /mcp function only (Lambda invoke, never from
 * the internet): the event is a ToolCall, the answer its ToolOutcome, run by the same in-process
 * dispatcher and billed pipeline as the local /mcp (transport `mcp`). The caller was authenticated
 * by /mcp; IAM lets nothing else invoke this function.
 *
 * The outcome is streamed (InvokeWithResponseStream), as JSON: a tool result carries its data twice
 * (structured and as text) and nothing bounds an imported record to half of the 6 MB a buffered
 * invoke may answer; a streamed one has no such cliff.
 */
import type { StreamifyHandler } from 'aws-lambda';
import { catalog } from '../../schemas/catalog.js';
import { toolGroups } from '../../schemas/functions.js';
import { buildToolCatalog } from '../../shared/mcp/tool-catalog.js';
import { LocalToolDispatcher, type ToolCall } from '../../shared/mcp/tool-dispatch.js';
import type { ToolOutcome } from '../../shared/mcp/tool-results.js';
import { createLambdaService, type FamilyImplementations, implementationsOf } from './lambda-service.js';

export type ToolGroupHandler = StreamifyHandler<ToolCall, void>;

/** `families`: the implementations of every family the group's operations belong to. */
export async function createToolGroupHandler(
  group: string,
  families: readonly FamilyImplementations[],
): Promise<ToolGroupHandler> {
  const members = new Set<string>(toolGroups().get(group) ?? []);
  if (members.size === 0) throw new Error(`No MCP tool group ${group} in the catalog.`);
  const service = await createLambdaService({
    operations: catalog.filter((operation) => members.has(operation.id)),
    implementations: implementationsOf(families),
  });
  const dispatcher = new LocalToolDispatcher(buildToolCatalog(service.operations), service.pipeline);
  return awslambda.streamifyResponse(async (event, responseStream) => {
    const outcome: ToolOutcome = await dispatcher.dispatch(event);
    responseStream.setContentType('application/json');
    responseStream.write(JSON.stringify(outcome));
    await new Promise<void>((resolve) => responseStream.end(resolve));
  });
}
