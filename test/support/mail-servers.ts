/**
 * Mail servers on loopback for the verifier's tests, all on one port (SMTP_PORT is one setting) at
 * different loopback addresses: a real `smtp-server` whose answers depend on the recipient's domain
 * (127.0.0.1), one that accepts connections and never greets (127.0.0.2), and one that drops the
 * connection at the first RCPT (127.0.0.3), one that refuses us in its banner as blocklisted
 * (127.0.0.4), and a second real one answering alike without SMTPUTF8 (RFC 6531) among its
 * extensions (127.0.0.5). Each counts the connections it received; the real ones also keep every
 * recipient they were asked about.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { freePort } from './free-port.js';

export const ADDRESSES = {
  smtp: '127.0.0.1',
  stall: '127.0.0.2',
  drop: '127.0.0.3',
  banned: '127.0.0.4',
  ascii: '127.0.0.5',
} as const;

/** Mailboxes that exist at the `accept.test` family of domains. */
export const MAILBOXES = new Set([
  'jane@accept.test',
  'mjansen@accept.test',
  'renee.vanderberg@accept.test',
  'mjansen@memory.test',
  'pvisser@memory.test',
  // Names written in other scripts, as their mailboxes spell them (email-find-names.test.ts).
  'ivan.petrov@cyrillic.test',
  'giorgos.papadopoulos@greek.test',
  'li@han.test',
  'juergen.mueller@umlauts.test',
  'jurgen.muller@plain-vowels.test',
  // smtp-server hands recipients to us with punycode domains decoded (xn--bcher-kva.test).
  'jane@bücher.test',
  // A local part beyond ASCII (RFC 6531), at a domain whose first MX lacks SMTPUTF8.
  'jöhn@mixed.test',
  'jane@mixed.test',
]);

type RcptAnswer = { code: number; message: string } | 'ok';

/** The answer of the real SMTP server to one recipient, by domain; `rcptCount` counts this transaction's. */
function answerFor(address: string, rcptCount: number): RcptAnswer {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  switch (domain) {
    case 'catchall.test':
      return 'ok';
    case 'greylist.test':
      return { code: 451, message: '4.7.1 Greylisted, please try again later' };
    case 'blocked.test':
      return {
        code: 554,
        message: '5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org',
      };
    case 'limit.test':
      // One recipient per transaction, the way some Outlook hosts answer a second RCPT.
      if (rcptCount > 1) return { code: 452, message: '4.5.3 Too many recipients' };
      return MAILBOXES.has(address.replace('@limit.test', '@accept.test'))
        ? 'ok'
        : { code: 550, message: '5.1.1 The email account that you tried to reach does not exist' };
    default:
      return MAILBOXES.has(address)
        ? 'ok'
        : { code: 550, message: '5.1.1 The email account that you tried to reach does not exist' };
  }
}

export interface MailServers {
  port: number;
  /** UNSAFE_SMTP_ALLOW_HOSTS for these servers. */
  allowHosts: string;
  connections: Record<keyof typeof ADDRESSES, number>;
  /** Every RCPT TO address the real servers received, lower case, in order. */
  rcpts: string[];
  /** Those of `rcpts` received in a transaction whose MAIL FROM requested SMTPUTF8. */
  smtpUtf8Rcpts: string[];
  close(): Promise<void>;
}

export async function startMailServers(): Promise<MailServers> {
  const port = await freePort();
  const connections = { smtp: 0, stall: 0, drop: 0, banned: 0, ascii: 0 };
  const rcpts: string[] = [];
  const smtpUtf8Rcpts: string[] = [];
  const sockets = new Set<Socket>();
  /** RCPT commands per session since its last MAIL FROM (RSET is followed by a new MAIL FROM). */
  const rcptCounts = new Map<string, number>();

  const realServer = (name: 'smtp' | 'ascii') =>
    new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: ['AUTH'],
      hideSMTPUTF8: name === 'ascii',
      onConnect(_session, callback) {
        connections[name] += 1;
        callback();
      },
      onMailFrom(_address, session, callback) {
        rcptCounts.set(session.id, 0);
        callback();
      },
      onRcptTo(address: SMTPServerAddress, session, callback) {
        const count = (rcptCounts.get(session.id) ?? 0) + 1;
        rcptCounts.set(session.id, count);
        rcpts.push(address.address.toLowerCase());
        if (session.envelope.smtpUtf8) smtpUtf8Rcpts.push(address.address.toLowerCase());
        const answer = answerFor(address.address.toLowerCase(), count);
        if (answer === 'ok') return callback();
        const error = Object.assign(new Error(answer.message), { responseCode: answer.code });
        callback(error);
      },
      onData(stream, _session, callback) {
        stream.resume();
        callback(new Error('This test server never takes a message.'));
      },
    });
  const smtp = realServer('smtp');
  const ascii = realServer('ascii');
  // A client that resets its connection (a verifier's process stopped mid-session) is a client's
  // business, not a failure of the test; smtp-server reports it as an error event.
  for (const server of [smtp, ascii]) server.on('error', () => {});
  const stall = createServer((socket) => {
    connections.stall += 1;
    sockets.add(socket);
  });
  const drop = createServer((socket) => {
    connections.drop += 1;
    sockets.add(socket);
    socket.write('220 drop.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      const command = chunk.toString('latin1').toUpperCase();
      if (command.startsWith('EHLO') || command.startsWith('HELO')) socket.write('250 drop.test\r\n');
      else if (command.startsWith('MAIL')) socket.write('250 2.1.0 OK\r\n');
      else if (command.startsWith('RCPT')) socket.destroy();
      else socket.write('250 OK\r\n');
    });
  });

  const banned = createServer((socket) => {
    connections.banned += 1;
    sockets.add(socket);
    socket.end('554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org\r\n');
  });

  await Promise.all([
    new Promise<void>((resolve) => smtp.listen(port, ADDRESSES.smtp, resolve)),
    new Promise<void>((resolve) => ascii.listen(port, ADDRESSES.ascii, resolve)),
    listen(stall, port, ADDRESSES.stall),
    listen(drop, port, ADDRESSES.drop),
    listen(banned, port, ADDRESSES.banned),
  ]);

  return {
    port,
    allowHosts: Object.values(ADDRESSES)
      .map((address) => `${address}:${port}`)
      .join(','),
    connections,
    rcpts,
    smtpUtf8Rcpts,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => smtp.close(() => resolve())),
        new Promise<void>((resolve) => ascii.close(() => resolve())),
        new Promise<void>((resolve) => stall.close(() => resolve())),
        new Promise<void>((resolve) => drop.close(() => resolve())),
        new Promise<void>((resolve) => banned.close(() => resolve())),
      ]);
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}
