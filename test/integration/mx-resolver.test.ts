/**
 * MX resolution against a real DNS server on loopback (dns2 over UDP, answered by c-ares through
 * node:dns): the exact MailHostsResult for each kind of domain, the addresses of a mail host,
 * resolver failures, the per-query timeout and cancellation through an AbortSignal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsLookupError, MxResolver } from '../../shared/emails/mx-resolver.js';
import { closedDnsAddress, type DnsServerHandle, startDnsServer, type Zone } from '../support/dns-server.js';

const TIMEOUT_MS = 300;

const zone: Zone = {
  // Out of order, with one host listed twice in another case and with a trailing dot.
  'mx.test': {
    mx: [
      [20, 'mx2.mx.test'],
      [10, 'mx1.mx.test'],
      [20, 'MX2.Mx.Test.'],
    ],
  },
  // Equal preferences in reverse name order, and a host listed at two preferences.
  'ties.test': {
    mx: [
      [10, 'c.ties.test'],
      [10, 'b.ties.test'],
      [30, 'a.ties.test'],
      [5, 'a.ties.test'],
    ],
  },
  'nullmx.test': { mx: [[0, '.']], a: ['192.0.2.1'] },
  'mixed-null.test': {
    mx: [
      [10, 'mail.mixed-null.test'],
      [0, '.'],
    ],
  },
  'implicit.test': { a: ['192.0.2.2'] },
  'implicit6.test': { aaaa: ['2001:db8::2'] },
  'nothing.test': {},
  'servfail.test': { rcode: 'SERVFAIL' },
  'slow.test': { stall: true },
  // A broken server in the manner of RFC 4074 §4.2: NXDOMAIN for MX while the name has an address.
  'nx-for-mx.test': { rcode: { MX: 'NXDOMAIN' }, a: ['192.0.2.3'] },
  // No MX, and one address lookup fails: nothing can be concluded about a mail server.
  'a-servfail.test': { rcode: { A: 'SERVFAIL' } },
  'aaaa-servfail.test': { rcode: { AAAA: 'SERVFAIL' } },
  'hosts.test': {
    a: ['192.0.2.10', '192.0.2.11', '192.0.2.10'],
    aaaa: ['2001:db8::10', '2001:DB8:0:0:0:0:0:10', '2001:db8::11'],
  },
  'broken-aaaa.test': { a: ['192.0.2.30'], rcode: { AAAA: 'SERVFAIL' } },
  // nxdomain.test is deliberately absent: the server is authoritative, so it answers NXDOMAIN.
};

let dns: DnsServerHandle;
let resolver: MxResolver;

beforeAll(async () => {
  dns = await startDnsServer(zone);
  resolver = new MxResolver({ servers: [dns.address], timeoutMs: TIMEOUT_MS });
});
afterAll(() => dns?.close());

const live = () => new AbortController().signal;
const queriesFor = (name: string) => dns.queries.filter((query) => query.name === name).map((q) => q.type);

async function elapsed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe('resolveMailHosts', () => {
  it('returns MX hosts by ascending preference, lower-cased, without trailing dots or repeats', async () => {
    expect(await resolver.resolveMailHosts('mx.test', live())).toEqual({
      kind: 'mx',
      hosts: [
        { exchange: 'mx1.mx.test', preference: 10 },
        { exchange: 'mx2.mx.test', preference: 20 },
      ],
    });
    // MX records were found: the domain's own addresses are none of our business.
    expect(queriesFor('mx.test')).toEqual(['MX']);
  });

  it('orders equal preferences by name and keeps the lowest preference of a host listed twice', async () => {
    expect(await resolver.resolveMailHosts('ties.test', live())).toEqual({
      kind: 'mx',
      hosts: [
        { exchange: 'a.ties.test', preference: 5 },
        { exchange: 'b.ties.test', preference: 10 },
        { exchange: 'c.ties.test', preference: 10 },
      ],
    });
  });

  it('accepts the domain in any case and with a trailing dot', async () => {
    const before = dns.queries.length;
    expect(await resolver.resolveMailHosts('MX.Test.', live())).toEqual({
      kind: 'mx',
      hosts: [
        { exchange: 'mx1.mx.test', preference: 10 },
        { exchange: 'mx2.mx.test', preference: 20 },
      ],
    });
    expect(dns.queries.slice(before)).toEqual([{ name: 'mx.test', type: 'MX' }]);
  });

  it('reports a null MX (RFC 7505) and ignores the address the domain also has', async () => {
    expect(await resolver.resolveMailHosts('nullmx.test', live())).toEqual({ kind: 'null_mx' });
    expect(queriesFor('nullmx.test')).toEqual(['MX']);
  });

  it('treats a null MX mixed with other MX records as null MX', async () => {
    expect(await resolver.resolveMailHosts('mixed-null.test', live())).toEqual({ kind: 'null_mx' });
  });

  it('uses the implicit MX (RFC 5321 §5.1) when there is no MX but an A record', async () => {
    expect(await resolver.resolveMailHosts('implicit.test', live())).toEqual({
      kind: 'implicit',
      hosts: [{ exchange: 'implicit.test', preference: 0 }],
    });
  });

  it('uses the implicit MX when there is no MX and only an AAAA record', async () => {
    expect(await resolver.resolveMailHosts('Implicit6.Test.', live())).toEqual({
      kind: 'implicit',
      hosts: [{ exchange: 'implicit6.test', preference: 0 }],
    });
  });

  it('reports no mail server when there is no MX, no A and no AAAA', async () => {
    expect(await resolver.resolveMailHosts('nothing.test', live())).toEqual({ kind: 'no_mail_server' });
    expect(queriesFor('nothing.test').sort()).toEqual(['A', 'AAAA', 'MX']);
  });

  it('reports no mail server for a domain that does not exist (NXDOMAIN)', async () => {
    expect(await resolver.resolveMailHosts('nxdomain.test', live())).toEqual({ kind: 'no_mail_server' });
  });

  it('still finds the implicit MX when a broken server answers NXDOMAIN to the MX query only', async () => {
    expect(await resolver.resolveMailHosts('nx-for-mx.test', live())).toEqual({
      kind: 'implicit',
      hosts: [{ exchange: 'nx-for-mx.test', preference: 0 }],
    });
  });

  it('reports SERVFAIL as a DNS error, not as a domain without mail server', async () => {
    expect(await resolver.resolveMailHosts('servfail.test', live())).toEqual({
      kind: 'dns_error',
      code: 'ESERVFAIL',
    });
  });

  it('reports a DNS error when there is no MX and either address lookup fails', async () => {
    for (const domain of ['a-servfail.test', 'aaaa-servfail.test']) {
      expect(await resolver.resolveMailHosts(domain, live())).toEqual({
        kind: 'dns_error',
        code: 'ESERVFAIL',
      });
    }
  });

  it('gives up on a server that never answers within timeoutMs', async () => {
    const { value, ms } = await elapsed(() => resolver.resolveMailHosts('slow.test', live()));
    expect(value).toEqual({ kind: 'dns_error', code: 'ETIMEOUT' });
    // One try of one query: not c-ares' default of 4 tries × 5 s.
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS * 0.9);
    expect(ms).toBeLessThan(TIMEOUT_MS + 200);
  });

  it('keeps to timeoutMs where the c-ares timeout alone would overrun it', async () => {
    // Node checks c-ares timeouts on a timer ticking every min(timeout, 1 s): a 1.2 s timeout is
    // only noticed at the 2 s tick. The resolver's own deadline must end the query at 1.2 s.
    const timeoutMs = 1_200;
    const ticking = new MxResolver({ servers: [dns.address], timeoutMs });
    const { value, ms } = await elapsed(() => ticking.resolveMailHosts('slow.test', live()));
    expect(value).toEqual({ kind: 'dns_error', code: 'ETIMEOUT' });
    expect(ms).toBeGreaterThanOrEqual(timeoutMs * 0.9);
    expect(ms).toBeLessThan(timeoutMs + 300);
  });

  it('moves on to the next configured server when the first one is unreachable', async () => {
    const failover = new MxResolver({
      servers: [await closedDnsAddress(), dns.address],
      timeoutMs: TIMEOUT_MS,
    });
    expect(await failover.resolveMailHosts('nullmx.test', live())).toEqual({ kind: 'null_mx' });
  });

  it('reports a DNS server where nothing listens as a DNS error', async () => {
    const unreachable = new MxResolver({ servers: [await closedDnsAddress()], timeoutMs: TIMEOUT_MS });
    expect(await unreachable.resolveMailHosts('mx.test', live())).toEqual({
      kind: 'dns_error',
      code: 'ECONNREFUSED',
    });
  });

  it('reports an empty domain as a bad name without sending a query', async () => {
    const before = dns.queries.length;
    expect(await resolver.resolveMailHosts(' . ', live())).toEqual({ kind: 'dns_error', code: 'EBADNAME' });
    expect(dns.queries.length).toBe(before);
  });

  it('sees a changed zone on the next lookup: nothing is cached between calls', async () => {
    const own = await startDnsServer({ 'moving.test': { mx: [[10, 'old.moving.test']] } });
    try {
      const moving = new MxResolver({ servers: [own.address], timeoutMs: TIMEOUT_MS });
      expect(await moving.resolveMailHosts('moving.test', live())).toEqual({
        kind: 'mx',
        hosts: [{ exchange: 'old.moving.test', preference: 10 }],
      });
      own.setZone({ 'moving.test': { mx: [[0, '.']] } });
      expect(await moving.resolveMailHosts('moving.test', live())).toEqual({ kind: 'null_mx' });
      expect(own.queries).toEqual([
        { name: 'moving.test', type: 'MX' },
        { name: 'moving.test', type: 'MX' },
      ]);
    } finally {
      await own.close();
    }
  });
});

describe('resolveAddresses', () => {
  it('returns the IPv4 then the IPv6 addresses of a mail host, without duplicates', async () => {
    expect(await resolver.resolveAddresses('Hosts.Test.', live())).toEqual([
      '192.0.2.10',
      '192.0.2.11',
      '2001:db8::10',
      '2001:db8::11',
    ]);
  });

  it('returns an empty list for a host without addresses or that does not exist', async () => {
    expect(await resolver.resolveAddresses('nothing.test', live())).toEqual([]);
    expect(await resolver.resolveAddresses('nxdomain.test', live())).toEqual([]);
  });

  it('throws a DnsLookupError when one family fails and the other has no address', async () => {
    await expect(resolver.resolveAddresses('aaaa-servfail.test', live())).rejects.toMatchObject({
      name: 'DnsLookupError',
      code: 'ESERVFAIL',
    });
  });

  it('keeps the addresses of one family when the other family fails', async () => {
    expect(await resolver.resolveAddresses('broken-aaaa.test', live())).toEqual(['192.0.2.30']);
  });

  it('throws a DnsLookupError with the code and the resolver error as cause on SERVFAIL', async () => {
    const error = await resolver.resolveAddresses('servfail.test', live()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DnsLookupError);
    expect(error).toMatchObject({ name: 'DnsLookupError', code: 'ESERVFAIL', host: 'servfail.test' });
    expect((error as DnsLookupError).cause).toMatchObject({ code: 'ESERVFAIL' });
  });

  it('throws a DnsLookupError on a timeout and on an unreachable server', async () => {
    await expect(resolver.resolveAddresses('slow.test', live())).rejects.toMatchObject({
      name: 'DnsLookupError',
      code: 'ETIMEOUT',
    });
    const unreachable = new MxResolver({ servers: [await closedDnsAddress()], timeoutMs: TIMEOUT_MS });
    await expect(unreachable.resolveAddresses('hosts.test', live())).rejects.toMatchObject({
      name: 'DnsLookupError',
      code: 'ECONNREFUSED',
    });
  });
});

describe('cancellation', () => {
  it('rejects with the abort reason and sends no query when the signal is already aborted', async () => {
    const reason = new Error('the lookup deadline passed');
    const before = dns.queries.length;
    await expect(resolver.resolveMailHosts('mx.test', AbortSignal.abort(reason))).rejects.toBe(reason);
    await expect(resolver.resolveAddresses('hosts.test', AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(dns.queries.length).toBe(before);
  });

  it('cancels an in-flight lookup as soon as the signal aborts, long before the query timeout', async () => {
    const patient = new MxResolver({ servers: [dns.address], timeoutMs: 10_000 });
    const reason = new Error('the client went away');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 50);
    const started = performance.now();
    await expect(patient.resolveMailHosts('slow.test', controller.signal)).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('cancels an in-flight address lookup with the abort reason, not a DnsLookupError', async () => {
    const patient = new MxResolver({ servers: [dns.address], timeoutMs: 10_000 });
    const reason = new Error('deadline');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 50);
    await expect(patient.resolveAddresses('slow.test', controller.signal)).rejects.toBe(reason);
  });

  it('cancels only the aborted call, not other lookups running on the same resolver', async () => {
    const reason = new Error('this one only');
    const controller = new AbortController();
    const aborted = resolver.resolveMailHosts('slow.test', controller.signal);
    const other = resolver.resolveMailHosts('slow.test', live());
    setTimeout(() => controller.abort(reason), 50);
    await expect(aborted).rejects.toBe(reason);
    // Cancelled along with it, it would have ended at once with ECANCELLED or the reason.
    expect(await other).toEqual({ kind: 'dns_error', code: 'ETIMEOUT' });
  });
});

describe('configuration', () => {
  it('refuses a malformed server address and a non-positive or fractional timeout at construction', () => {
    expect(() => new MxResolver({ servers: ['not an address'] })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_IP_ADDRESS' }),
    );
    expect(() => new MxResolver({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => new MxResolver({ timeoutMs: 1.5 })).toThrow(RangeError);
  });

  it('takes an empty server list (an empty DNS_SERVERS) as the system resolver, not as an error', () => {
    expect(() => new MxResolver({ servers: [] })).not.toThrow();
  });
});
