/**
 * SmtpSession against real servers on 127.0.0.1: `smtp-server` for well-behaved dialogues
 * (plain, STARTTLS with its built-in self-signed certificate, HELO only), and hand-scripted `net`
 * servers for what no real server library will do on purpose (stall, drop, oversize, misbehave),
 * plus a minimal SOCKS5 proxy. Every server listens on loopback only and is closed after each test.
 */
import net from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SmtpAbortedError,
  SmtpConnectionError,
  SmtpProtocolError,
  SmtpTimeoutError,
} from '../../shared/emails/smtp-errors.js';
import { SMTP_MAX_LINE_BYTES, SMTP_MAX_REPLY_BYTES } from '../../shared/emails/smtp-reply.js';
import { SmtpSession, type SmtpSessionOptions } from '../../shared/emails/smtp-session.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  // Sessions first (registered last), then servers.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function portOf(server: net.Server): number {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('server is not listening on TCP');
  return address.port;
}

async function startSmtpServer(options: SMTPServerOptions): Promise<number> {
  const server = new SMTPServer({
    logger: false,
    // Without it, MAIL would demand authentication.
    authOptional: true,
    closeTimeout: 100,
    // smtp-server hides the extension by default; the large providers advertise it.
    hideENHANCEDSTATUSCODES: false,
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return portOf(server.server);
}

interface Scripted {
  readonly port: number;
  /** Every command line the server received, in order. */
  readonly received: string[];
  /** Server-side sockets that have closed. */
  readonly closedSockets: () => number;
  readonly connections: () => number;
}

/**
 * A hand-written server: `greeting` is written on accept (null: never), and `onLine` answers each
 * command line. Tracks its sockets so that the cleanup never waits on a client.
 */
async function startScripted(
  greeting: string | null,
  onLine: (line: string, socket: net.Socket) => void = () => {},
): Promise<Scripted> {
  const received: string[] = [];
  const sockets = new Set<net.Socket>();
  let closed = 0;
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      closed += 1;
      sockets.delete(socket);
    });
    if (greeting !== null) socket.write(greeting);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        received.push(line);
        onLine(line, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: portOf(server), received, closedSockets: () => closed, connections: () => connections };
}

/** The usual answers of a plain ESMTP server, for scripted servers that only differ later on. */
function plainEsmtp(line: string, socket: net.Socket): boolean {
  const verb = line.slice(0, 4).toUpperCase();
  if (verb === 'EHLO') socket.write('250-scripted.test\r\n250 ENHANCEDSTATUSCODES\r\n');
  else if (verb === 'MAIL') socket.write('250 2.1.0 Ok\r\n');
  else if (verb === 'RSET') socket.write('250 2.0.0 Ok\r\n');
  else if (verb === 'QUIT') socket.end('221 2.0.0 Bye\r\n');
  else return false;
  return true;
}

async function open(port: number, overrides: Partial<SmtpSessionOptions> = {}): Promise<SmtpSession> {
  const session = await SmtpSession.open({
    address: '127.0.0.1',
    port,
    serverName: 'mx.example.test',
    heloName: 'verifier.example.test',
    timeouts: { connectMs: 2_000, greetingMs: 2_000, commandMs: 2_000 },
    signal: new AbortController().signal,
    ...overrides,
  });
  cleanups.push(async () => session.close());
  return session;
}

