/**
 * The sockets under an SMTP session: TCP to a mail exchanger, optionally through a SOCKS5 proxy,
 * and the STARTTLS upgrade of that socket.
 *
 * It stands apart from the session because this is where the egress rules live, and they are
 * about sockets, not the dialogue: the caller has already resolved the MX host and checked every
 * address (the MX guard), so nothing here resolves a name for the target. `address` is an IP
 * literal dialled as given; through SOCKS5 it is sent to the proxy as an IP too, so the proxy
 * resolves nothing. Only an operator-configured SOCKS proxy host may be a name.
 *
 * Failures while connecting are the session's typed errors, in the `connect` step; failures after
 * that surface on the socket, where the session listens for them.
 */
import net from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import { SmtpAbortedError, SmtpConnectionError, type SmtpError, SmtpTimeoutError } from './smtp-errors.js';

/** Where to connect, and the signal that may end it. */
export interface SmtpConnectionTarget {
  /** An IP literal, already checked by the caller's MX guard. Names are refused. */
  readonly address: string;
  readonly port: number;
  /** Aborts whatever is in flight (SmtpAbortedError) and closes the session. */
  readonly signal: AbortSignal;
  /** SOCKS5 egress (no authentication). The target IP is sent to it as an IP. */
  readonly socksProxy?: { readonly host: string; readonly port: number } | undefined;
}

/** TCP (optionally through SOCKS5) to the target, bounded by `timeoutMs` and the signal. */
export function connectToMailServer(target: SmtpConnectionTarget, timeoutMs: number): Promise<net.Socket> {
  const { address, port, socksProxy, signal } = target;
  const where = socksProxy
    ? `${address}:${port} through SOCKS5 ${socksProxy.host}:${socksProxy.port}`
    : `${address}:${port}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const startedAt = performance.now();
    // Our own socket even through SOCKS (existing_socket), so a timeout or abort can destroy it.
    const socket = net.connect({
      host: socksProxy?.host ?? address,
      port: socksProxy?.port ?? port,
      noDelay: true,
    });
    const finish = (error?: SmtpError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (error) {
        socket.destroy();
        reject(error);
      } else {
        resolve(socket);
      }
    };
    const onAbort = (): void => finish(new SmtpAbortedError('connect', { cause: signal.reason }));
    const onError = (error: Error): void =>
      finish(
        new SmtpConnectionError('connect', `Could not connect to ${where}: ${error.message}`, {
          cause: error,
        }),
      );
    const onClose = (): void =>
      finish(new SmtpConnectionError('connect', `The connection to ${where} closed.`));
    const timer = setTimeout(() => finish(new SmtpTimeoutError('connect', timeoutMs)), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.once('connect', () => {
      if (!socksProxy) {
        finish();
        return;
      }
      SocksClient.createConnection({
        existing_socket: socket,
        proxy: { host: socksProxy.host, port: socksProxy.port, type: 5 },
        command: 'connect',
        destination: { host: address, port },
        // Our own timer is the real bound; this only keeps the library's from outliving it.
        timeout: Math.max(1, Math.ceil(timeoutMs - (performance.now() - startedAt))),
      }).then(
        () => finish(),
        (error: unknown) =>
          finish(
            new SmtpConnectionError(
              'connect',
              `The SOCKS5 proxy did not connect ${where}: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            ),
          ),
      );
    });
  });
}

/**
 * Starts the TLS handshake over the connected plain socket (STARTTLS, RFC 3207). The caller waits
 * for `secureConnect` and reads the certificate verdict from the returned socket.
 */
export function upgradeToTls(
  plain: net.Socket,
  serverName: string,
  rejectUnauthorized: boolean,
): tls.TLSSocket {
  return tls.connect({
    socket: plain,
    // SNI takes host names only (RFC 6066 §3); an IP literal serverName sends none.
    servername: net.isIP(serverName) === 0 ? serverName : undefined,
    rejectUnauthorized,
  });
}
