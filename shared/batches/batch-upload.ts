/**
 * The items of a batch as the customer sends them (POST /v1/batches), in the body or at a URL the
 * service fetches (`itemsUrl`, through the egress guard: public HTTPS addresses only):
 * - `application/json`: an array of objects, each one call's parameters by their public names, as an
 *   MCP tool's arguments are;
 * - `application/jsonl` (or `application/x-ndjson`): one such object per line;
 * - `text/csv` (RFC 4180, UTF-8, an optional BOM): a header row of parameter names, then one row per
 *   item; an empty cell leaves its parameter out.
 * The limits (BATCH_MAX_ITEMS, BATCH_MAX_BYTES) are checked while reading, so an oversized list is
 * refused before it is held whole.
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorDetail } from '../../schemas/errors.js';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.js';
import {
  EgressDeniedError,
  type EgressOptions,
  guardedRequest,
  isUnresolvedName,
  UNRESOLVED_NAME,
} from '../net/guarded-request.js';
import { quoteInput } from '../pipeline/public-response.js';

export interface UploadLimits {
  maxItems: number;
  maxBytes: number;
}

type Items = Record<string, unknown>[];
type Format = 'json' | 'jsonl' | 'csv';

const FORMATS = new Map<string, Format>([
  ['application/json', 'json'],
  ['application/jsonl', 'jsonl'],
  ['application/x-ndjson', 'jsonl'],
  ['application/x-jsonlines', 'jsonl'],
  ['text/csv', 'csv'],
]);
const FORMAT_NAMES =
  'application/json (an array of objects), application/jsonl (one object per line) or text/csv';
/** How long the service waits for an items URL to answer whole. */
const ITEMS_URL_TIMEOUT_MS = 30_000;

/**
 * The body's items, and the body's text (an idempotent retry must send the same); refused whole
 * (400, 413, 415) when it is not such a list.
 */
export async function readUploadedItems(
  request: Request,
  limits: UploadLimits,
): Promise<{ items: Items; body: string }> {
  const format = formatOf(request.headers.get('content-type'));
  if (!format)
    throw new UnsupportedMediaTypeError(
      `Media type ${quoteInput(mediaTypeOf(request.headers.get('content-type')) || '(none)', 64)} is not supported; send the items as ${FORMAT_NAMES}, or name them with itemsUrl.`,
    );
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limits.maxBytes) throw tooLarge(limits.maxBytes);
  const text = request.body ? await readBounded(chunksOf(request.body), limits.maxBytes, 'items') : '';
  return { items: await parseItems(text, format, limits, 'items'), body: text };
}

/**
 * The items at `url`, fetched once through the egress guard: its media type (or, for a generic one,
 * its extension) says the format. A refused address, an error answer, a timeout or a body that is
 * not an item list is a 400 on `itemsUrl`.
 */
