/**
 * What start:synth's local AWS endpoints share: a server on a loopback port of its own, and the
 * access key id a request was signed with (SigV4: `Credential=<access key id>/<scope>`), which each
 * function's environment makes its own (function-host.ts `callerOf`).
 */
import { once } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackEndpoint {
  url: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(server: Server): Promise<LoopbackEndpoint> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The access key id that signed `req`, if it was signed. */
export function signingKeyId(req: IncomingMessage): string | undefined {
  return /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
}