/** Resolves with what `promise` rejected with; fails the test when it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function recipientServer(seen: string[], options: SMTPServerOptions = {}): Promise<number> {
  return startSmtpServer({
    disabledCommands: ['AUTH', 'STARTTLS'],
    onRcptTo(address, _session, callback) {
      seen.push(address.address);
      if (address.address.startsWith('known@')) return callback();
      callback(
        Object.assign(new Error('The email account that you tried to reach does not exist'), {
          responseCode: 550,
        }),
      );
    },
    onData(_stream, _session, callback) {
      seen.push('DATA');
      callback(new Error('no DATA expected'));
    },
    ...options,
  });
}

describe('SmtpSession dialogue', () => {
  it('holds a full dialogue and counts every round trip', async () => {
    const seen: string[] = [];
    const session = await open(await recipientServer(seen));
    expect(session.banner.code).toBe(220);
    expect(session.greeting).toBe('EHLO');
    expect(session.extensions.has('ENHANCEDSTATUSCODES')).toBe(true);
    expect(session.secure).toBe(false);
    expect(session.roundTrips).toBe(2);

    expect(await session.mailFrom('probe@verifier.example.test')).toMatchObject({
      code: 250,
      enhancedCode: '2.1.0',
    });
    expect(await session.rcptTo('known@example.test')).toMatchObject({ code: 250, enhancedCode: '2.1.5' });
    const rejected = await session.rcptTo('nobody@example.test');
    expect(rejected).toEqual({
      code: 550,
      enhancedCode: '5.1.1',
      lines: ['5.1.1 The email account that you tried to reach does not exist'],
      text: 'The email account that you tried to reach does not exist',
    });
    expect(session.recipientsSinceReset).toBe(2);
    expect((await session.rset()).code).toBe(250);
    expect(session.recipientsSinceReset).toBe(0);
    expect((await session.mailFrom('probe@verifier.example.test')).code).toBe(250);
    expect((await session.rcptTo('known@example.test')).code).toBe(250);
    expect(session.recipientsSinceReset).toBe(1);
    expect((await session.quit())?.code).toBe(221);

    // banner, EHLO, MAIL, RCPT, RCPT, RSET, MAIL, RCPT, QUIT
    expect(session.roundTrips).toBe(9);
    expect(session.closed).toBe(true);
    expect(seen).toEqual(['known@example.test', 'nobody@example.test', 'known@example.test']);
  });

  it('upgrades with STARTTLS when offered, despite a self-signed certificate, and greets again', async () => {
    const secureOnServer: boolean[] = [];
    const port = await startSmtpServer({
      disabledCommands: ['AUTH'],
      onRcptTo(_address, session, callback) {
        secureOnServer.push(session.secure);
        callback();
      },
    });
    const session = await open(port);
    expect(session.secure).toBe(true);
    expect(session.tlsAuthorized).toBe(false);
    // smtp-server's built-in test certificate fails verification (self-signed, and by now expired).
    expect(session.tlsAuthorizationError).toEqual(expect.any(String));
    // The EHLO after TLS no longer offers STARTTLS.
    expect(session.extensions.has('STARTTLS')).toBe(false);
    // banner, EHLO, STARTTLS, EHLO
    expect(session.roundTrips).toBe(4);
    expect((await session.mailFrom('probe@verifier.example.test')).code).toBe(250);
    expect((await session.rcptTo('known@example.test')).code).toBe(250);
    expect(secureOnServer).toEqual([true]);
  });

  it('fails the TLS step when certificates must verify and the server is self-signed', async () => {
    const port = await startSmtpServer({ disabledCommands: ['AUTH'] });
    const error = await rejectionOf(open(port, { tlsRejectUnauthorized: true }));
    expect(error).toBeInstanceOf(SmtpConnectionError);
    expect(error).toMatchObject({ step: 'tls' });
  });

  it('falls back to HELO when EHLO is refused with 5xx', async () => {
    const seen: string[] = [];
    const session = await open(
      await recipientServer(seen, {
        disabledCommands: ['AUTH', 'STARTTLS', 'EHLO'],
        hideENHANCEDSTATUSCODES: true,
      }),
    );
    expect(session.greeting).toBe('HELO');
    expect(session.extensions.size).toBe(0);
    // banner, EHLO (500), HELO
    expect(session.roundTrips).toBe(3);
    expect((await session.mailFrom('probe@verifier.example.test')).code).toBe(250);
    expect((await session.rcptTo('known@example.test')).code).toBe(250);
    // Without the extension no enhanced code is invented from the basic one.
    expect(await session.rcptTo('nobody@example.test')).toMatchObject({ code: 550, enhancedCode: null });
    expect(seen).toEqual(['known@example.test', 'nobody@example.test']);
  });

  it('parses a multi-line reply into its lines, one enhanced code and a joined text', async () => {
    const gmail = [
      '550-5.1.1 The email account that you tried to reach does not exist. Please try',
      "550-5.1.1 double-checking the recipient's email address for typos or",
      '550-5.1.1 unnecessary spaces. For more information, go to',
      '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser - gsmtp',
    ];
    const server = await startScripted(
      '220-scripted.test ESMTP\r\n220 second banner line\r\n',
      (line, socket) => {
        if (!plainEsmtp(line, socket)) socket.write(`${gmail.join('\r\n')}\r\n`);
      },
    );
    const session = await open(server.port);
    expect(session.banner.lines).toEqual(['scripted.test ESMTP', 'second banner line']);
    await session.mailFrom('probe@verifier.example.test');
    const reply = await session.rcptTo('nobody@gmail.test');
    expect(reply.code).toBe(550);
    expect(reply.enhancedCode).toBe('5.1.1');
    expect(reply.lines).toHaveLength(4);
    expect(reply.lines[3]).toBe('5.1.1  https://support.google.com/mail/?p=NoSuchUser - gsmtp');
    expect(reply.text).toBe(
      "The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. For more information, go to https://support.google.com/mail/?p=NoSuchUser - gsmtp",
    );
  });

  it('reaches the server through a SOCKS5 proxy, handing it the IP address', async () => {
    const seen: string[] = [];
    const smtpPort = await recipientServer(seen);
    const proxy = await startSocksProxy();
    const session = await open(smtpPort, { socksProxy: { host: '127.0.0.1', port: proxy.port } });
    await session.mailFrom('probe@verifier.example.test');
    expect((await session.rcptTo('known@example.test')).code).toBe(250);
    expect(proxy.requests).toEqual([{ addressType: 1, host: '127.0.0.1', port: smtpPort }]);
    expect(seen).toEqual(['known@example.test']);
  });
});

/** A scripted ESMTP server that advertises PIPELINING; `onRcpt` answers each RCPT line. */
function pipeliningServer(onRcpt: (line: string, socket: net.Socket) => void): Promise<Scripted> {
  return startScripted('220 scripted.test\r\n', (line, socket) => {
    if (line.startsWith('EHLO'))
      socket.write('250-scripted.test\r\n250-PIPELINING\r\n250 ENHANCEDSTATUSCODES\r\n');
    else if (line.startsWith('RCPT')) onRcpt(line, socket);
    else plainEsmtp(line, socket);
  });
}

