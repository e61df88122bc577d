/**
 * A harness served on a loopback port, for tests whose client is a real browser. The server listens
 * before the harness exists, so the harness's PUBLIC_BASE_URL can name the port (the OpenAPI
 * document's server, the console's origin); requests go to the harness's app once it is there.
 * `host` is how the browser names the server: `localhost` where WebAuthn needs a domain name.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Harness, type HarnessOptions, startHarness } from './harness.js';

export interface ServedHarness {
  harness: Harness;
  /** `http://<host>:<port>`, also the harness's PUBLIC_BASE_URL. */
  origin: string;
  close(): Promise<void>;
}

export async function serveHarness(
  options: HarnessOptions = {},
  host: '127.0.0.1' | 'localhost' = '127.0.0.1',
): Promise<ServedHarness> {
  let harness: Harness | undefined;
  const server = serve({
    fetch: (request, env) => (harness as Harness).app.fetch(request, env),
    hostname: '127.0.0.1',
    port: 0,
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
    await harness?.close();
  };
  try {
    harness = await startHarness({ ...options, env: { ...options.env, PUBLIC_BASE_URL: origin } });
  } catch (error) {
    await close();
    throw error;
  }
  return { harness, origin, close };
}
