/**
 * `npm run bench` (email part): verify and find through the whole pipeline against real SMTP
 * servers on loopback behind a relay that adds 20 ms to every server → client transmission, so each
 * SMTP round trip costs at least 20 ms, as it would to a nearby real mail server. Side by side in
 * one run, calls alternating: one `smtp-server` that advertises PIPELINING (the dialogue is
 * pipelined, RFC 2920) and the same server with PIPELINING hidden (lock-step), each with and without
 * STARTTLS. Reports time per call, client flights (write bursts the server received), SMTP round
 * trips (flights plus the banner) and RCPT commands the server received, for a verification, finds
 * that succeed on their first, second and ninth candidate, and a find that checks all 16 and finds
 * nothing. Sequential calls (a mail host allows few sessions); bounded counts; exits by itself.
 */

import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { candidates, nameParts, nameSpellings } from '../shared/emails/candidates.js';
import { startDnsServer } from '../test/support/dns-server.js';
import { startBenchService } from './bench-service.js';

const LATENCY_MS = 20;
const CALLS = 20;
/** One relay address per server; one port for both, as SMTP_PORT is one setting. */
const RELAY_ADDRESSES = { pipelined: '127.0.0.5', lockStep: '127.0.0.6' } as const;
type Dialogue = keyof typeof RELAY_ADDRESSES;
const DOMAINS: Record<Dialogue, string> = { pipelined: 'pipelined.test', lockStep: 'lockstep.test' };

/** Find's candidates for a name, in order, at `domain`. */
function candidateAddresses(firstName: string, lastName: string, domain: string): string[] {
  return candidates(nameParts(nameSpellings(firstName), nameSpellings(lastName)), domain).map(
    (candidate) => candidate.address,
  );
}

/** The names found, each with the rank (1-based) of its candidate that has a mailbox. */
const HITS = {
  findRank1: ['Anna', 'Bakker', 1],
  findRank2: ['Sven', 'Dijkstra', 2],
  findRank9: ['Lotte', 'Smit', 9],
} as const;
/** Local parts with a mailbox; Pieter Visser has none (the miss). */
const MAILBOXES = new Set(
  Object.values(HITS).map(([first, last, rank]) => {
    const address = candidateAddresses(first, last, 'x')[rank - 1] as string;
    return address.slice(0, address.indexOf('@'));
  }),
);
const findPath = (first: string, last: string) => (domain: string) =>
  `/v1/emails/find?firstName=${first}&lastName=${last}&domain=${domain}`;

const CALLS_MEASURED = {
  verify: (domain: string) => `/v1/emails/verify?email=anna.bakker%40${domain}`,
  findRank1: findPath(HITS.findRank1[0], HITS.findRank1[1]),
  findRank2: findPath(HITS.findRank2[0], HITS.findRank2[1]),
  findRank9: findPath(HITS.findRank9[0], HITS.findRank9[1]),
  findMiss: findPath('Pieter', 'Visser'),
} as const;
type CallName = keyof typeof CALLS_MEASURED;
const EXPECTED_STATUS: Record<CallName, string> = {
  verify: 'valid',
  findRank1: 'found',
  findRank2: 'found',
  findRank9: 'found',
  findMiss: 'not_found',
};

interface Counters {
  commands: number;
  connections: number;
  rcpts: number;
}

function startSmtp(
  starttls: boolean,
  pipelining: boolean,
  counters: Counters,
): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['AUTH'],
    hideSTARTTLS: !starttls,
    hidePIPELINING: !pipelining,
    onRcptTo(address, _session, callback) {
      counters.rcpts += 1;
      const local = address.address.toLowerCase().slice(0, address.address.indexOf('@'));
      if (MAILBOXES.has(local)) return callback();
      callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
    },
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.server.address() as { port: number }).port }),
    ),
  );
}

/**
 * A TCP relay delaying every server → client chunk by LATENCY_MS and counting what the client
 * writes: one count per chunk, so a pipelined group written at once counts as one round trip.
 */
function startLatencyProxy(
  targetPort: number,
  address: string,
  port: number,
  counters: Counters,
): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    counters.connections += 1;
    const upstream = new NetSocket();
    sockets.add(client).add(upstream);
    // The relay stands for a network path: no Nagle wait of its own when a server's replies to a
    // group arrive as several chunks (smtp-server writes each one, a TLS record apiece).
    client.setNoDelay(true);
    upstream.setNoDelay(true);
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
    server.listen(port, address, () =>
      resolve({ server, port: (server.address() as { port: number }).port }),
    ),
  );
}

interface Row {
  p50Ms: number;
  maxMs: number;
  flights: number | undefined;
  roundTrips: number | undefined;
  rcpts: number | undefined;
  candidatesChecked: number | undefined;
  connections: number | undefined;
}

