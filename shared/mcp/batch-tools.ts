/**
 * The `batches` toolset (`?toolsets=batches`, issue 28): bulk lookups for agents, through the same
 * BatchService as POST /v1/batches, so a batch started here is validated, refused, held, billed and
 * read exactly as one created over REST (and is visible there too).
 * - `start_batch`: one operation (a tool name or its operation id) and up to
 *   MCP_BATCH_MAX_ITEMS argument objects; answers the batch's state at once, it runs in the background.
 * - `get_batch`: the state, and a page of result lines (each the single call's answer).
 * - `cancel_batch`: stops handing out items.
 * The calls are free, like their REST forms (they count in the account reads' window); every item is
 * billed when it runs, at its operation's price. Opt-in, never in the default listing: these tools
 * start spending many lookups in one call, which an agent should be given on purpose. Like the
 * compact mode's tools they are adapter tools, not catalog operations.
 */
import type { Tool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { resultLine } from '../batches/batch-results.js';
import type { BatchRoutesOptions } from '../batches/batch-routes.js';
import { once } from '../lazy.js';
import { baseHeaders } from '../pipeline/public-response.js';
import { adapterTool, argumentRefusal } from './discover-tools.js';
import type { ToolEntry } from './tool-catalog.js';
import type { ToolOutcome } from './tool-results.js';

export const BATCHES_TOOLSET = 'batches';
export const START_BATCH = 'start_batch';
export const GET_BATCH = 'get_batch';
export const CANCEL_BATCH = 'cancel_batch';

/**
 * Items one start_batch takes: a model writes every item into its call, so fewer than the REST
 * limit (BATCH_MAX_ITEMS); /mcp's 256 KB body bound applies as well.
 */
export const MCP_BATCH_MAX_ITEMS = 1_000;
const RESULTS_PAGE = { default: 20, max: 100 };
const batchIdArgument = () =>
  z
    .string()
    .regex(
      /^bat_[A-Za-z0-9]{20}$/,
      'A batch id is bat_ and 20 letters or digits, as start_batch answered it.',
    )
    .describe('The id start_batch answered.');

/** What the batch tools run on: the batch resource as `npm start` wires it (mount-batches.ts). */
export interface BatchToolsBackend extends BatchRoutesOptions {
  /** Admits one batch call in the account reads' window, as the REST routes do; throws 429. */
  admit(principal: Principal): Promise<void>;
  /** Authorizes the caller for the batch's operation (scopes, suspension), as a single call would be. */
  authenticator: Authenticator;
}

const startArguments = once(() =>
  z.strictObject({
    operation: z
      .string()
      .min(1)
      .max(64)
      .describe(
        'What every item runs: the name of a tool of this service (e.g. get_profile) or its operation id (e.g. profiles.details).',
      ),
    items: z
      .array(z.record(z.string(), z.unknown()))
      .min(1)
      .max(MCP_BATCH_MAX_ITEMS)
      .describe(
        `The items, 1 to ${MCP_BATCH_MAX_ITEMS}: each the arguments of one call of that tool, as its inputSchema describes them.`,
      ),
    invalidItems: z
      .enum(['reject', 'mark'])
      .optional()
      .describe(
        'reject (default): refuse the batch when any item is invalid, listing them; mark: run the valid items and mark the others invalid.',
      ),
    webhookUrl: z
      .string()
      .max(2048)
      .optional()
      .describe('A public https URL told (signed) when the batch completes, fails or pauses.'),
    idempotencyKey: z
      .string()
      .max(255)
      .optional()
      .describe(
        'Any unique string: retrying with the same key and arguments answers the same batch instead of starting another.',
      ),
  }),
);

const getArguments = once(() =>
  z.strictObject({
    batchId: batchIdArgument(),
    start: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The index of the first result line to return; 0 by default.'),
    limit: z
      .number()
      .int()
      .min(0)
      .max(RESULTS_PAGE.max)
      .optional()
      .describe(
        `How many result lines to return, 0 to ${RESULTS_PAGE.max}; ${RESULTS_PAGE.default} by default.`,
      ),
  }),
);

const cancelArguments = once(() => z.strictObject({ batchId: batchIdArgument() }));

const FREE =
  'Free: this call costs nothing; each item is billed when it runs, at the price of its tool, exactly as a single call.';

export const batchTools: readonly Tool[] = [
  adapterTool(
    {
      name: START_BATCH,
      title: 'Start a batch of lookups',
      description:
        `Runs one tool over many items in the background (up to ${MCP_BATCH_MAX_ITEMS}) and answers the batch at once: its id, state and counts. ` +
        "Every item is checked first with the tool's own rules. Then call get_batch with the id to follow it and read its results. " +
        `${FREE} Running out of credits pauses the batch until credits are added.`,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    startArguments,
  ),
  adapterTool(
    {
      name: GET_BATCH,
      title: 'Read a batch',
      description:
        "A batch's state (queued, running, paused, completed, cancelled, failed), its counts and the credits charged so far, " +
        'with a page of result lines: each item, its outcome and the answer its single call gave. ' +
        `Continue with meta.paging.nextStart. ${FREE}`,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    getArguments,
  ),
  adapterTool(
    {
      name: CANCEL_BATCH,
      title: 'Cancel a batch',
      description:
        'Stops a batch: no further item starts; items already running finish and are billed. Free.',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    cancelArguments,
  ),
];

export function isBatchTool(name: string): boolean {
  return name === START_BATCH || name === GET_BATCH || name === CANCEL_BATCH;
}

export interface BatchToolCall {
  name: string;
  /** As JSON.parse produced them: items are passed on as sent, never re-built by a parser. */
  args: Record<string, unknown>;
  principal: Principal;
  requestId: string;
}

/**
 * Runs one batch tool call (one of the three names isBatchTool accepts); its refusals (invalid arguments or items, an unknown batch, a finished
 * one) are thrown as ApiErrors for the caller to answer as tool errors.
 */
export async function runBatchTool(
  backend: BatchToolsBackend,
  catalog: ReadonlyMap<string, ToolEntry>,
  { name, args, principal, requestId }: BatchToolCall,
): Promise<ToolOutcome> {
  const { batches } = backend;
  const answer = (body: Record<string, unknown>, status = 200, costNote?: string): ToolOutcome => ({
    response: { status, headers: baseHeaders(requestId), body },
    creditCost: 0,
    ...(costNote ? { costNote } : {}),
  });
  if (name === START_BATCH) {
    const { operation, invalidItems, webhookUrl, idempotencyKey } = parse(startArguments(), args);
    await backend.admit(principal);
    const checkedUrl = webhookUrl === undefined ? undefined : await backend.checkWebhookUrl(webhookUrl);
    const operationId = catalog.get(operation)?.operation.definition.id ?? operation;
    const items = args.items as Record<string, unknown>[];
    const { batch, replayed } = await batches.create(
      {
        principal,
        operationId,
        items,
        invalidItems: invalidItems ?? 'reject',
        ...(checkedUrl === undefined ? {} : { webhookUrl: checkedUrl }),
        ...(idempotencyKey === undefined
          ? {}
          : { idempotency: { key: idempotencyKey, body: `mcp:${START_BATCH}\n${JSON.stringify(args)}` } }),
        requestId,
      },
      backend.authenticator,
    );
    if (!replayed) backend.onCreated?.(batch);
    const price = catalog.get(operation)?.operation.price;
    return answer(
      { data: batches.view(batch), meta: { requestId, replayed } },
      replayed ? 200 : 201,
      `Each item is billed when it runs${price === undefined ? '' : ` (${price} ${price === 1 ? 'credit' : 'credits'} each)`}; get_batch shows what has been charged.`,
    );
  }
  if (name === GET_BATCH) {
    const { batchId, start = 0, limit = RESULTS_PAGE.default } = parse(getArguments(), args);
    await backend.admit(principal);
    const batch = await batches.get(principal, batchId);
    const lines = (await batches.items(batch, start, limit)).map(resultLine);
    const next = start + lines.length;
    const hasMore = next < batch.itemCount;
    return answer({
      data: { batch: batches.view(batch), results: lines },
      meta: {
        requestId,
        paging: {
          start,
          count: batch.itemCount,
          returned: lines.length,
          hasMore,
          nextStart: hasMore ? next : null,
        },
      },
    });
  }
  // CANCEL_BATCH: the caller passes only the three names isBatchTool accepts.
  const { batchId } = parse(cancelArguments(), args);
  await backend.admit(principal);
  const batch = await batches.cancel(principal, batchId);
  return answer({ data: batches.view(batch), meta: { requestId } });
}

function parse<T>(schema: z.ZodType<T>, args: Record<string, unknown>): T {
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw argumentRefusal(parsed.error);
  return parsed.data;
}
