/**
 * The address policy as a table (DESIGN §7.10): every special-purpose range with the addresses on both
 * sides of each boundary and the reason each row is denied, the URL spellings Chromium and Node accept
 * for loopback and metadata, the test bypass, and properties checked against ipaddr.js's own range
 * tables and the WHATWG URL parser so a range or a spelling this table forgets still fails a test.
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import {
  type AddressDenyReason,
  classifyAddress,
  classifyDestination,
  classifyDial,
  type DestinationDecision,
  parseAllowHosts,
} from '../../shared/net/address-policy.js';

type Expected = 'allowed' | AddressDenyReason;

const outcome = (address: string): Expected => {
  const decision = classifyAddress(address);
  return decision.allowed ? 'allowed' : decision.reason;
};

describe('classifyAddress: IPv4 boundaries', () => {
  it.each<[string, Expected]>([
    ['0.0.0.0', 'unspecified'],
    ['0.0.0.1', 'reserved'], // 0/8 "this network" is a source address only
    ['0.255.255.255', 'reserved'],
    ['1.0.0.0', 'allowed'],
    ['1.1.1.1', 'allowed'],
    ['8.8.8.8', 'allowed'],
    ['9.255.255.255', 'allowed'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'allowed'],
    ['100.63.255.255', 'allowed'],
    ['100.64.0.0', 'cgnat'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.0', 'allowed'],
    ['126.255.255.255', 'allowed'],
    ['127.0.0.0', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['128.0.0.0', 'allowed'],
    ['169.253.255.255', 'allowed'],
    ['169.254.0.0', 'link_local'],
    ['169.254.169.254', 'link_local'], // cloud metadata
    ['169.254.255.255', 'link_local'],
    ['169.255.0.0', 'allowed'],
    ['172.15.255.255', 'allowed'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'allowed'],
    ['191.255.255.255', 'allowed'],
    ['192.0.0.0', 'protocol_assignments'],
    ['192.0.0.255', 'protocol_assignments'],
    ['192.0.1.0', 'allowed'],
    ['192.0.2.0', 'documentation'],
    ['192.0.2.1', 'documentation'],
    ['192.0.2.255', 'documentation'],
    ['192.0.3.0', 'allowed'],
    ['192.31.195.255', 'allowed'],
    ['192.31.196.0', 'as112'],
    ['192.31.196.255', 'as112'],
    ['192.31.197.0', 'allowed'],
    ['192.52.192.255', 'allowed'],
    ['192.52.193.0', 'amt'],
    ['192.52.193.255', 'amt'],
    ['192.52.194.0', 'allowed'],
    ['192.88.98.255', 'allowed'],
    ['192.88.99.0', '6to4'],
    ['192.88.99.255', '6to4'],
    ['192.88.100.0', 'allowed'],
    ['192.167.255.255', 'allowed'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'allowed'],
    ['192.175.47.255', 'allowed'],
    ['192.175.48.0', 'as112'],
    ['192.175.48.255', 'as112'],
    ['192.175.49.0', 'allowed'],
    ['198.17.255.255', 'allowed'],
    ['198.18.0.0', 'benchmarking'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.20.0.0', 'allowed'],
    ['198.51.99.255', 'allowed'],
    ['198.51.100.0', 'documentation'],
    ['198.51.100.255', 'documentation'],
    ['198.51.101.0', 'allowed'],
    ['203.0.112.255', 'allowed'],
    ['203.0.113.0', 'documentation'],
    ['203.0.113.255', 'documentation'],
    ['203.0.114.0', 'allowed'],
    ['223.255.255.255', 'allowed'],
    ['224.0.0.0', 'multicast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('%s is %s', (address, expected) => {
    expect(outcome(address)).toBe(expected);
  });
});

describe('classifyAddress: IPv6 boundaries', () => {
  it.each<[string, Expected]>([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::2', 'ipv4_compatible'],
    ['::127.0.0.1', 'ipv4_compatible'], // ::7f00:1, not ::ffff:127.0.0.1 as ipaddr.js would read it
    ['::8.8.8.8', 'ipv4_compatible'], // a real IPv6 destination (::808:808), never dialled as 8.8.8.8
    ['::ffff:ffff', 'ipv4_compatible'],
    ['::1:0:0', 'not_global_unicast'], // just above ::/96
    ['::ffff:0:0:0', 'ipv4_translated'],
    ['::ffff:0:7f00:1', 'ipv4_translated'],
    ['::ffff:0:ffff:ffff', 'ipv4_translated'],
    ['64:ff9b::', 'nat64'],
    ['64:ff9b::7f00:1', 'nat64'], // a NAT64 gateway would deliver this to 127.0.0.1
    ['64:ff9b::808:808', 'nat64'], // even to a public IPv4 address: we never classified what it reaches
    ['64:ff9b::ffff:ffff', 'nat64'],
    ['64:ff9b::1:0:0', 'not_global_unicast'], // just above 64:ff9b::/96
    ['64:ff9b:1::', 'nat64'],
    ['64:ff9b:1::1', 'nat64'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'nat64'],
    ['100::', 'discard'],
    ['100::ffff:ffff:ffff:ffff', 'discard'],
    ['100:0:0:1::', 'not_global_unicast'], // RFC 9780 dummy prefix, outside 2000::/3
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not_global_unicast'],
    ['2000::', 'allowed'],
    ['2001::', 'teredo'],
    ['2001:0:4136:e378::1', 'teredo'],
    ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'teredo'],
    ['2001:1::', 'protocol_assignments'],
    ['2001:1::1', 'protocol_assignments'],
    ['2001:2::', 'benchmarking'],
    ['2001:2:0:ffff:ffff:ffff:ffff:ffff', 'benchmarking'],
    ['2001:2:1::', 'protocol_assignments'],
    ['2001:3::', 'amt'],
    ['2001:3:ffff:ffff:ffff:ffff:ffff:ffff', 'amt'],
    ['2001:4:112::', 'as112'],
    ['2001:4:112:ffff:ffff:ffff:ffff:ffff', 'as112'],
    ['2001:4:113::', 'protocol_assignments'],
    ['2001:10::', 'orchid'],
    ['2001:1f:ffff:ffff:ffff:ffff:ffff:ffff', 'orchid'],
    ['2001:20::', 'orchid'],
    ['2001:2f:ffff:ffff:ffff:ffff:ffff:ffff', 'orchid'],
    ['2001:30::', 'drone_remote_id'],
    ['2001:3f:ffff:ffff:ffff:ffff:ffff:ffff', 'drone_remote_id'],
    ['2001:40::', 'protocol_assignments'],
    ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'protocol_assignments'],
    ['2001:200::', 'allowed'],
    ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', 'allowed'],
    ['2001:db8::', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
    ['2001:db9::', 'allowed'],
    ['2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'allowed'],
    ['2002::', '6to4'],
    ['2002:7f00:1::1', '6to4'],
    ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '6to4'],
    ['2003::', 'allowed'],
    ['2606:4700:4700::1111', 'allowed'],
    ['2620:4f:7fff:ffff:ffff:ffff:ffff:ffff', 'allowed'],
    ['2620:4f:8000::', 'as112'],
    ['2620:4f:8000:ffff:ffff:ffff:ffff:ffff', 'as112'],
    ['2620:4f:8001::', 'allowed'],
    ['2a00:1450::1', 'allowed'],
    ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'allowed'],
    ['3fff::', 'documentation'],
    ['3fff::1', 'documentation'], // RFC 9637
    ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
    ['3fff:1000::', 'allowed'],
    ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'allowed'],
    ['4000::', 'not_global_unicast'],
    ['4000::1', 'not_global_unicast'],
    ['5f00::1', 'segment_routing'],
    ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not_global_unicast'],
    ['fc00::', 'unique_local'],
    ['fc00::1', 'unique_local'],
    ['fd00:ec2::254', 'unique_local'], // EC2 metadata over IPv6
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique_local'],
    ['fe00::', 'not_global_unicast'],
    ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not_global_unicast'],
    ['fe80::', 'link_local'],
    ['fe80::1', 'link_local'],
    ['FE80::1', 'link_local'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link_local'],
    ['fec0::', 'site_local'],
    ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'site_local'],
    ['ff00::', 'multicast'],
    ['ff02::1', 'multicast'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
  ])('%s is %s', (address, expected) => {
    expect(outcome(address)).toBe(expected);
  });
});

describe('classifyAddress: IPv4-mapped IPv6 is judged as the IPv4 address inside', () => {
  it.each<[string, Expected]>([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'], // the hex spelling the URL parser produces
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['::FFFF:7F00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:100.64.0.1', 'cgnat'],
    ['::ffff:255.255.255.255', 'broadcast'],
    ['::ffff:8.8.8.8', 'allowed'],
  ])('%s is %s', (address, expected) => {
    expect(outcome(address)).toBe(expected);
  });
});

describe('classifyAddress: only canonical spellings are parsed', () => {
  it.each<[string, string]>([
    ['', 'empty'],
    ['example.com', 'a name'],
    ['2130706433', 'decimal IPv4'],
    ['127.1', 'short IPv4'],
    ['0x7f.0.0.1', 'hex IPv4'],
    ['010.0.0.1', 'leading zero (octal to ipaddr.js, decimal elsewhere)'],
    ['1.2.3.256', 'octet out of range'],
    [' 8.8.8.8', 'surrounding space'],
    ['[::1]', 'brackets'],
    ['fe80::1%eth0', 'zone id'],
    ['00001::', 'five hex digits in a group'],
    ['1:2:3:4:5:6:7:8:9', 'nine groups'],
    ['1::2::3', 'two ::'],
    ['::ffff:127.1', 'short IPv4 inside IPv6'],
    ['::ffff:010.0.0.1', 'leading zero inside IPv6'],
    ['::ffff:0x7f.0.0.1', 'hex inside IPv6'],
  ])('%j (%s) is invalid_address', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, reason: 'invalid_address', address });
  });
});

describe('classifyAddress: the address returned is the normalized one to dial', () => {
  it.each([
    ['::ffff:8.8.8.8', '8.8.8.8'],
    ['::FFFF:808:808', '8.8.8.8'],
    ['2606:4700:4700:0:0:0:0:1111', '2606:4700:4700::1111'],
    ['2A00:1450:0::1', '2a00:1450::1'],
    ['::127.0.0.1', '::7f00:1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
  ])('%s is reported as %s', (address, normalized) => {
    expect(classifyAddress(address).address).toBe(normalized);
  });
});

describe('classifyAddress against ipaddr.js range tables', () => {
  type RangeTable = Record<
    string,
    [ipaddr.IPv4 | ipaddr.IPv6, number] | [ipaddr.IPv4 | ipaddr.IPv6, number][]
  >;
  const tableOf = (kind: typeof ipaddr.IPv4 | typeof ipaddr.IPv6) =>
    (kind.prototype as unknown as { SpecialRanges: RangeTable }).SpecialRanges;
  const rows = [tableOf(ipaddr.IPv4), tableOf(ipaddr.IPv6)].flatMap((ranges) =>
    Object.entries(ranges).flatMap(([name, entry]) => {
      // ipaddr.js writes a single range as [address, bits] and several as [[address, bits], …].
      const list = (Array.isArray(entry[0]) ? entry : [entry]) as [ipaddr.IPv4 | ipaddr.IPv6, number][];
      return list.map(([network, bits]) => {
        const cidr = `${network.toString()}/${bits}`;
        const kind = network.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
        return [
          name,
          cidr,
          kind.networkAddressFromCIDR(cidr).toString(),
          kind.broadcastAddressFromCIDR(cidr).toString(),
        ] as const;
      });
    }),
  );

  it('reads a non-empty table from ipaddr.js (so the rows below are not vacuous)', () => {
    expect(rows.length).toBeGreaterThan(30);
  });

  it.each(rows)('%s %s: first %s and last %s are denied with a reason of our own', (_, __, first, last) => {
    for (const address of [first, last]) {
      const decision = classifyAddress(address);
      expect(decision.allowed, address).toBe(false);
      // special_purpose is the fallback for ranges our table does not know: none may reach it today.
      expect(decision.allowed ? undefined : decision.reason, address).not.toBe('special_purpose');
    }
  });

  it('allows an IPv4 address only when ipaddr.js calls it unicast, and judges its mapped form the same', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        const decision = classifyAddress(address);
        if (decision.allowed) expect(ipaddr.IPv4.parse(address).range()).toBe('unicast');
        expect(classifyAddress(`::ffff:${address}`)).toEqual(decision);
      }),
      { numRuns: 5000 },
    );
  });

  it('allows an IPv6 address only inside 2000::/3 and when ipaddr.js calls it unicast', () => {
    const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const decision = classifyAddress(address);
        expect(decision.allowed || decision.reason !== 'invalid_address').toBe(true);
        if (!decision.allowed) return;
        // The normalized form is all-hex (or unwrapped IPv4), which ipaddr.js reads unambiguously.
        const parsed = ipaddr.parse(decision.address);
        expect(parsed.range()).toBe('unicast');
        if (parsed.kind() === 'ipv6') expect(parsed.match(globalUnicast)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('reads every IPv6 spelling as the WHATWG URL parser (and so Chromium) does', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const viaUrl = new URL(`http://[${address}]/`).hostname.slice(1, -1);
        expect(classifyAddress(address)).toEqual(classifyAddress(viaUrl));
      }),
      { numRuns: 5000 },
    );
  });

  it('returns a decision, never throws, for any string', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(typeof classifyAddress(text).allowed).toBe('boolean');
      }),
    );
  });
});

const allowed = (host: string, port: number, literal: boolean): DestinationDecision => ({
  allowed: true,
  host,
  port,
  literal,
});

describe('classifyDestination', () => {
  it.each<[string, string, string | DestinationDecision]>([
    ['loopback', 'http://127.0.0.1/', 'loopback'],
    ['loopback (decimal spelling)', 'http://2130706433/', 'loopback'],
    ['loopback (hex spelling)', 'http://0x7f.1/', 'loopback'],
    ['loopback (octal spelling)', 'http://0177.0.0.1/', 'loopback'],
    ['loopback (IPv4-mapped)', 'http://[::ffff:127.0.0.1]/', 'loopback'],
    ['loopback (IPv6)', 'http://[::1]/', 'loopback'],
    ['unspecified', 'http://0.0.0.0/', 'unspecified'],
    ['link_local (cloud metadata)', 'http://169.254.169.254/latest/meta-data', 'link_local'],
    ['unique_local (EC2 IPv6 metadata)', 'http://[fd00:ec2::254]/', 'unique_local'],
    ['cgnat', 'http://100.64.0.1/', 'cgnat'],
    ['private', 'https://172.16.0.1/', 'private'],
    ['nat64', 'http://[64:ff9b::127.0.0.1]/', 'nat64'],
    ['scheme (file)', 'file:///etc/passwd', 'scheme'],
    ['scheme (ftp)', 'ftp://example.com/', 'scheme'],
    ['scheme (javascript)', 'javascript:alert(1)', 'scheme'],
    ['scheme (websocket)', 'ws://example.com/', 'scheme'],
    ['scheme (data)', 'data:text/html,hi', 'scheme'],
    ['credentials (user and password)', 'http://user:pass@example.com/', 'credentials'],
    ['credentials (user only)', 'http://user@example.com/', 'credentials'],
    ['credentials (password only)', 'http://:pass@example.com/', 'credentials'],
    ['port (8080)', 'http://example.com:8080/', 'port'],
    ['port (443 on http)', 'http://example.com:443/', 'port'],
    ['port (80 on https)', 'https://example.com:80/', 'port'],
    ['port (checked before the name)', 'http://localhost:8080/', 'port'],
    ['loopback_name (localhost)', 'http://localhost/', 'loopback_name'],
    ['loopback_name (upper case, trailing dot)', 'http://LOCALHOST./', 'loopback_name'],
    ['loopback_name (*.localhost)', 'http://api.localhost/', 'loopback_name'],
    ['allowed (explicit :443 on https)', 'https://example.com:443/', allowed('example.com', 443, false)],
    ['allowed (explicit :80 on http)', 'http://example.com:80/path', allowed('example.com', 80, false)],
    ['allowed (name, lower-cased)', 'http://EXAMPLE.com/', allowed('example.com', 80, false)],
    [
      'allowed (a name ending in localhost is not localhost)',
      'http://notlocalhost/',
      allowed('notlocalhost', 80, false),
    ],
    [
      'allowed (localhost as a subdomain label of a real name)',
      'https://localhost.example.com/',
      allowed('localhost.example.com', 443, false),
    ],
    ['allowed (public IPv4 literal)', 'http://8.8.8.8/', allowed('8.8.8.8', 80, true)],
    [
      'allowed (public IPv6 literal, without brackets)',
      'https://[2606:4700:4700::1111]/',
      allowed('2606:4700:4700::1111', 443, true),
    ],
    ['allowed (mapped public IPv4, unwrapped)', 'http://[::ffff:8.8.8.8]/', allowed('8.8.8.8', 80, true)],
  ])('%s: %s', (_, url, expected) => {
    const decision = classifyDestination(new URL(url));
    if (typeof expected === 'string') {
      expect(decision).toMatchObject({ allowed: false, reason: expected });
    } else {
      expect(decision).toEqual(expected);
    }
  });

  it('allows a name at this stage: the egress proxy refuses it if it resolves to a non-public address', () => {
    expect(classifyDestination(new URL('http://internal.example/'))).toEqual(
      allowed('internal.example', 80, false),
    );
  });

  it('reports the normalized address it refused, for the log', () => {
    expect(classifyDestination(new URL('http://[::ffff:127.0.0.1]/'))).toEqual({
      allowed: false,
      reason: 'loopback',
      host: '127.0.0.1',
    });
  });
});

describe('classifyDestination with allowHosts', () => {
  const allowHosts = parseAllowHosts('127.0.0.1:8080,[::1]:8081,localhost:3000');

  it.each<[string, string, string | DestinationDecision]>([
    ['allowed (listed pair)', 'http://127.0.0.1:8080/', allowed('127.0.0.1', 8080, true)],
    ['allowed (listed pair, another spelling)', 'http://2130706433:8080/', allowed('127.0.0.1', 8080, true)],
    ['allowed (listed IPv6 pair)', 'http://[::1]:8081/', allowed('::1', 8081, true)],
    ['allowed (listed IPv6 pair, uncompressed)', 'http://[0:0:0::1]:8081/', allowed('::1', 8081, true)],
    ['allowed (listed name)', 'http://localhost:3000/', allowed('localhost', 3000, false)],
    ['port (same host, unlisted port)', 'http://127.0.0.1:8081/', 'port'],
    ['loopback (same host, default port is not listed)', 'http://127.0.0.1/', 'loopback'],
    ['port (listed port on another host)', 'http://127.0.0.2:8080/', 'port'],
    ['credentials (never waived)', 'http://user:pass@127.0.0.1:8080/', 'credentials'],
    ['scheme (never waived)', 'ftp://127.0.0.1:8080/', 'scheme'],
  ])('%s: %s', (_, url, expected) => {
    const decision = classifyDestination(new URL(url), { allowHosts });
    if (typeof expected === 'string') {
      expect(decision).toMatchObject({ allowed: false, reason: expected });
    } else {
      expect(decision).toEqual(expected);
    }
  });
});

describe('classifyDial', () => {
  const none = parseAllowHosts(undefined);

  it.each<[string, string, number, string, ReadonlySet<string>, Expected]>([
    [
      'allowed (the address pair is listed)',
      '127.0.0.1',
      8080,
      'localhost',
      parseAllowHosts('127.0.0.1:8080'),
      'allowed',
    ],
    [
      'loopback (the port is not listed)',
      '127.0.0.1',
      8081,
      'localhost',
      parseAllowHosts('127.0.0.1:8080'),
      'loopback',
    ],
    [
      'allowed (the resolved name pair is listed)',
      '127.0.0.1',
      2525,
      'mx.test',
      parseAllowHosts('mx.test:2525'),
      'allowed',
    ],
    [
      'loopback (another name resolving to the same address)',
      '127.0.0.1',
      2525,
      'rebind.example',
      parseAllowHosts('mx.test:2525'),
      'loopback',
    ],
    [
      'allowed (IPv6 pair listed in brackets)',
      '::1',
      8081,
      'x.test',
      parseAllowHosts('[::1]:8081'),
      'allowed',
    ],
    [
      'allowed (a mapped address matches its IPv4 pair)',
      '::ffff:127.0.0.1',
      8080,
      'x.test',
      parseAllowHosts('127.0.0.1:8080'),
      'allowed',
    ],
    ['private (an MX pointing into our network)', '10.0.0.1', 25, 'mx.evil.example', none, 'private'],
    ['loopback (an MX pointing at ourselves)', '127.0.0.1', 25, 'mx.evil.example', none, 'loopback'],
    ['documentation', '2001:db8::1', 443, 'example.com', none, 'documentation'],
    ['allowed (a public address)', '8.8.8.8', 25, 'mx.example.com', none, 'allowed'],
    [
      'invalid_address (a listed name does not make a non-address dialable)',
      'localhost',
      3000,
      'localhost',
      parseAllowHosts('localhost:3000'),
      'invalid_address',
    ],
  ])('%s: %s:%i for %s', (_, address, port, hostName, allowHosts, expected) => {
    const decision = classifyDial(address, port, hostName, allowHosts);
    expect(decision.allowed ? 'allowed' : decision.reason).toBe(expected);
  });

  it('returns the normalized address to dial when a listed pair lets it through', () => {
    expect(classifyDial('::ffff:127.0.0.1', 8080, 'x.test', parseAllowHosts('127.0.0.1:8080'))).toEqual({
      allowed: true,
      address: '127.0.0.1',
    });
  });
});

describe('parseAllowHosts', () => {
  it.each<[string, string | undefined, string[]]>([
    ['unset is empty', undefined, []],
    ['blank is empty', '  ', []],
    [
      'trims, lower-cases and ignores empty entries',
      ' 127.0.0.1:8080 , [::1]:8081 ,LOCALHOST:3000,',
      ['127.0.0.1:8080', '[::1]:8081', 'localhost:3000'],
    ],
    ['compresses an IPv6 address as URLs do', '[0:0:0:0:0:0:0:1]:8080', ['[::1]:8080']],
    ['keys a mapped address by its IPv4 address', '[::ffff:127.0.0.1]:8080', ['127.0.0.1:8080']],
    ['reads a port with a leading zero as the number', 'localhost:08080', ['localhost:8080']],
  ])('%s', (_, value, expected) => {
    expect([...parseAllowHosts(value)]).toEqual(expected);
  });

  it.each<[string, string]>([
    ['127.0.0.1', 'has no port'],
    [':8080', 'has no host'],
    ['127.0.0.1:0', 'has no port from 1 to 65535'],
    ['127.0.0.1:65536', 'has no port from 1 to 65535'],
    ['127.0.0.1:http', 'has no port from 1 to 65535'],
    ['*.example.com:443', 'has a wildcard'],
    ['*:8080', 'has a wildcard'],
    ['10.0.0.0/8:8080', 'is a CIDR range'],
    ['::1:8080', 'has an IPv6 address without brackets'],
    ['[::1]', 'has no port from 1 to 65535'],
    ['[not-v6]:8080', 'has an invalid IPv6 address'],
    ['[fe80::1%eth0]:8080', 'has an invalid IPv6 address'],
    ['127.1:8080', 'has a host a URL spells "127.0.0.1"'],
    ['user@host:8080', 'has a host a URL spells "host"'],
    ['bad host:8080', 'has an invalid host'],
  ])('rejects %j: %s', (entry, why) => {
    expect(() => parseAllowHosts(`127.0.0.1:9000,${entry}`)).toThrow(`allow-hosts entry "${entry}" ${why}`);
  });
});
