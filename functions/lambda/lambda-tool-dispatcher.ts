/**
 * The dispatch port on AWS: /mcp hands each tool call to its tool group's function by a synchronous
 * Lambda invoke, the ToolCall JSON as payload and the ToolOutcome JSON as answer. A failure never
 * crashes /mcp: the tool gets the error result the spec wants, internal_error when the group function
 * failed (it may have debited; reconcile settles that) and 503 when it could not be invoked.
 */
import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from '@aws-sdk/client-lambda';
import { InternalError, ServiceUnavailableError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { ToolEntry } from '../../shared/mcp/tool-catalog.js';
import type { ToolCall, ToolDispatcher } from '../../shared/mcp/tool-dispatch.js';
import type { ToolOutcome } from '../../shared/mcp/tool-results.js';
import { errorResponse } from '../../shared/pipeline/public-response.js';

export class LambdaToolDispatcher implements ToolDispatcher {
  /**
   * `client` must not retry (maxAttempts 1): an invoke that failed in transit may have run, and a
   * retry would bill the call twice. The client decides whether to call again.
   */
  constructor(
    private readonly tools: ReadonlyMap<string, ToolEntry>,
    /** Function name (or ARN) by tool group. */
    private readonly functions: ReadonlyMap<string, string>,
    private readonly client: LambdaClient,
    private readonly logger: Logger,
  ) {}

  async dispatch(call: ToolCall): Promise<ToolOutcome> {
    const group = this.tools.get(call.tool)?.operation.definition.group;
    const functionName = group === undefined ? undefined : this.functions.get(group);
    // The adapter answers unknown names itself; reaching here with one is a wiring fault.
    if (functionName === undefined) throw new Error(`No tool-group function for the tool ${call.tool}.`);
    let answer: InvokeCommandOutput;
    try {
      answer = await this.client.send(
        new InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(JSON.stringify(call)) }),
      );
    } catch (error) {
      this.logger.error({ err: error, requestId: call.requestId, functionName }, 'tool-group invoke failed');
      const refusal = new ServiceUnavailableError(
        'The lookup could not be started; try again shortly.',
        error,
      );
      // Whether the function ran is unknown: settlement, if any, completes on its own.
      return { response: errorResponse(refusal, call.requestId), creditCost: undefined };
    }
    const text = Buffer.from(answer.Payload ?? new Uint8Array()).toString('utf8');
    if (answer.FunctionError) {
      this.logger.error(
        {
          requestId: call.requestId,
          functionName,
          functionError: answer.FunctionError,
          payload: text.slice(0, 2000),
        },
        'tool-group function failed',
      );
      return { response: errorResponse(new InternalError(text), call.requestId), creditCost: undefined };
    }
    return JSON.parse(text) as ToolOutcome;
  }
}
