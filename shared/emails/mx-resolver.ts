/**
 * Where mail for a domain goes: MX resolution for the email verifier, over DNS only.
 *
 * Decisions (each is a place where Reacher, the reference to beat, gets it wrong or says nothing):
 * - **Every MX, lowest preference first** (RFC 5321 §5.1). The caller tries the next host on a
 *   connection failure or a 4xx, so the whole ordered list is returned, not only the best host.
 *   Ties are ordered by name rather than shuffled: §5.1 asks senders to spread load across equal
 *   preferences, but one RCPT probe is no load worth spreading, and a deterministic order keeps
 *   verdicts and tests reproducible. Exchanges are lower-cased without the trailing dot and
 *   duplicates are dropped (keeping the lowest preference), so one host is never probed twice.
 * - **Null MX** (RFC 7505): an MX whose exchange is the root ('.', which Node reports as '') means
 *   "this domain accepts no mail" → `null_mx`, and the caller answers `no_mx` without dialling.
 *   A null MX mixed with other MX records is treated as null MX too: RFC 7505 §3 forbids such a
 *   mix, the owner has said "no mail" in the one way the RFC defines, and a misconfigured domain is
 *   not a mailbox we can verify. The root can never be dialled whatever its preference, so a root
 *   exchange counts as the null-MX declaration at any preference.
 * - **Implicit MX** (RFC 5321 §5.1): no MX records, but the domain itself has an A or AAAA record →
 *   the domain is its own mail host (`implicit`, preference 0). No MX and no address → the domain
 *   has no mail server (`no_mail_server`). The address check also runs after an NXDOMAIN for the
 *   MX query: RFC 8020 says NXDOMAIN means nothing exists at the name, but RFC 4074 §4.2 documents
 *   authoritative servers that answer NXDOMAIN for a type they do not serve while the name has an
 *   A record; the price is one more round trip for domains that really do not exist.
 * - **Failures are not absences.** SERVFAIL, REFUSED, a timeout, an unreachable DNS server or a bad
 *   response say nothing about the domain → `dns_error` with Node's code (ESERVFAIL, EREFUSED,
 *   ETIMEOUT, ECONNREFUSED, EBADRESP, …); only ENODATA (no records of the type) and ENOTFOUND
 *   (Node's code for NXDOMAIN) count as "no records". An address lookup where one family answers
 *   and the other fails uses the answers it got (RFC 4074 again: broken AAAA handling is common);
 *   a failure is reported only when it leaves us with no address at all.
 * - **DNS only, never `dns.lookup`.** `dns.lookup` is getaddrinfo: /etc/hosts, nsswitch and the
 *   OS's own resolver would decide which address we dial on port 25, and its search domains could
 *   turn a bare name into one of our internal hosts. Every query here goes over the wire to the
 *   configured servers (`DNS_SERVERS`, default the system's resolv.conf servers) through c-ares.
 * - **One c-ares channel per query.** `Resolver#cancel()` cancels every query of a Resolver, so a
 *   shared one would let one request's abort cancel another request's lookups. Each query gets its
 *   own Resolver, and an aborted signal cancels exactly that call's queries; the call then rejects
 *   with the signal's reason, never a DNS verdict, because the caller's deadline (or a vanished
 *   client) decides what an abort means. A cancelled query must not be read as an answer either:
 *   the signal is checked before any error code is interpreted.
 * - **Bounded time.** `timeoutMs` is each query's budget per server, with a single try (c-ares
 *   defaults to 5 s × 4 tries, far beyond the lookup deadline). It is passed to c-ares, but Node
 *   only checks c-ares timeouts on a timer ticking every min(timeout, 1 s), which lets a query
 *   overrun by up to a tick or two (300 ms → 600 ms, 1.5 s → 2 s, measured on Node 22): so each
 *   query also has a deadline of our own that cancels it and reports ETIMEOUT. A mail-host
 *   resolution makes at most two rounds (MX, then A and AAAA in parallel): 2 × timeoutMs per server.
 */
import { NODATA, NOTFOUND, Resolver } from 'node:dns/promises';