describe('SmtpSession pipelined groups (RFC 2920)', () => {
  it('sends MAIL FROM and RCPT TO commands in one write and matches the replies in order, one round trip', async () => {
    const seen: string[] = [];
    const session = await open(await recipientServer(seen));
    expect(session.pipelining).toBe(true);
    const replies = await session.sendGroup([
      { verb: 'mail', address: 'probe@verifier.example.test' },
      { verb: 'rcpt', address: 'nobody@example.test' },
      { verb: 'rcpt', address: 'known@example.test' },
      { verb: 'rcpt', address: 'other@example.test' },
    ]);
    expect(replies.map((reply) => reply.code)).toEqual([250, 550, 250, 550]);
    expect(seen).toEqual(['nobody@example.test', 'known@example.test', 'other@example.test']);
    // banner, EHLO, the group
    expect(session.roundTrips).toBe(3);
    expect(session.recipientsSinceReset).toBe(3);
    // Lone commands still work after a group.
    expect((await session.rcptTo('known@example.test')).code).toBe(250);
  });

  it('refuses a group, before sending anything, to a server that did not advertise PIPELINING', async () => {
    const session = await open(await recipientServer([], { hidePIPELINING: true }));
    expect(session.pipelining).toBe(false);
    expect(() => session.sendGroup([{ verb: 'rcpt', address: 'known@example.test' }])).toThrow(TypeError);
    expect(session.roundTrips).toBe(2);
  });

  it('fails the group as a connection error in RCPT when the server drops the connection mid-group', async () => {
    const server = await pipeliningServer((_line, socket) => socket.destroy());
    const session = await open(server.port);
    const error = await rejectionOf(
      session.sendGroup([
        { verb: 'mail', address: 'probe@verifier.example.test' },
        { verb: 'rcpt', address: 'known@example.test' },
      ]),
    );
    expect(error).toBeInstanceOf(SmtpConnectionError);
    expect(error).toMatchObject({ step: 'rcpt' });
    expect(session.closed).toBe(true);
  });

  it('times out a group whose last reply never comes, each reply having its own timeout', async () => {
    let answered = 0;
    const server = await pipeliningServer((_line, socket) => {
      answered += 1;
      // The first recipient is answered late but in time, the second never.
      if (answered === 1) setTimeout(() => socket.write('550 5.1.1 unknown\r\n'), 150);
    });
    const session = await open(server.port, {
      timeouts: { connectMs: 2_000, greetingMs: 2_000, commandMs: 200 },
    });
    const startedAt = performance.now();
    const error = await rejectionOf(
      session.sendGroup([
        { verb: 'mail', address: 'probe@verifier.example.test' },
        { verb: 'rcpt', address: 'a@example.test' },
        { verb: 'rcpt', address: 'b@example.test' },
      ]),
    );
    expect(error).toBeInstanceOf(SmtpTimeoutError);
    expect(error).toMatchObject({ step: 'rcpt', timeoutMs: 200 });
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(340);
  });

  it('ends the session on a reply beyond those the group awaits', async () => {
    const server = await pipeliningServer((_line, socket) =>
      socket.write('250 2.1.5 Ok\r\n250 2.1.5 Ok\r\n'),
    );
    const session = await open(server.port);
    const error = await rejectionOf(
      session
        .sendGroup([{ verb: 'rcpt', address: 'a@example.test' }])
        .then(() => session.rcptTo('b@example.test')),
    );
    expect(error).toBeInstanceOf(SmtpProtocolError);
    expect(error).toMatchObject({ problem: 'unsolicited_reply' });
  });

  it('refuses a smuggling address anywhere in a group, before anything is sent', async () => {
    const server = await pipeliningServer((_line, socket) => socket.write('250 2.1.5 Ok\r\n'));
    const session = await open(server.port);
    expect(() =>
      session.sendGroup([
        { verb: 'rcpt', address: 'a@example.test' },
        { verb: 'rcpt', address: 'b@example.test>\r\nDATA' },
      ]),
    ).toThrow(TypeError);
    expect(server.received.map((line) => line.split(' ')[0])).toEqual(['EHLO']);
  });
});

