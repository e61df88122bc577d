/**
 * The record a running server keeps in its folder so the operator CLI can reach its table: which
 * server, its DynamoDB endpoint, table, region and (start:synth) the operator's access key. Apart from
 * the embedded DynamoDB itself so that a CLI command on SQLite can look for a record without loading
 * dynalite or the AWS SDK.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';

const ENDPOINT_FILE = 'dynamodb-endpoint';

/**
 * What a running server records in its folder for the operator CLI: which server it is, where its
 * table is, and the access key the endpoint knows as the operator (start:synth's DynamoDB enforces
 * IAM and refuses other keys; the embedded DynamoDB ignores credentials, so it records none).
 */
const servedTableSchema = z.object({
  server: z.string().min(1),
  endpoint: z.url(),
  table: z.string().min(1),
  region: z.string().min(1),
  credentials: z.object({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1) }).optional(),
});
export type ServedTable = z.infer<typeof servedTableSchema>;

export const endpointFile = {
  path: (folder: string) => join(folder, ENDPOINT_FILE),
  async write(folder: string, served: ServedTable): Promise<void> {
    // Only the operator may read the access key it holds.
    await writeFile(join(folder, ENDPOINT_FILE), `${JSON.stringify(served)}\n`, { mode: 0o600 });
  },
  /** The record, or undefined when there is none (or one this version cannot read: as if none). */
  async read(folder: string): Promise<ServedTable | undefined> {
    let text: string;
    try {
      text = await readFile(join(folder, ENDPOINT_FILE), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = servedTableSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  },
  async remove(folder: string): Promise<void> {
    await rm(join(folder, ENDPOINT_FILE), { force: true });
  },
};
