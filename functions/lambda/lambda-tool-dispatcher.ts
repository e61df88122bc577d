/**
 * The dispatch port on AWS: /mcp hands each tool call to its tool group's function by a Lambda invoke
 * with a streamed response (InvokeWithResponseStream: no 6 MB cliff, see tool-group-handler.ts), the
 * ToolCall JSON as payload and the ToolOutcome JSON as the streamed answer. A failure never crashes
 * /mcp: the tool gets the error result the spec wants, internal_error when the group function failed
 * or its answer was cut off (it may have debited; reconcile settles that) and 503 when it could not
 * be invoked.
 */
import { InternalError, ServiceUnavailableError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { ToolEntry } from '../../shared/mcp/tool-catalog.js';
import type { ToolCall, ToolDispatcher } from '../../shared/mcp/tool-dispatch.js';
import type { ToolOutcome } from '../../shared/mcp/tool-results.js';
import { errorResponse } from '../../shared/pipeline/public-response.js';
import type { LambdaStreamingInvoker } from './lambda-streaming-invoker.js';

export class LambdaToolDispatcher implements ToolDispatcher {
  /**
   * `invoker` never retries: an invoke that failed in transit may have run, and a retry would bill
   * the call twice. The client decides whether to call again.
   */
  constructor(
    private readonly tools: ReadonlyMap<string, ToolEntry>,
    /** Function name (or ARN) by tool group. */
    private readonly functions: ReadonlyMap<string, string>,
    private readonly invoker: LambdaStreamingInvoker,
    private readonly logger: Logger,
  ) {}

  async dispatch(call: ToolCall): Promise<ToolOutcome> {
    const group = this.tools.get(call.tool)?.operation.definition.group;
    const functionName = group === undefined ? undefined : this.functions.get(group);
    // The adapter answers unknown names itself; reaching here with one is a wiring fault.
    if (functionName === undefined) throw new Error(`No tool-group function for the tool ${call.tool}.`);
    const chunks: Uint8Array[] = [];
    let failure: { code: string; details: string } | undefined;
    try {
      for await (const event of this.invoker.invoke(functionName, Buffer.from(JSON.stringify(call)))) {
        if (event.PayloadChunk?.Payload) chunks.push(event.PayloadChunk.Payload);
        const { ErrorCode, ErrorDetails } = event.InvokeComplete ?? {};
        if (ErrorCode) failure = { code: ErrorCode, details: ErrorDetails ?? '' };
      }
    } catch (error) {
      this.logger.error({ err: error, requestId: call.requestId, functionName }, 'tool-group invoke failed');
      // Before any chunk, whether the function ran is unknown (settlement, if any, completes on its
      // own); after one, it ran and its answer was cut off.
      const refusal =
        chunks.length === 0
          ? new ServiceUnavailableError('The lookup could not be started; try again shortly.', error)
          : new InternalError(error);
      return { response: errorResponse(refusal, call.requestId), creditCost: undefined };
    }
    if (failure) {
      this.logger.error(
        {
          requestId: call.requestId,
          functionName,
          functionError: failure.code,
          details: failure.details.slice(0, 2000),
        },
        'tool-group function failed',
      );
      return {
        response: errorResponse(new InternalError(`${failure.code}: ${failure.details}`), call.requestId),
        creditCost: undefined,
      };
    }
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      return JSON.parse(text) as ToolOutcome;
    } catch (error) {
      this.logger.error(
        { err: error, requestId: call.requestId, functionName },
        'tool-group answer unreadable',
      );
      return { response: errorResponse(new InternalError(error), call.requestId), creditCost: undefined };
    }
  }
}
