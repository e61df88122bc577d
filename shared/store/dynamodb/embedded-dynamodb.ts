/**
 * The embedded DynamoDB: dynalite in this process, on a loopback port, persisted in LevelDB under
 * a folder (or in memory for tests). LevelDB locks its folder exclusively, so while `npm start`
 * runs, other processes (the operator CLI) reach it through the endpoint recorded in that folder
 * (endpoint-file.ts; `npm run start:synth` records its own table the same way).
 */
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
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
