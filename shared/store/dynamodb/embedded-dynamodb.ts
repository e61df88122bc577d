/**
 * The embedded DynamoDB: dynalite in this process, on a loopback port, persisted in LevelDB under
 * a folder (or in memory for tests). LevelDB locks its folder exclusively, so while `npm start`
 * runs, other processes (the operator CLI) reach it through the endpoint recorded in that folder
 * (endpointFile; `npm run start:synth` records its own table the same way).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { z } from 'zod';

export interface EmbeddedDynamo {
  endpoint: string;
  close(): Promise<void>;
}

export async function startEmbeddedDynamo(
  options: { path?: string; port?: number } = {},
): Promise<EmbeddedDynamo> {
  if (options.path) await mkdir(options.path, { recursive: true });
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error?: Error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of SDK clients would hold the graceful close open.
        server.closeAllConnections();
      }),
  };
}

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