describe('SmtpSession failures', () => {
  it('times out the greeting of a server that never sends a banner, and closes the socket', async () => {
    const server = await startScripted(null);
    const startedAt = performance.now();
    const error = await rejectionOf(
      open(server.port, { timeouts: { connectMs: 2_000, greetingMs: 200, commandMs: 2_000 } }),
    );
    const elapsed = performance.now() - startedAt;
    expect(error).toBeInstanceOf(SmtpTimeoutError);
    expect(error).toMatchObject({ step: 'greeting', timeoutMs: 200 });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_500);
    await until(() => server.closedSockets() === 1);
  });

  it('times out a command that is never answered', async () => {
    const server = await startScripted('220 scripted.test\r\n', (line, socket) => {
      if (!line.startsWith('RCPT')) plainEsmtp(line, socket);
    });
    const session = await open(server.port, {
      timeouts: { connectMs: 2_000, greetingMs: 2_000, commandMs: 200 },
    });
    await session.mailFrom('probe@verifier.example.test');
    const error = await rejectionOf(session.rcptTo('slow@example.test'));
    expect(error).toBeInstanceOf(SmtpTimeoutError);
    expect(error).toMatchObject({ step: 'rcpt', timeoutMs: 200 });
    expect(session.closed).toBe(true);
  });

  it('reports a connection dropped by the server after RCPT as a connection error in that step', async () => {
    const server = await startScripted('220 scripted.test\r\n', (line, socket) => {
      if (!plainEsmtp(line, socket)) socket.destroy();
    });
    const session = await open(server.port);
    await session.mailFrom('probe@verifier.example.test');
    const error = await rejectionOf(session.rcptTo('known@example.test'));
    expect(error).toBeInstanceOf(SmtpConnectionError);
    expect(error).toMatchObject({ step: 'rcpt' });
    expect(session.closed).toBe(true);
    // Later commands fail at once with their own step, the first failure as the cause.
    const later = await rejectionOf(session.rset());
    expect(later).toBeInstanceOf(SmtpConnectionError);
    expect(later).toMatchObject({ step: 'rset', cause: error });
    expect(await session.quit()).toBeNull();
  });

  it('reports a refused connection as a connection error with the cause', async () => {
    const port = await freePort();
    const error = await rejectionOf(open(port));
    expect(error).toBeInstanceOf(SmtpConnectionError);
    expect(error).toMatchObject({ step: 'connect', cause: { code: 'ECONNREFUSED' } });
  });

  it('aborts mid-dialogue when the signal fires, destroying the socket', async () => {
    const server = await startScripted('220 scripted.test\r\n', (line, socket) => {
      if (!line.startsWith('RCPT')) plainEsmtp(line, socket);
    });
    const controller = new AbortController();
    const session = await open(server.port, { signal: controller.signal });
    await session.mailFrom('probe@verifier.example.test');
    const reason = new Error('budget spent');
    setTimeout(() => controller.abort(reason), 50);
    const startedAt = performance.now();
    const error = await rejectionOf(session.rcptTo('known@example.test'));
    expect(error).toBeInstanceOf(SmtpAbortedError);
    expect(error).toMatchObject({ step: 'rcpt', cause: reason });
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    await until(() => server.closedSockets() === 1);
  });

  it('does not connect at all when the signal has already fired', async () => {
    const server = await startScripted('220 scripted.test\r\n', plainEsmtp);
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(open(server.port, { signal: controller.signal }));
    expect(error).toBeInstanceOf(SmtpAbortedError);
    expect(error).toMatchObject({ step: 'connect' });
    expect(server.connections()).toBe(0);
  });

  it('rejects an oversized multi-line reply instead of buffering it', async () => {
    const line = `250-${'x'.repeat(1_000)}\r\n`;
    const count = Math.ceil(SMTP_MAX_REPLY_BYTES / line.length) + 1;
    const server = await startScripted('220 scripted.test\r\n', (received, socket) => {
      if (!plainEsmtp(received, socket)) socket.write(line.repeat(count));
    });
    const session = await open(server.port);
    await session.mailFrom('probe@verifier.example.test');
    const error = await rejectionOf(session.rcptTo('known@example.test'));
    expect(error).toBeInstanceOf(SmtpProtocolError);
    expect(error).toMatchObject({ step: 'rcpt', problem: 'reply_too_large' });
    expect(session.closed).toBe(true);
  });

  it('rejects a reply line that never ends', async () => {
    const server = await startScripted('220 scripted.test\r\n', (received, socket) => {
      if (!plainEsmtp(received, socket)) socket.write(`250 ${'x'.repeat(SMTP_MAX_LINE_BYTES + 10)}`);
    });
    const session = await open(server.port);
    await session.mailFrom('probe@verifier.example.test');
    const error = await rejectionOf(session.rcptTo('known@example.test'));
    expect(error).toBeInstanceOf(SmtpProtocolError);
    expect(error).toMatchObject({ step: 'rcpt', problem: 'line_too_long' });
  });

  it('keeps a refusing banner for the caller to classify', async () => {
    const banner = '554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org';
    const server = await startScripted(`${banner}\r\n`);
    const error = await rejectionOf(open(server.port));
    expect(error).toBeInstanceOf(SmtpProtocolError);
    expect(error).toMatchObject({
      step: 'greeting',
      problem: 'unexpected_reply',
      reply: { code: 554, enhancedCode: '5.7.1' },
    });
    expect(server.received).toEqual([]);
  });

  it('ends the session on a reply nobody asked for', async () => {
    const server = await startScripted('220 scripted.test\r\n', (line, socket) => {
      if (line.startsWith('MAIL')) socket.write('250 2.1.0 Ok\r\n421 4.4.2 Idle timeout\r\n');
      else plainEsmtp(line, socket);
    });
    const session = await open(server.port);
    expect((await session.mailFrom('probe@verifier.example.test')).code).toBe(250);
    const error = await rejectionOf(session.rcptTo('known@example.test'));
    expect(error).toBeInstanceOf(SmtpProtocolError);
    expect(error).toMatchObject({ step: 'rcpt', problem: 'unsolicited_reply', reply: { code: 421 } });
    expect(server.received.some((line) => line.startsWith('RCPT'))).toBe(false);
  });

  it('ends the session on plain text after the STARTTLS 220', async () => {
    const server = await startScripted('220 scripted.test\r\n', (line, socket) => {
      if (line.startsWith('EHLO')) socket.write('250-scripted.test\r\n250 STARTTLS\r\n');
      else if (line === 'STARTTLS') socket.write('220 2.0.0 Ready\r\n250-injected');
    });
    const error = await rejectionOf(open(server.port));
    expect(error).toBeInstanceOf(SmtpProtocolError);
    expect(error).toMatchObject({ step: 'starttls', problem: 'data_after_starttls' });
  });

  it('refuses addresses that could smuggle a command, before anything is sent', async () => {
    const server = await startScripted('220 scripted.test\r\n', plainEsmtp);
    const session = await open(server.port);
    await session.mailFrom('probe@verifier.example.test');
    expect(() => session.rcptTo('a@example.test>\r\nDATA')).toThrow(TypeError);
    expect(() => session.rcptTo('a@example.test> NOTIFY=NEVER')).toThrow(TypeError);
    expect(() => session.mailFrom('x\n@example.test')).toThrow(TypeError);
    expect(server.received.map((line) => line.split(' ')[0])).toEqual(['EHLO', 'MAIL']);
    expect(session.recipientsSinceReset).toBe(0);
  });

  it('requests SMTPUTF8 on MAIL FROM only when asked, and only of a server that advertised it', async () => {
    const server = await startScripted('220 scripted.test\r\n', (line, socket) => {
      if (line.startsWith('EHLO')) socket.write('250-scripted.test\r\n250 SMTPUTF8\r\n');
      else socket.write('250 2.0.0 OK\r\n');
    });
    const session = await open(server.port);
    await session.mailFrom('probe@verifier.example.test', { smtpUtf8: true });
    await session.rcptTo('jöhn@example.test');
    await session.rset();
    await session.mailFrom('probe@verifier.example.test');
    expect(server.received.slice(1)).toEqual([
      'MAIL FROM:<probe@verifier.example.test> SMTPUTF8',
      'RCPT TO:<jöhn@example.test>',
      'RSET',
      'MAIL FROM:<probe@verifier.example.test>',
    ]);

    const plain = await open((await startScripted('220 scripted.test\r\n', plainEsmtp)).port);
    expect(() => plain.mailFrom('probe@verifier.example.test', { smtpUtf8: true })).toThrow(TypeError);
  });

  it('refuses to dial a name instead of an address', async () => {
    const error = await rejectionOf(open(25, { address: 'localhost' }));
    expect(error).toBeInstanceOf(TypeError);
  });
});

