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
import { toolGroupMembersOf } from '../../schemas/function-conventions.js';
import { inProcessTools, type ToolCall } from '../../shared/mcp/tool-dispatch.js';
import type { ToolOutcome } from '../../shared/mcp/tool-results.js';
import { createLambdaService, implementationsOf, type LambdaFamily } from './lambda-service.js';

export type ToolGroupHandler = StreamifyHandler<ToolCall, void>;

/**
 * The group's tools, by name, and their dispatcher over the group's service. `families`: the modules
 * of every family the group's operations belong to.
 */
export async function createToolGroupDispatcher(group: string, families: readonly LambdaFamily[]) {
  const members = toolGroupMembersOf(families.flatMap((family) => family.operations)).get(group);
  if (!members) throw new Error(`No MCP tool group ${group} among its families' operations.`);
  const service = await createLambdaService({
    operations: members,
    implementations: implementationsOf(families),
  });
  return inProcessTools(service.operations, service.pipeline);
}

export async function createToolGroupHandler(
  group: string,
  families: readonly LambdaFamily[],
): Promise<ToolGroupHandler> {
  const { dispatcher } = await createToolGroupDispatcher(group, families);
  return awslambda.streamifyResponse(async (event, responseStream) => {
    const outcome: ToolOutcome = await dispatcher.dispatch(event);
    responseStream.setContentType('application/json');
    responseStream.write(JSON.stringify(outcome));
    await new Promise<void>((resolve) => responseStream.end(resolve));
  });
}