async function measure(starttls: boolean): Promise<Record<Dialogue, Record<CallName, Row>>> {
  const counters: Record<Dialogue, Counters> = {
    pipelined: { commands: 0, connections: 0, rcpts: 0 },
    lockStep: { commands: 0, connections: 0, rcpts: 0 },
  };
  const smtp = {
    pipelined: await startSmtp(starttls, true, counters.pipelined),
    lockStep: await startSmtp(starttls, false, counters.lockStep),
  };
  const pipelinedProxy = await startLatencyProxy(
    smtp.pipelined.port,
    RELAY_ADDRESSES.pipelined,
    0,
    counters.pipelined,
  );
  const lockStepProxy = await startLatencyProxy(
    smtp.lockStep.port,
    RELAY_ADDRESSES.lockStep,
    pipelinedProxy.port,
    counters.lockStep,
  );
  const dns = await startDnsServer({
    [DOMAINS.pipelined]: { mx: [[10, `mx.${DOMAINS.pipelined}`]] },
    [`mx.${DOMAINS.pipelined}`]: { a: [RELAY_ADDRESSES.pipelined] },
    [DOMAINS.lockStep]: { mx: [[10, `mx.${DOMAINS.lockStep}`]] },
    [`mx.${DOMAINS.lockStep}`]: { a: [RELAY_ADDRESSES.lockStep] },
  });
  const port = pipelinedProxy.port;
  const bench = await startBenchService({
    credits: 1_000_000,
    env: {
      DNS_SERVERS: dns.address,
      SMTP_PORT: String(port),
      UNSAFE_SMTP_ALLOW_HOSTS: Object.values(RELAY_ADDRESSES)
        .map((address) => `${address}:${port}`)
        .join(','),
      // Every find runs the whole search: nothing remembered between calls.
      EMAIL_DOMAIN_CACHE_SECONDS: '0',
    },
  });
  const { service, apiKey } = bench;
  const call = async (dialogue: Dialogue, name: CallName) => {
    const path = CALLS_MEASURED[name](DOMAINS[dialogue]);
    const before = { ...counters[dialogue] };
    const started = performance.now();
    const response = await service.app.request(path, { headers: { Authorization: `Bearer ${apiKey}` } });
    const body = (await response.json()) as { data: { status: string; candidatesChecked?: number } };
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    if (body.data.status !== EXPECTED_STATUS[name]) throw new Error(`${path}: ${JSON.stringify(body)}`);
    const ms = performance.now() - started;
    // QUIT is not waited for: let it reach the relay before counting.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = counters[dialogue];
    // One more per connection for the banner, which the server sends unasked.
    return {
      ms,
      flights: after.commands - before.commands,
      roundTrips: after.commands - before.commands + (after.connections - before.connections),
      rcpts: after.rcpts - before.rcpts,
      candidatesChecked: body.data.candidatesChecked,
      connections: after.connections - before.connections,
    };
  };
  const rows = { pipelined: {}, lockStep: {} } as Record<Dialogue, Record<CallName, Row>>;
  for (const name of Object.keys(CALLS_MEASURED) as CallName[]) {
    const samples: Record<Dialogue, Awaited<ReturnType<typeof call>>[]> = { pipelined: [], lockStep: [] };
    await call('pipelined', name);
    await call('lockStep', name);
    for (let index = 0; index < CALLS; index += 1) {
      for (const dialogue of ['pipelined', 'lockStep'] as const)
        samples[dialogue].push(await call(dialogue, name));
    }
    for (const dialogue of ['pipelined', 'lockStep'] as const) {
      const ms = samples[dialogue].map((sample) => sample.ms).sort((a, b) => a - b);
      rows[dialogue][name] = {
        p50Ms: Math.round(ms[Math.floor(ms.length / 2)] as number),
        maxMs: Math.round(ms.at(-1) as number),
        flights: samples[dialogue][0]?.flights,
        roundTrips: samples[dialogue][0]?.roundTrips,
        rcpts: samples[dialogue][0]?.rcpts,
        candidatesChecked: samples[dialogue][0]?.candidatesChecked,
        connections: samples[dialogue][0]?.connections,
      };
    }
  }
  await bench.close();
  await dns.close();
  for (const proxy of [pipelinedProxy, lockStepProxy])
    await new Promise((resolve) => proxy.server.close(resolve));
  for (const { server } of Object.values(smtp))
    await new Promise((resolve) => server.close(() => resolve(undefined)));
  return rows;
}

const plain = await measure(false);
const withTls = await measure(true);
console.log(
  `SMTP through the pipeline, ${LATENCY_MS} ms added per server reply, ${CALLS} sequential calls each, alternating (node ${process.version})\n`,
);
console.log(
  '  session    call         dialogue     p50 ms   max ms   flights   round trips   RCPTs   checked   connections   p50 ratio',
);
for (const [session, results] of [
  ['plain', plain],
  ['STARTTLS', withTls],
] as const) {
  for (const name of Object.keys(CALLS_MEASURED) as CallName[]) {
    for (const dialogue of ['pipelined', 'lockStep'] as const) {
      const row = results[dialogue][name];
      const ratio = (row.p50Ms / results.lockStep[name].p50Ms).toFixed(2);
      console.log(
        `  ${session.padEnd(9)}  ${name.padEnd(11)}  ${dialogue.padEnd(11)}  ${String(row.p50Ms).padStart(6)}   ${String(row.maxMs).padStart(6)}   ${String(row.flights).padStart(7)}   ${String(row.roundTrips).padStart(11)}   ${String(row.rcpts).padStart(5)}   ${String(row.candidatesChecked ?? '-').padStart(7)}   ${String(row.connections).padStart(11)}   ${ratio.padStart(9)}`,
      );
    }
  }
}
console.log(
  '\nRCPTs include the catch-all probe; checked is the candidatesChecked answered. Aims with PIPELINING: a verification in at most 3 client flights, a find of 16 candidates in at most 6',
);
console.log(
  JSON.stringify({
    benchmark: 'email-verification',
    latencyMs: LATENCY_MS,
    calls: CALLS,
    plain,
    starttls: withTls,
  }),
);
