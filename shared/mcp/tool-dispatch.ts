/**
 * The dispatch port: how the /mcp adapter has one tool call run. Its payload and answer are plain
 * JSON, so on AWS the /mcp function can hand a call to its tool group's function; locally the call
 * runs in-process through the same billed pipeline as REST.
 */
import type { Principal } from '../auth/authenticator.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import type { LookupPipeline } from '../pipeline/run-lookup.js';
import { buildToolCatalog, type ToolEntry, variantFor } from './tool-catalog.js';
import type { ToolOutcome } from './tool-results.js';

export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** The caller, authenticated by the /mcp adapter for this HTTP request. */
  principal: Principal;
  requestId: string;
}

export interface ToolDispatcher {
  dispatch(call: ToolCall): Promise<ToolOutcome>;
}

/** What an /mcp endpoint serves: its tools by name, in catalog order, and the port each call runs through. */
export interface ServedTools {
  tools: ReadonlyMap<string, ToolEntry>;
  dispatcher: ToolDispatcher;
}

/** The given operations as tools, each call run in this process through the billed pipeline. */
export function inProcessTools(
  operations: readonly RegisteredOperation[],
  pipeline: LookupPipeline,
): ServedTools {
  const tools = buildToolCatalog(operations);
  return { tools, dispatcher: new LocalToolDispatcher(tools, pipeline) };
}

export class LocalToolDispatcher implements ToolDispatcher {
  constructor(
    private readonly tools: ReadonlyMap<string, ToolEntry<RegisteredOperation>>,
    private readonly pipeline: LookupPipeline,
  ) {}

  async dispatch(call: ToolCall): Promise<ToolOutcome> {
    const entry = this.tools.get(call.tool);
    // The adapter answers unknown names itself; reaching here with one is a wiring fault.
    if (!entry) throw new Error(`No tool ${call.tool} in this dispatcher.`);
    const { operation } = entry;
    const outcome = await this.pipeline.run({
      operation,
      variant: variantFor(operation, call.arguments),
      credential: { scheme: 'principal', principal: call.principal },
      input: { kind: 'arguments', values: call.arguments },
      requestId: call.requestId,
      transport: 'mcp',
    });
    return { response: outcome.response, creditCost: outcome.creditCost };
  }
}