export interface MailHost {
  /** Lower-case host name without the trailing dot. */
  exchange: string;
  preference: number;
}

export type MailHostsResult =
  /** MX records in the order to try them: preference ascending, ties by name, no duplicates. */
  | { kind: 'mx'; hosts: MailHost[] }
  /** RFC 7505: the domain declares it accepts no mail. */
  | { kind: 'null_mx' }
  /** RFC 5321 §5.1: no MX, but the domain has an address, so it is its own mail host. */
  | { kind: 'implicit'; hosts: [MailHost] }
  /** No MX and no address, or the domain does not exist. */
  | { kind: 'no_mail_server' }
  /** The DNS could not answer; nothing is known about the domain. `code` is Node's (ESERVFAIL, …). */
  | { kind: 'dns_error'; code: string };

export interface MxResolverOptions {
  /**
   * DNS servers as `Resolver#setServers` accepts them (`'192.0.2.53'`, `'127.0.0.1:5353'`,
   * `'[2001:db8::53]:53'`). Default (also for an empty list): the system's, from resolv.conf, read as
   * each query starts.
   */
  servers?: string[];
  /** Budget of each query per server, single try. Default {@link DEFAULT_DNS_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/**
 * 3 s: a recursive resolver rarely needs more than 1–2 s for a cold chain, and two rounds of 3 s
 * stay well inside the verifier's overall budget and the 45 s lookup deadline.
 */
export const DEFAULT_DNS_TIMEOUT_MS = 3_000;

/**
 * A resolver failure while looking up a mail host's addresses. Internal, not an `ApiError`: the
 * verifier turns it into its `mx_error` verdict, which is a charged 200, not a public error.
 */
export class DnsLookupError extends Error {
  /** Node's dns error code: ESERVFAIL, EREFUSED, ETIMEOUT, ECONNREFUSED, EBADRESP, … */
  readonly code: string;
  readonly host: string;

  constructor(host: string, code: string, options: { cause?: unknown } = {}) {
    super(`DNS lookup of ${host} failed: ${code}`, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.host = host;
  }
}

/** A query's outcome: records (none for NODATA/NXDOMAIN) or the failure that left us knowing nothing. */
type QueryOutcome<T> = { ok: true; records: T[] } | { ok: false; code: string; error: Error };

/** What an A + AAAA lookup found; `failure` is the first family that failed (A before AAAA). */
interface AddressOutcome {
  addresses: string[];
  failure?: { code: string; error: Error };
}

/** ENODATA and ENOTFOUND (NXDOMAIN) say "no records of this type here"; every other code is a failure. */
const NO_RECORDS: ReadonlySet<string> = new Set([NODATA, NOTFOUND]);

/** Host names compare case-insensitively and the trailing dot of a fully qualified name is noise. */
function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

function byPreferenceThenName(a: MailHost, b: MailHost): number {
  if (a.preference !== b.preference) return a.preference - b.preference;
  return a.exchange < b.exchange ? -1 : a.exchange > b.exchange ? 1 : 0;
}

export class MxResolver {
  readonly #servers: readonly string[] | undefined;
  readonly #timeoutMs: number;

  constructor(options: MxResolverOptions = {}) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(`timeoutMs must be a positive integer, got ${timeoutMs}`);
    }
    // An empty list (`DNS_SERVERS=` in an env file) means what leaving it out means: the system's.
    const servers = options.servers?.length ? [...options.servers] : undefined;
    if (servers) {
      // Config is checked once, at start-up: setServers throws on a malformed address.
      new Resolver().setServers(servers);
    }
    this.#servers = servers;
    this.#timeoutMs = timeoutMs;
  }

