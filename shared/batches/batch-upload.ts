/**
 * The items of a batch as the customer sends them (POST /v1/batches): a JSON array of objects
 * (`application/json`) or one object per line (`application/jsonl`, `application/x-ndjson`). Each
 * object holds one call's parameters by their public names, as an MCP tool's arguments do. The
 * limits (BATCH_MAX_ITEMS, BATCH_MAX_BYTES) are checked while reading, so an oversized body is
 * refused before it is held whole.
 */
import type { ErrorDetail } from '../../schemas/errors.js';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.js';
import { quoteInput } from '../pipeline/public-response.js';

export interface UploadLimits {
  maxItems: number;
  maxBytes: number;
}

const JSON_LINES = new Set(['application/jsonl', 'application/x-ndjson', 'application/x-jsonlines']);

/**
 * The body's items, each a plain object, and the body's text (an idempotent retry must send the same);
 * refused whole (400, 413, 415) when it is not such a list.
 */
export async function readUploadedItems(
  request: Request,
  limits: UploadLimits,
): Promise<{ items: Record<string, unknown>[]; body: string }> {
  const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  const lines = JSON_LINES.has(mediaType);
  if (!lines && mediaType !== 'application/json')
    throw new UnsupportedMediaTypeError(
      `Media type ${mediaType ? quoteInput(mediaType, 64) : '(none)'} is not supported; send the items as application/json (an array of objects) or application/jsonl (one object per line).`,
    );
  const text = await readBounded(request, limits.maxBytes);
  const items = lines ? parseLines(text) : parseArray(text);
  if (items.length === 0)
    throw InvalidRequestError.single('items', 'invalid_value', 'The batch has no items; send at least one.');
  if (items.length > limits.maxItems)
    throw new PayloadTooLargeError(
      `The batch has ${items.length} items; a batch holds at most ${limits.maxItems}. Split it into several batches.`,
    );
  return { items, body: text };
}

async function readBounded(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(read.value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw InvalidRequestError.single('items', 'invalid_format', 'The body is not valid UTF-8.');
  }
}

function tooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The batch body is larger than ${maxBytes} bytes; split it into several batches.`,
  );
}

function parseArray(text: string): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw InvalidRequestError.single(
      'items',
      'invalid_format',
      `The body is not valid JSON: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  if (!Array.isArray(parsed))
    throw InvalidRequestError.single(
      'items',
      'invalid_format',
      'The body must be a JSON array of objects, one per item.',
    );
  const details: ErrorDetail[] = [];
  parsed.forEach((item, index) => {
    if (!isPlainObject(item)) details.push(notAnObject(index));
  });
  if (details.length > 0) throw new InvalidRequestError(details, 'Some items are not JSON objects.');
  return parsed as Record<string, unknown>[];
}

function parseLines(text: string): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
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
