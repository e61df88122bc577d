/**
 * The embedded DynamoDB: dynalite in this process, on a loopback port, persisted in LevelDB under
 * a folder (or in memory for tests). LevelDB locks its folder exclusively, so while `npm start`
 * runs, other processes (the operator CLI) reach it through the endpoint recorded in that folder.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dynalite from 'dynalite';

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

export const endpointFile = {
  path: (dataDir: string) => join(dataDir, ENDPOINT_FILE),
  async write(dataDir: string, endpoint: string): Promise<void> {
    await writeFile(join(dataDir, ENDPOINT_FILE), `${endpoint}\n`);
  },
  async read(dataDir: string): Promise<string | undefined> {
    try {
      return (await readFile(join(dataDir, ENDPOINT_FILE), 'utf8')).trim() || undefined;
    } catch {
      return undefined;
    }
  },
  async remove(dataDir: string): Promise<void> {
    await rm(join(dataDir, ENDPOINT_FILE), { force: true });
  },
};