  /** The mail hosts of `domain`, in the order to try them. Rejects only when aborted: `signal.reason`. */
  async resolveMailHosts(domain: string, signal: AbortSignal): Promise<MailHostsResult> {
    signal.throwIfAborted();
    const name = normalizeName(domain);
    // c-ares would query the root for an empty name; the code is the one it uses for bad names.
    if (name === '') return { kind: 'dns_error', code: 'EBADNAME' };

    const mx = await this.#query(signal, name, (resolver) => resolver.resolveMx(name));
    if (!mx.ok) return { kind: 'dns_error', code: mx.code };

    if (mx.records.length > 0) {
      const records = mx.records.map((record) => ({
        exchange: normalizeName(record.exchange),
        preference: record.priority,
      }));
      if (records.some((record) => record.exchange === '')) return { kind: 'null_mx' };
      return { kind: 'mx', hosts: orderMailHosts(records) };
    }

    const found = await this.#addresses(signal, name);
    if (found.addresses.length > 0) {
      return { kind: 'implicit', hosts: [{ exchange: name, preference: 0 }] };
    }
    if (found.failure) return { kind: 'dns_error', code: found.failure.code };
    return { kind: 'no_mail_server' };
  }

  /**
   * The IPv4 then IPv6 addresses of a mail host, without duplicates; empty when it has none.
   * Throws {@link DnsLookupError} when the lookup failed and yielded no address; rejects with
   * `signal.reason` when aborted.
   */
  async resolveAddresses(host: string, signal: AbortSignal): Promise<string[]> {
    signal.throwIfAborted();
    const name = normalizeName(host);
    if (name === '') throw new DnsLookupError(host, 'EBADNAME');
    const found = await this.#addresses(signal, name);
    if (found.addresses.length === 0 && found.failure) {
      throw new DnsLookupError(name, found.failure.code, { cause: found.failure.error });
    }
    return found.addresses;
  }

  async #addresses(signal: AbortSignal, name: string): Promise<AddressOutcome> {
    // Both families at once: the second costs no extra round trip.
    const [v4, v6] = await Promise.all([
      this.#query(signal, name, (resolver) => resolver.resolve4(name)),
      this.#query(signal, name, (resolver) => resolver.resolve6(name)),
    ]);
    const addresses = [...new Set([...(v4.ok ? v4.records : []), ...(v6.ok ? v6.records : [])])];
    const failed = !v4.ok ? v4 : !v6.ok ? v6 : undefined;
    return failed ? { addresses, failure: { code: failed.code, error: failed.error } } : { addresses };
  }

  /**
   * Runs one query on a channel of its own, so that cancelling it (abort or deadline) touches
   * nothing else. A cancelled query rejects with the abort reason before its error code is read.
   */
  async #query<T>(
    signal: AbortSignal,
    name: string,
    run: (resolver: Resolver) => Promise<T[]>,
  ): Promise<QueryOutcome<T>> {
    signal.throwIfAborted();
    const resolver = new Resolver({ timeout: this.#timeoutMs, tries: 1 });
    if (this.#servers) resolver.setServers([...this.#servers]);
    // c-ares gives each server timeoutMs in turn, so the deadline grows with the server count.
    const budgetMs = this.#timeoutMs * Math.max(1, resolver.getServers().length);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      resolver.cancel();
    }, budgetMs);
    const cancel = () => resolver.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const records = await run(resolver);
      signal.throwIfAborted();
      return { ok: true, records };
    } catch (error) {
      signal.throwIfAborted();
      if (timedOut) {
        const late = new Error(`DNS query for ${name} got no answer within ${budgetMs} ms`, { cause: error });
        return { ok: false, code: 'ETIMEOUT', error: late };
      }
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      // Without a string code this is not a resolver outcome but a bug: let it surface.
      if (!(error instanceof Error) || typeof code !== 'string') throw error;
      if (NO_RECORDS.has(code)) return { ok: true, records: [] };
      return { ok: false, code, error };
    } finally {
      clearTimeout(deadline);
      signal.removeEventListener('abort', cancel);
    }
  }
}

/** Sorted by preference then name; a host listed twice keeps its lowest preference. */
function orderMailHosts(records: MailHost[]): MailHost[] {
  const seen = new Set<string>();
  return [...records].sort(byPreferenceThenName).filter((record) => {
    if (seen.has(record.exchange)) return false;
    seen.add(record.exchange);
    return true;
  });
}
