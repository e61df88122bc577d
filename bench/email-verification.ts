/**
 * `npm run bench` (email part): verify and find through the whole pipeline against a real SMTP
 * server on loopback behind a proxy that adds 20 ms to every server → client transmission, so each
 * SMTP round trip costs at least 20 ms, as it would to a nearby real mail server. Reports time per
 * call and SMTP round trips per call (commands the server received, plus the banner), with and
 * without STARTTLS, against the floor: banner, EHLO, MAIL, RCPT probe, RCPT target, QUIT = 6.
 * Sequential calls (a mail host allows few sessions); bounded counts; exits by itself.
 */

import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startDnsServer } from '../test/support/dns-server.js';
import { startBenchService } from './bench-service.js';

const LATENCY_MS = 20;
const CALLS = 20;
const MAILBOX = 'mjansen@bench.test';
const PROXY_ADDRESS = '127.0.0.5';

interface Counters {
  commands: number;
  connections: number;
}

function startSmtp(starttls: boolean): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['AUTH'],
    hideSTARTTLS: !starttls,
    onRcptTo(address, _session, callback) {
      if (address.address.toLowerCase() === MAILBOX) return callback();
      callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
    },
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.server.address() as { port: number }).port }),
    ),
  );
}

/** A TCP relay delaying every server → client chunk by LATENCY_MS and counting client commands. */
function startLatencyProxy(
  targetPort: number,
  counters: Counters,
): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    counters.connections += 1;
    const upstream = new NetSocket();
    sockets.add(client).add(upstream);
    upstream.connect(targetPort, '127.0.0.1');
    client.on('data', (chunk) => {
      counters.commands += 1;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => setTimeout(() => client.writable && client.write(chunk), LATENCY_MS));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => setTimeout(end, LATENCY_MS)).on('error', end);
  });
  return new Promise((resolve) =>
    server.listen(0, PROXY_ADDRESS, () =>
      resolve({ server, port: (server.address() as { port: number }).port }),
    ),
  );
}

async function measure(starttls: boolean) {
  const counters: Counters = { commands: 0, connections: 0 };
  const smtp = await startSmtp(starttls);
  const proxy = await startLatencyProxy(smtp.port, counters);
  const dns = await startDnsServer({
    'bench.test': { mx: [[10, 'mx.bench.test']] },
    'mx.bench.test': { a: [PROXY_ADDRESS] },
  });
  const bench = await startBenchService({
    credits: 1_000_000,
    env: {
      DNS_SERVERS: dns.address,
      SMTP_PORT: String(proxy.port),
      UNSAFE_SMTP_ALLOW_HOSTS: `${PROXY_ADDRESS}:${proxy.port}`,
      // Every find runs the whole search: nothing remembered between calls.
      EMAIL_DOMAIN_CACHE_SECONDS: '0',
    },
  });
  const { service, apiKey } = bench;
  const call = async (path: string) => {
    const before = { ...counters };
    const started = performance.now();
    const response = await service.app.request(path, { headers: { Authorization: `Bearer ${apiKey}` } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    // One more for the banner, which the server sends unasked.
    const roundTrips = counters.commands - before.commands + (counters.connections - before.connections);
    return {
      ms: performance.now() - started,
      roundTrips,
      connections: counters.connections - before.connections,
    };
  };
  const run = async (path: string) => {
    await call(path);
    const samples = [];
    for (let index = 0; index < CALLS; index += 1) samples.push(await call(path));
    const ms = samples.map((sample) => sample.ms).sort((a, b) => a - b);
    return {
      p50Ms: Math.round(ms[Math.floor(ms.length / 2)] as number),
      maxMs: Math.round(ms.at(-1) as number),
      roundTrips: samples[0]?.roundTrips,
      connections: samples[0]?.connections,
    };
  };
  const results = {
    verify: await run('/v1/emails/verify?email=mjansen%40bench.test'),
    findThirdCandidate: await run('/v1/emails/find?firstName=Marieke&lastName=Jansen&domain=bench.test'),
  };
  await bench.close();
  await dns.close();
  await new Promise((resolve) => proxy.server.close(resolve));
  await new Promise((resolve) => smtp.server.close(() => resolve(undefined)));
  return results;
}

const withTls = await measure(true);
const plain = await measure(false);
const floor = 6;
console.log(
  `SMTP through the pipeline, ${LATENCY_MS} ms added per server reply, ${CALLS} sequential calls each (node ${process.version})\n`,
);
console.log('  session        call                  p50 ms   max ms   round trips   connections');
for (const [session, results] of [
  ['STARTTLS', withTls],
  ['plain', plain],
] as const) {
  for (const [name, result] of Object.entries(results)) {
    console.log(
      `  ${session.padEnd(13)}  ${name.padEnd(20)}  ${String(result.p50Ms).padStart(6)}   ${String(result.maxMs).padStart(6)}   ${String(result.roundTrips).padStart(11)}   ${String(result.connections).padStart(11)}`,
    );
  }
}
console.log(
  `\nfloor of a verification: ${floor} round trips (banner, EHLO, MAIL, RCPT probe, RCPT target, QUIT)`,
);
console.log(
  JSON.stringify({
    benchmark: 'email-verification',
    latencyMs: LATENCY_MS,
    calls: CALLS,
    starttls: withTls,
    plain,
  }),
);