/** A port nothing listens on (just released by a listener we opened). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = portOf(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls a condition for at most 2 s (server-side close events arrive a tick after ours). */
async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(condition()).toBe(true);
}

/**
 * A minimal SOCKS5 proxy (RFC 1928: no authentication, CONNECT, IPv4 only) that records what it
 * was asked to reach.
 */
async function startSocksProxy(): Promise<{
  port: number;
  requests: Array<{ addressType: number; host: string; port: number }>;
}> {
  const requests: Array<{ addressType: number; host: string; port: number }> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let buffered = Buffer.alloc(0);
    let greeted = false;
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!greeted) {
        if (buffered.length < 2 || buffered.length < 2 + buffered.readUInt8(1)) return;
        buffered = buffered.subarray(2 + buffered.readUInt8(1));
        greeted = true;
        client.write(Buffer.from([5, 0]));
      }
      if (buffered.length < 10) return;
      client.off('data', onData);
      const addressType = buffered.readUInt8(3);
      const host = [4, 5, 6, 7].map((index) => buffered.readUInt8(index)).join('.');
      const port = buffered.readUInt16BE(8);
      requests.push({ addressType, host, port });
      const rest = buffered.subarray(10);
      if (addressType !== 1) {
        client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
        return;
      }
      const upstream = net.connect({ host, port }, () => {
        client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
        if (rest.length > 0) upstream.write(rest);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: portOf(server), requests };
}
