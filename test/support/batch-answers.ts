/**
 * The batch resource's answers as tests read them (GET /v1/batches/{id} and the lines of …/results),
 * typed once for every test that drives batches over HTTP or MCP.
 */

/** A batch's state, as `data` of GET /v1/batches/{id}. */
export interface BatchState {
  id: string;
  state: string;
  pauseReason: string | null;
  items: { total: number; succeeded: number; failed: number; invalid: number; pending: number };
  credits: { charged: number; refunded: number };
}

/** One line of a batch's JSONL results: the item and the body its single call answered. */
export interface ResultLine {
  index: number;
  input: Record<string, unknown>;
  outcome: string;
  status: number | null;
  body: { data?: unknown; meta?: Record<string, unknown>; error?: { code: string } } | null;
}
