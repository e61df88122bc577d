/**
 * A TCP port on loopback that nothing listens on right now, for servers whose address must be known
 * before they start (a Postfix configuration, a public base URL).
 */
import net from 'node:net';

export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
