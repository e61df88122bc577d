/**
 * Tool results from public responses. Success: `structuredContent` is exactly the REST body, a text
 * block holds its JSON and a second one the cost line. Business failure: `isError`, the public error
 * body, and a text an agent can act on (the cost line, whether and when to retry, what to change).
 * Both carry `_meta["<SERVICE_DOMAIN>/lookup"]` with the public status and the REST headers that
 * apply. The cost line is text because a model reads the text, not `_meta` (a client shows `_meta`
 * to nobody): what the call cost and what remains, in one short line.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { PagingStyle } from '../../schemas/envelope.js';
import type { ErrorBody, ErrorCode } from '../../schemas/errors.js';
import type { PublicResponse } from '../pipeline/public-response.js';
import { cutNotice, cutToFit } from './result-bound.js';

/** The REST headers a tool result repeats in `_meta`; the rest describe HTTP, not the lookup. */
const LOOKUP_HEADERS = [
  'X-Request-Id',
  'X-Credits-Remaining',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
] as const;

/** What came of one tool call, in plain JSON (it may cross a function boundary). */
export interface ToolOutcome {
  response: PublicResponse;
  /**
   * Credits the call finally cost (0 when refunded, refused before the debit, or free); undefined
   * when not known yet (the call outlived the lookup deadline and settles on its own).
   */
  creditCost: number | undefined;
  /** What the cost line adds: a call free itself that starts billed work (a batch's items). */
  costNote?: string;
}

/** What bounds a tool's success result (result-bound.ts): its operation's paging and the bound. */
export interface ResultBound {
  paging: PagingStyle;
  maxChars: number;
}

export function toToolResult(
  outcome: ToolOutcome,
  serviceDomain: string,
  bound?: ResultBound,
): CallToolResult {
  const { response } = outcome;
  const headers: Record<string, string> = {};
  for (const name of LOOKUP_HEADERS) {
    const value = response.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  const lookup: Record<string, unknown> = { status: response.status, headers };
  const _meta = { [`${serviceDomain}/lookup`]: lookup };
  const body = response.body as Record<string, unknown>;
  if (response.status < 400) {
    const cost = [costLine(undefined, outcome.creditCost, headers), outcome.costNote]
      .filter(Boolean)
      .join(' ');
    const render = (shown: Record<string, unknown>, json = JSON.stringify(shown)): CallToolResult => ({
      content: [
        { type: 'text', text: json },
        { type: 'text', text: cost },
      ],
      structuredContent: shown,
      _meta,
    });
    // The text block is the body's JSON, so the result's size is that JSON twice and the cost line.
    const sizeOf = (json: string) => 2 * json.length + cost.length;
    const json = JSON.stringify(body);
    if (!bound || sizeOf(json) <= bound.maxChars) return render(body, json);
    const fitted = cutToFit(body, bound.paging, bound.maxChars, (shown) => sizeOf(JSON.stringify(shown)));
    const result = render(fitted.body);
    if (fitted.cut) {
      lookup.cut = fitted.cut;
      result.content.push({ type: 'text', text: cutNotice(fitted.cut, bound.maxChars) });
    }
    return result;
  }
  const json = JSON.stringify(body);
  return {
    isError: true,
    content: [
      { type: 'text', text: `${guidance(body as ErrorBody, outcome.creditCost, headers)}\n\n${json}` },
    ],
    structuredContent: body,
    _meta,
  };
}

/**
 * Errors after which an agent must not switch tools or retry on its own (SPEC "Tool endpoint
 * rules"): authentication, account, credit, rate-limit and service errors.
 */
const STOP_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_api_key',
  'insufficient_scope',
  'insufficient_credits',
  'rate_limit_exceeded',
  'internal_error',
  'upstream_error',
  'service_unavailable',
  'capacity_exceeded',
  'upstream_timeout',
]);

const ADVICE = new Map<ErrorCode, string>([
  ['invalid_request', 'Change the arguments as error.details says, then call again.'],
  ['cursor_expired', 'Call again without cursor to restart from the first page.'],
  ['invalid_api_key', 'The credentials are missing, wrong or inactive: the user must fix the configuration.'],
  [
    'insufficient_credits',
    "The account is out of credits, or the key's spend cap is reached (the message says which): the user must top up, or wait for the cap's reset, before a new call.",
  ],
  [
    'insufficient_scope',
    'The account is suspended or may not use this tool: the user must resolve the account first.',
  ],
  [
    'resource_not_found',
    'Nothing matched: check the identifier. This does not prove that the person, company or item does not exist.',
  ],
  ['rate_limit_exceeded', 'The account is over its request ceiling.'],
]);

function guidance(body: ErrorBody, creditCost: number | undefined, headers: Record<string, string>): string {
  const { code, message, retryable, details } = body.error;
  const lines = [`${code}: ${message}`];
  lines.push(costLine(code, creditCost, headers));
  for (const detail of details) lines.push(`- ${detail.field} (${detail.code}): ${detail.message}`);
  lines.push(ADVICE.get(code) ?? 'The service or its data source failed.');
  const retryAfter = headers['Retry-After'];
  if (STOP_CODES.has(code)) {
    lines.push(
      retryable
        ? `Do not switch to another tool and do not retry automatically; a person may decide to try once more${retryAfter ? ` after ${retryAfter} seconds` : ' later'}.`
        : 'Do not switch to another tool and do not retry: retrying will not help.',
    );
  } else if (!retryable && code !== 'invalid_request' && code !== 'cursor_expired') {
    lines.push('Retrying the same call will not help.');
  }
  return lines.join('\n');
}

/**
 * What the call cost and what remains: charged, refunded or never debited, and the balance when the
 * answer tells it. A balance header on an error without a charge means the call was debited and then
 * refunded; the one exception is 402, which reports the balance it refused. Free calls that read no
 * balance (account reads) tell none.
 */
export function costLine(
  code: ErrorCode | undefined,
  creditCost: number | undefined,
  headers: Record<string, string>,
): string {
  if (creditCost === undefined)
    return 'Cost: not settled yet (the call outlived its deadline); the usage ledger will show it.';
  const remaining = headers['X-Credits-Remaining'];
  const balance =
    remaining === undefined
      ? ''
      : `; ${remaining} ${Number(remaining) === 1 ? 'credit remains' : 'credits remain'}`;
  if (creditCost > 0) return `Cost: ${creditCost} ${credits(creditCost)} charged${balance}.`;
  if (code === undefined) return `Cost: free, nothing charged${balance}.`;
  if (remaining !== undefined && code !== 'insufficient_credits')
    return `Cost: nothing, the credits debited for this call were refunded${balance}.`;
  return `Cost: nothing charged${balance}.`;
}

const credits = (count: number) => (count === 1 ? 'credit' : 'credits');

/** A result's size as the bound counts it: its text blocks and its structuredContent as JSON. */
export function resultChars(result: CallToolResult): number {
  const text = result.content.reduce(
    (sum, block) => sum + (block.type === 'text' ? block.text.length : 0),
    0,
  );
  return text + JSON.stringify(result.structuredContent ?? null).length;
}
