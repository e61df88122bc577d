/**
 * The params of a `tools/call`, read from the message as JSON.parse produced it, before the SDK
 * parses it. Two reasons: the SDK's schema parsing copies `arguments` into a fresh object, which
 * drops an own `__proto__` key (so it could not be refused as `unknown_parameter` like any other
 * unknown argument), and its parse failures answer -32603 Internal error with a dump of the schema's
 * issues, where JSON-RPC and the MCP spec want -32602 Invalid params, here with one short sentence.
 */
import { ProtocolError, ProtocolErrorCode, specTypeSchemas } from '@modelcontextprotocol/server';
import { printableField } from '../pipeline/public-response.js';

export type ToolCallParams =
  | { ok: true; name: string; arguments: Record<string, unknown> }
  | { ok: false; error: InvalidParamsError };

/** JSON-RPC -32602, thrown from a request handler: the SDK answers its `code` and `message` as they are. */
export class InvalidParamsError extends ProtocolError {
  constructor(message: string) {
    super(ProtocolErrorCode.InvalidParams, message);
    this.name = 'InvalidParamsError';
  }
}

/** The params of a tools/call message; undefined for any other message. */
export function readToolCallParams(message: unknown): ToolCallParams | undefined {
  if (!isObject(message) || message.method !== 'tools/call') return undefined;
  const { params } = message;
  if (!isObject(params))
    return refused('params must be an object with the name of the tool and its arguments.');
  if (typeof params.name !== 'string')
    return refused('params.name must be the name of a tool, as a string; call tools/list for them.');
  const args = params.arguments;
  if (args !== undefined && !isObject(args))
    return refused('params.arguments must be an object of argument names and values, or left out.');
  // Whatever else the protocol's schema asks of params (_meta, task), in the SDK's own terms.
  const checked = specTypeSchemas.CallToolRequest['~standard'].validate({ method: 'tools/call', params });
  if (checked.issues) {
    const path = (checked.issues[0]?.path ?? ['params'])
      .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
      .join('.');
    return refused(
      `${printableField(path).slice(0, 64)} does not have the form the MCP schema of tools/call gives it.`,
    );
  }
  return { ok: true, name: params.name, arguments: args ?? {} };
}

/**
 * The message the SDK is given when params are refused: the same request with params it parses,
 * so that the transport's own checks (Accept, protocol version) still come first, and the handler
 * then answers the refusal under the request's id.
 */
export function withParsableParams(message: Record<string, unknown>): Record<string, unknown> {
  return { ...message, params: { name: '' } };
}

function refused(problem: string): ToolCallParams {
  return { ok: false, error: new InvalidParamsError(`Invalid params: ${problem}`) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
