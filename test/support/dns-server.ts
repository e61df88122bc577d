/**
 * A real authoritative DNS server on loopback (dns2 over UDP) for tests that resolve mail hosts.
 * The zone is declarative: each name lists its MX, A and AAAA records, or a failure to answer
 * with. It behaves like an authoritative server so the resolver sees real wire-level outcomes:
 * - a name absent from the zone → NXDOMAIN (rcode 3), as a server authoritative for it would;
 * - a name present without records of the asked type → NOERROR with an empty answer (NODATA);
 * - `rcode` answers queries for the name with that rcode and no records: every query, or only
 *   those of the listed types (a broken server that fails AAAA while serving A, RFC 4074);
 * - `stall` drops queries for the name (all, or only the listed types): the client can only time out.
 * The zone can be replaced while the server runs (`setZone`), and every query received is logged
 * (`queries`) so a test can prove a lookup happened or, as importantly, that it did not.
 */
import { createSocket } from 'node:dgram';
import type DNS from 'dns2';
import { createServer, Packet } from 'dns2';

export type RecordType = 'MX' | 'A' | 'AAAA';
export type FailureRcode = 'NXDOMAIN' | 'SERVFAIL';

export interface ZoneEntry {
  /** MX records as [preference, exchange]; an exchange of '.' is the RFC 7505 null MX. */
  mx?: [preference: number, exchange: string][];
  a?: string[];
  aaaa?: string[];
  /** Answer every query for this name with this rcode (and no records), or only the listed types. */
  rcode?: FailureRcode | Partial<Record<RecordType, FailureRcode>>;
  /** Never answer queries for this name: all of them (`true`) or only the listed types. */
  stall?: boolean | RecordType[];
}

export type Zone = Record<string, ZoneEntry>;

export interface ReceivedQuery {
  name: string;
  type: RecordType | number;
}

export interface DnsServerHandle {
  /** `127.0.0.1:PORT`, in the form `Resolver#setServers` accepts. */
  address: string;
  port: number;
  /** Replaces the whole zone; queries arriving afterwards see the new one. */
  setZone(zone: Zone): void;
  /** Every query received so far, in arrival order (stalled ones included). */
  readonly queries: readonly ReceivedQuery[];
  close(): Promise<void>;
}

// RFC 1035 §4.1.1 rcodes; dns2 defines Packet.RCODE at run time but its typings omit it.
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;
const TTL_SECONDS = 60;

/** Zone keys and query names compare lower-case and without the trailing dot, as DNS names do. */
function canonical(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function typeName(type: number): ReceivedQuery['type'] {
  if (type === Packet.TYPE.MX) return 'MX';
  if (type === Packet.TYPE.A) return 'A';
  if (type === Packet.TYPE.AAAA) return 'AAAA';
  return type;
}

function stalls(entry: ZoneEntry, type: ReceivedQuery['type']): boolean {
  if (Array.isArray(entry.stall)) return typeof type === 'string' && entry.stall.includes(type);
  return entry.stall === true;
}

function failureFor(entry: ZoneEntry, type: ReceivedQuery['type']): FailureRcode | undefined {
  if (typeof entry.rcode !== 'object') return entry.rcode;
  return typeof type === 'string' ? entry.rcode[type] : undefined;
}

/** A reply that cannot be sent (server closing) is a lost datagram: the client sees a timeout. */
function ignoreSendFailure(): void {}

function indexZone(zone: Zone): Map<string, ZoneEntry> {
  return new Map(Object.entries(zone).map(([name, entry]) => [canonical(name), entry]));
}

function answersFor(question: DNS.Packet.Question, entry: ZoneEntry): DNS.Packet.Resource[] {
  const base = { name: question.name, class: Packet.CLASS.IN, ttl: TTL_SECONDS };
  switch (question.type) {
    case Packet.TYPE.MX:
      return (entry.mx ?? []).map(([priority, exchange]) =>
        Packet.createResourceFromQuestion(question, { ...base, type: Packet.TYPE.MX, priority, exchange }),
      );
    case Packet.TYPE.A:
      return (entry.a ?? []).map((address) =>
        Packet.createResourceFromQuestion(question, { ...base, type: Packet.TYPE.A, address }),
      );
    case Packet.TYPE.AAAA:
      return (entry.aaaa ?? []).map((address) =>
        Packet.createResourceFromQuestion(question, { ...base, type: Packet.TYPE.AAAA, address }),
      );
    default:
      return [];
  }
}

export async function startDnsServer(initialZone: Zone): Promise<DnsServerHandle> {
  let zone = indexZone(initialZone);
  const queries: ReceivedQuery[] = [];

  const server = createServer({
    udp: true,
    handle(request, send) {
      const question = request.questions[0];
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      if (!question) {
        // Nothing to answer about; a real server would say FORMERR, SERVFAIL is close enough here.
        response.header.rcode = RCODE.SERVFAIL;
        send(response).catch(ignoreSendFailure);
        return;
      }
      const type = typeName(question.type);
      queries.push({ name: canonical(question.name), type });
      const entry = zone.get(canonical(question.name));
      if (entry && stalls(entry, type)) return;
      const failure = entry && failureFor(entry, type);
      if (!entry) {
        response.header.rcode = RCODE.NXDOMAIN;
      } else if (failure) {
        response.header.rcode = RCODE[failure];
      } else {
        response.answers = answersFor(question, entry);
      }
      send(response).catch(ignoreSendFailure);
    },
  });

  // A bind failure is emitted as 'error' and `listen` would then never settle: race the two.
  const addresses = await new Promise<Awaited<ReturnType<typeof server.listen>>>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ udp: { port: 0, address: '127.0.0.1' } }).then(resolve, reject);
  });
  const port = addresses.udp?.port;
  if (!port) {
    await server.close();
    throw new Error('the DNS test server did not report a UDP port');
  }

  return {
    address: `127.0.0.1:${port}`,
    port,
    setZone(next) {
      zone = indexZone(next);
    },
    queries,
    close: () => server.close(),
  };
}

/**
 * `127.0.0.1:PORT` where no DNS server listens: a UDP port bound and released at once, so a query
 * sent there draws an ICMP port-unreachable (ECONNREFUSED) instead of silence. Another process
 * could take the port in between; on loopback in a test run that window is negligible.
 */
export async function closedDnsAddress(): Promise<string> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return `127.0.0.1:${port}`;
}