export async function fetchItems(url: string, limits: UploadLimits, egress: EgressOptions): Promise<Items> {
  const refuse = (why: string) =>
    InvalidRequestError.single('itemsUrl', 'invalid_value', `The items URL ${why}.`.slice(0, 512));
  if (!URL.canParse(url)) throw refuse('is not a valid URL');
  const parsed = new URL(url);
  const signal = AbortSignal.timeout(ITEMS_URL_TIMEOUT_MS);
  let response: IncomingMessage;
  try {
    response = await guardedRequest(
      parsed,
      { method: 'GET', headers: { accept: 'text/csv, application/jsonl, application/json' }, signal },
      egress,
    );
  } catch (error) {
    if (error instanceof EgressDeniedError) throw refuse(`may not be fetched: ${error.reason}`);
    if (signal.aborted) throw refuse(`did not answer within ${ITEMS_URL_TIMEOUT_MS / 1000} s`);
    if (isUnresolvedName(error)) throw refuse(UNRESOLVED_NAME);
    throw refuse(
      `could not be fetched: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) {
    response.destroy();
    throw refuse(`answered HTTP ${status}`);
  }
  const format = formatOf(response.headers['content-type'] ?? null) ?? formatByExtension(parsed.pathname);
  if (!format) {
    response.destroy();
    throw refuse(
      `answered ${quoteInput(mediaTypeOf(response.headers['content-type'] ?? null), 64)}; serve ${FORMAT_NAMES}`,
    );
  }
  try {
    const text = await readBounded(response, limits.maxBytes, 'itemsUrl');
    return await parseItems(text, format, limits, 'itemsUrl');
  } catch (error) {
    if (signal.aborted) throw refuse(`did not answer within ${ITEMS_URL_TIMEOUT_MS / 1000} s`);
    throw error;
  }
}

async function parseItems(text: string, format: Format, limits: UploadLimits, field: string): Promise<Items> {
  const items =
    format === 'json'
      ? parseArray(text, field)
      : format === 'jsonl'
        ? parseLines(text)
        : await parseTable(text, field);
  if (items.length === 0)
    throw InvalidRequestError.single(field, 'invalid_value', 'The batch has no items; send at least one.');
  if (items.length > limits.maxItems)
    throw new PayloadTooLargeError(
      `The batch has ${items.length} items; a batch holds at most ${limits.maxItems}. Split it into several batches.`,
    );
  return items;
}

function mediaTypeOf(contentType: string | null): string {
  return contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
}

function formatOf(contentType: string | null): Format | undefined {
  return FORMATS.get(mediaTypeOf(contentType));
}

function formatByExtension(pathname: string): Format | undefined {
  const extension = pathname.slice(pathname.lastIndexOf('.') + 1).toLowerCase();
  return extension === 'csv' || extension === 'jsonl' || extension === 'json' ? extension : undefined;
}

async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function readBounded(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
  field: string,
): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    parts.push(chunk);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(parts));
  } catch {
    throw InvalidRequestError.single(field, 'invalid_format', 'The items are not valid UTF-8.');
  }
}

function tooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The items are larger than ${maxBytes} bytes; split them into several batches.`,
  );
}

function parseArray(text: string, field: string): Items {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw InvalidRequestError.single(
      field,
      'invalid_format',
      `The items are not valid JSON: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  if (!Array.isArray(parsed))
    throw InvalidRequestError.single(
      field,
      'invalid_format',
      'The items must be a JSON array of objects, one per item.',
    );
  const details: ErrorDetail[] = [];
  parsed.forEach((item, index) => {
    if (!isPlainObject(item)) details.push(notAnObject(index));
  });
  if (details.length > 0) throw new InvalidRequestError(details, 'Some items are not JSON objects.');
  return parsed as Items;
}

function parseLines(text: string): Items {
  const items: Items = [];
  const details: ErrorDetail[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const index = items.length + details.length;
    try {
      const item: unknown = JSON.parse(line);
      if (isPlainObject(item)) items.push(item);
      else details.push(notAnObject(index));
    } catch {
      details.push({
        field: `items[${index}]`,
        code: 'invalid_format',
        message: 'This line is not valid JSON.',
      });
    }
  }
  if (details.length > 0) throw new InvalidRequestError(details, 'Some lines are not JSON objects.');
  return items;
}

/**
 * Rows under a header of parameter names; an empty cell leaves its parameter out. The CSV parser
 * loads with the first CSV body: most batches are JSON, and a function's cold start need not read it.
 */
async function parseTable(text: string, field: string): Promise<Items> {
  const { CsvError, parse: parseCsv } = await import('csv-parse/sync');
  let rows: Record<string, string>[];
  try {
    rows = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: false });
  } catch (error) {
    const reason = error instanceof CsvError ? error.message : String(error);
    throw InvalidRequestError.single(
      field,
      'invalid_format',
      `The items are not valid CSV: ${reason.slice(0, 300)}`,
    );
  }
  // Object.entries of a row, into a null-prototype object: a header named __proto__ is a parameter name.
  return rows.map((row) => {
    const item: Record<string, unknown> = Object.create(null);
    for (const [name, value] of Object.entries(row)) if (value !== '') item[name] = value;
    return item;
  });
}

function notAnObject(index: number): ErrorDetail {
  return {
    field: `items[${index}]`,
    code: 'invalid_format',
    message: "An item is an object of the operation's parameters.",
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
