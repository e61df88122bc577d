/**
 * A batch's results for download (GET /v1/batches/{id}/results), streamed in index order a page of
 * items at a time, so a 10,000-item batch is never held whole:
 * - JSON Lines: one object per item, `{index, input, outcome, status, body}`, where `body` is exactly
 *   what the single call answered (the `{data, meta}` envelope or the error body); an item not run
 *   yet has outcome `pending` and null status and body.
 * - CSV (RFC 4180): one row per item; the operation's parameters as columns, the error code, the
 *   credit cost and the body as JSON text. A cell a spreadsheet would run as a formula is prefixed
 *   with `'` (the OWASP advice on CSV injection): results hold text third parties wrote.
 */
import type { BatchItem, BatchRecord } from './batch-store.js';

export type ResultsFormat = 'jsonl' | 'csv';

/** Items read from the store per page. */
const PAGE = 500;

export interface ResultLine {
  index: number;
  input: Record<string, unknown>;
  outcome: BatchItem['outcome'] | 'pending';
  status: number | null;
  body: unknown;
}

export function resultLine(item: BatchItem): ResultLine {
  return {
    index: item.index,
    input: item.input,
    outcome: item.state === 'done' ? item.outcome : 'pending',
    status: item.result?.status ?? null,
    body: item.result?.body ?? null,
  };
}

export function streamResults(
  batch: BatchRecord,
  parameters: readonly string[],
  format: ResultsFormat,
  readItems: (fromIndex: number, limit: number) => Promise<BatchItem[]>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  let headerSent = format !== 'csv';
  return new ReadableStream({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvRow(csvHeader(parameters))));
        return;
      }
      if (next >= batch.itemCount) {
        controller.close();
        return;
      }
      const items = await readItems(next, PAGE);
      if (items.length === 0) {
        controller.close();
        return;
      }
      next = (items.at(-1) as BatchItem).index + 1;
      const text = items
        .map((item) =>
          format === 'csv' ? csvRow(csvCells(item, parameters)) : `${JSON.stringify(resultLine(item))}\n`,
        )
        .join('');
      controller.enqueue(encoder.encode(text));
    },
  });
}

function csvHeader(parameters: readonly string[]): string[] {
  return ['index', 'outcome', 'status', ...parameters, 'error_code', 'credit_cost', 'body'];
}

function csvCells(item: BatchItem, parameters: readonly string[]): string[] {
  const line = resultLine(item);
  const error = (line.body as { error?: { code?: string } } | null)?.error?.code ?? '';
  return [
    String(line.index),
    line.outcome ?? '',
    line.status === null ? '' : String(line.status),
    ...parameters.map((name) => {
      const value = Object.hasOwn(item.input, name) ? item.input[name] : undefined;
      return value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    }),
    error,
    item.result ? String(item.result.creditCost) : '',
    line.body === null ? '' : JSON.stringify(line.body),
  ];
}

function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
