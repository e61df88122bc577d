/**
 * An imported dataset database kept in S3 (DATASET=s3://bucket/key, infra's `datasetS3Uri`): at init
 * a data function copies the object into its ephemeral storage (the OS temp folder: /tmp on Lambda,
 * TMPDIR when set) and opens that file as it opens a local DATASET. The object is streamed from
 * GetObject to the file, so memory stays flat whatever its size; it lands under a temporary name and
 * is renamed once complete, so a file under the final name is always a whole copy and a retried init
 * in the same environment reuses it instead of downloading again. The SDK checks the object's S3
 * checksum when S3 sends one (it asks for it); the byte count is checked against Content-Length.
 * The S3 client is imported only here, when DATASET names an object, so other functions never load it.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseS3Uri, S3_URI_FORMAT, S3_URI_SCHEME } from '../../schemas/function-conventions.js';
import { ConfigError } from '../../shared/config.js';

const MIB = 2 ** 20;

export const isS3Uri = (dataset: string) => dataset.startsWith(S3_URI_SCHEME);

/** Where the copy of `uri` lives: one file per object named, in the ephemeral storage. */
export function ephemeralCopyPath(uri: string, directory = tmpdir()): string {
  return join(directory, `dataset-${createHash('sha256').update(uri).digest('hex').slice(0, 16)}.sqlite`);
}

/**
 * The local path of the dataset database `uri` names, copied from S3 unless this environment already
 * holds a whole copy. Any failure is a ConfigError naming DATASET and the URI (never a credential: the
 * SDK's messages carry none), which fails the init phase.
 */
export async function copyDatasetFromS3(uri: string, region: string): Promise<string> {
  const object = parseS3Uri(uri);
  if (!object) throw new ConfigError(`Invalid configuration: DATASET: ${uri} is not ${S3_URI_FORMAT}`);
  const target = ephemeralCopyPath(uri);
  if (await exists(target)) return target;
  const partial = `${target}.${process.pid}.part`;
  const { GetObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
  // The endpoint is S3's unless AWS_ENDPOINT_URL_S3 names another (the SDK reads it); an IP-address
  // endpoint is addressed path-style by the SDK's own rules. A bucket in another region answers
  // with a redirect the client follows.
  const client = new S3Client({ region, followRegionRedirects: true });
  try {
    const response = await client.send(new GetObjectCommand({ Bucket: object.bucket, Key: object.key }));
    const body = response.Body as Readable;
    const expected = response.ContentLength;
    if (expected !== undefined) await ensureRoom(expected, body);
    await pipeline(body, createWriteStream(partial));
    const written = (await stat(partial)).size;
    if (expected !== undefined && written !== expected)
      throw new Error(`received ${written} of ${expected} bytes`);
    await rename(partial, target);
    return target;
  } catch (error) {
    await rm(partial, { force: true });
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new ConfigError(
      `Invalid configuration: DATASET: cannot copy ${uri} to ephemeral storage: ${reason}`,
      {
        cause: error,
      },
    );
  } finally {
    client.destroy();
  }
}

/** Refuses before writing when the object cannot fit, rather than failing on a full disk part-way. */
async function ensureRoom(bytes: number, body: Readable): Promise<void> {
  const disk = await statfs(tmpdir());
  const free = disk.bavail * disk.bsize;
  if (bytes <= free) return;
  body.destroy();
  throw new Error(
    `the object is ${Math.ceil(bytes / MIB)} MiB and ${tmpdir()} has ${Math.floor(free / MIB)} MiB free (raise the function's ephemeral storage)`,
  );
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
