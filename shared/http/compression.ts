/**
 * Compresses JSON and HTML responses with br or gzip, whichever the client prefers of those it
 * accepts. Hono's own middleware has no brotli, which most clients prefer.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';

const MIN_BYTES = 1024;
const compressors = {
  br: promisify(brotliCompress),
  gzip: promisify(gzip),
} as const;
export type Encoding = keyof typeof compressors;

export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const offered = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    offered.set(name, quality === undefined ? 1 : Number(quality.slice(2)) || 0);
  }
  const wildcard = offered.get('*') ?? 0;
  const ranked = (['br', 'gzip'] as const)
    .map((encoding) => ({ encoding, quality: offered.get(encoding) ?? wildcard }))
    .filter(({ quality }) => quality > 0)
    .sort((a, b) => b.quality - a.quality);
  return ranked[0]?.encoding;
}

/** The body in `encoding`, or undefined when it is too small to be worth it. */
export async function compressBody(encoding: Encoding, body: Buffer) {
  if (body.length < MIN_BYTES) return undefined;
  return encoding === 'br'
    ? compressors.br(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
    : compressors.gzip(body);
}

export function compression(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const encoding = chooseEncoding(c.req.header('accept-encoding'));
    // Decided before the response's headers are read: reading them turns the Node adaptor's plain
    // header object into a `Headers` instance, a cost a client that accepts no encoding need not pay.
    if (!encoding) return;
    const response = c.res;
    const type = response.headers.get('content-type') ?? '';
    if (
      !response.body ||
      response.headers.has('content-encoding') ||
      !/json|html|javascript|css|text/.test(type)
    ) {
      return;
    }
    const compressed = await compressBody(encoding, Buffer.from(await response.clone().arrayBuffer()));
    if (!compressed) return;
    const headers = new Headers(response.headers);
    headers.set('Content-Encoding', encoding);
    // The length was the uncompressed body's (a handler that sets one, like the OAuth server's).
    headers.delete('Content-Length');
    headers.append('Vary', 'Accept-Encoding');
    // Cleared first: Hono copies the replaced answer's headers over a new one (its length, its Vary).
    c.res = undefined;
    c.res = new Response(compressed, { status: response.status, headers });
  };
}
