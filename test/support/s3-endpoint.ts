/**
 * A loopback stand-in for the one S3 call the data functions make (GetObject, path-style
 * `GET /<bucket>/<key>`, as the SDK addresses an IP-address endpoint), for AWS_ENDPOINT_URL_S3: each
 * object streamed from a file with the headers the SDK reads (Content-Length, ETag, Last-Modified,
 * and the object's CRC32 in x-amz-checksum-crc32, which the SDK checks as it does S3's); an unknown
 * key answered 404 NoSuchKey in S3's XML error shape. Counts the GETs of each object. An object
 * marked `corrupt` has one byte flipped on the way out, under the checksum of the true content.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';

export interface S3ObjectFile {
  file: string;
  corrupt?: boolean;
}

export interface S3Endpoint {
  url: string;
  /** GETs answered (any status) for `s3://bucket/key`. */
  gets(uri: string): number;
  close(): Promise<void>;
}

interface Served extends S3ObjectFile {
  bytes: number;
  checksum: string;
  modified: Date;
}

/** Serves `objects`, by `s3://bucket/key`. */
export async function startS3(objects: ReadonlyMap<string, S3ObjectFile>): Promise<S3Endpoint> {
  const served = new Map<string, Served>();
  for (const [uri, object] of objects) served.set(uri, { ...object, ...(await describe(object.file)) });
  const gets = new Map<string, number>();
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://s3').pathname;
    const uri = `s3://${decodeURIComponent(path.slice(1))}`;
    if (request.method !== 'GET') {
      response.writeHead(405).end();
      return;
    }
    gets.set(uri, (gets.get(uri) ?? 0) + 1);
    const object = served.get(uri);
    if (!object) {
      const key = path.split('/').slice(2).join('/');
      response.writeHead(404, { 'content-type': 'application/xml', 'x-amz-request-id': 'LOOPBACK' });
      response.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>${key}</Key><RequestId>LOOPBACK</RequestId></Error>`,
      );
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(object.bytes),
      etag: `"${object.checksum}"`,
      'last-modified': object.modified.toUTCString(),
      'accept-ranges': 'bytes',
      'x-amz-checksum-crc32': object.checksum,
      'x-amz-checksum-type': 'FULL_OBJECT',
    });
    const source = createReadStream(object.file);
    const sent = object.corrupt ? pipeline(source, flipFirstByte(), response) : pipeline(source, response);
    // A client that stops reading (a refused download) ends the response; nothing to report.
    await sent.catch(() => response.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    gets: (uri) => gets.get(uri) ?? 0,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Size, S3's base64 CRC32 of the content (computed streaming), and modification time. */
async function describe(file: string): Promise<Pick<Served, 'bytes' | 'checksum' | 'modified'>> {
  let value = 0;
  for await (const chunk of createReadStream(file)) value = crc32(chunk as Buffer, value);
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(value >>> 0);
  const info = await stat(file);
  return { bytes: info.size, checksum: digest.toString('base64'), modified: info.mtime };
}

function flipFirstByte(): Transform {
  let flipped = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!flipped && chunk.length > 0) {
        chunk[0] = (chunk[0] as number) ^ 0xff;
        flipped = true;
      }
      done(null, chunk);
    },
  });
}
