/**
 * Which network destinations this service may connect to: the one policy behind the website egress
 * guard (a fetched page must not reach our own network or the cloud metadata service) and the email
 * verifier's MX guard (one DNS record must not turn SMTP probing into a port-25 scanner of our network).
 *
 * The policy is "global unicast only", written as an allow-list rather than a list of bad ranges:
 * - IPv4 is allowed only when no special-purpose range below matches AND ipaddr.js also calls it
 *   `unicast`; IPv6 additionally has to sit inside 2000::/3, the only block IANA allocates for global
 *   unicast. A range either table forgets is therefore still refused (reason `special_purpose` or
 *   `not_global_unicast`), never allowed by omission.
 * - Ranges that carry or reach IPv4 (NAT64, 6to4, Teredo, SIIT, IPv4-compatible) are refused outright:
 *   a gateway would deliver them to an IPv4 address we never classified, possibly 127.0.0.1.
 * - IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is unwrapped first and judged as the IPv4 address it is, so
 *   `::ffff:127.0.0.1` is loopback, and an allowed one is returned as the plain IPv4 address.
 *
 * Classify parsed addresses, never strings. The same address has many spellings (`2130706433`,
 * `0x7f.1`, `[::ffff:7f00:1]`), and parsers disagree on the odd ones: ipaddr.js reads `010.0.0.1` as
 * octal but `::ffff:010.0.0.1` as decimal, and reads `::127.0.0.1` (IPv4-compatible, ::7f00:1) as
 * IPv4-mapped, so a resolver answer `::8.8.8.8` would come out "allowed as 8.8.8.8" while the socket
 * would dial ::808:808. So this module accepts only the canonical forms a resolver or the WHATWG URL
 * parser produces (dotted decimal without leading zeros; RFC 4291 IPv6 with 1–4 hex digits per group,
 * no zone id), converts a trailing dotted quad itself, and returns the normalized address: the caller
 * dials exactly `decision.address`, the thing that was checked.
 *
 * Every outcome is a value with a reason (DESIGN §7.6); nothing here throws for a denial, does I/O or
 * logs. The callers log each denial with its reason. `parseAllowHosts` is the exception: it reads an
 * operator setting and throws so that a malformed UNSAFE_*_ALLOW_HOSTS fails start-up.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressDenyReason =
  /** Not a canonical IPv4 or IPv6 address (including any IPv6 zone id). */
  | 'invalid_address'
  /** 0.0.0.0 and ::, which connect() treats as "this host". */
  | 'unspecified'
  | 'loopback'
  /** RFC 1918: 10/8, 172.16/12, 192.168/16. */
  | 'private'
  /** RFC 6598 shared address space 100.64/10, used inside carriers and clouds. */
  | 'cgnat'
  /** 169.254/16 (where cloud metadata lives) and fe80::/10. */
  | 'link_local'
  /** fc00::/7, including fd00:ec2::254 (EC2 metadata over IPv6). */
  | 'unique_local'
  /** fec0::/10, deprecated by RFC 3879 but still routable inside old sites. */
  | 'site_local'
  | 'multicast'
  /** 255.255.255.255. */
  | 'broadcast'
  /** 0/8 ("this network", RFC 1122) and 240/4 (class E). */
  | 'reserved'
  /** 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20 (RFC 5737, 3849, 9637). */
  | 'documentation'
  /** 198.18/15 and 2001:2::/48 (RFC 2544, 5180). */
  | 'benchmarking'
  /** 192.0.0/24 and the rest of 2001::/23 (IANA "IETF Protocol Assignments"). */
  | 'protocol_assignments'
  /** 2002::/16 and the deprecated relay anycast 192.88.99/24 (RFC 3056, 7526). */
  | '6to4'
  /** 2001::/32 (RFC 4380). */
  | 'teredo'
  /** 64:ff9b::/96 and 64:ff9b:1::/48 (RFC 6052, 8215). */
  | 'nat64'
  /** ::ffff:0:0:0/96, SIIT (RFC 6145/7915). */
  | 'ipv4_translated'
  /** ::/96 apart from :: and ::1, deprecated by RFC 4291 §2.5.5.1. */
  | 'ipv4_compatible'
  /** 100::/64 (RFC 6666). */
  | 'discard'
  /** 192.31.196/24, 192.175.48/24, 2001:4:112::/48, 2620:4f:8000::/48 (RFC 7534, 7535). */
  | 'as112'
  /** 192.52.193/24 and 2001:3::/32 (RFC 7450). */
  | 'amt'
  /** 2001:10::/28 and 2001:20::/28 (RFC 4843, 7343): identifiers, not locators. */
  | 'orchid'
  /** 2001:30::/28 (RFC 9374): identifiers, not locators. */
  | 'drone_remote_id'
  /** 5f00::/16 SRv6 SIDs (RFC 9602). */
  | 'segment_routing'
  /** IPv6 outside 2000::/3 and no narrower reason applies (e.g. 4000::1). */
  | 'not_global_unicast'
  /** ipaddr.js names a range this module's table does not: refused until someone reviews it. */
  | 'special_purpose';

export type AddressDecision =
  | { readonly allowed: true; readonly address: string }
  | { readonly allowed: false; readonly reason: AddressDenyReason; readonly address: string };

export type DestinationDenyReason =
  /** Anything but `http:` and `https:` (file:, ftp:, javascript:, data:, ws:, …). */
  | 'scheme'
  /** A username or password in the URL. */
  | 'credentials'
  /** Any port but 80 for http and 443 for https. */
  | 'port'
  /** `localhost` and `*.localhost`, reserved for loopback by RFC 6761 §6.3. */
  | 'loopback_name'
  | AddressDenyReason;

export type DestinationDecision =
  | {
      readonly allowed: true;
      /** Where to connect: a host name to resolve, or a normalized address (IPv6 without brackets). */
      readonly host: string;
      readonly port: number;
      /** True when the URL named an address; false when the name still has to be resolved. */
      readonly literal: boolean;
    }
  | { readonly allowed: false; readonly reason: DestinationDenyReason; readonly host: string };

export interface DestinationOptions {
  /** Exact `host:port` keys from `parseAllowHosts`; empty (the default) in production. */
  readonly allowHosts?: ReadonlySet<string>;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

type RangeRows = ReadonlyArray<readonly [cidr: string, reason: AddressDenyReason]>;
type RangeTable<T extends Address> = ReadonlyArray<
  readonly [network: T, bits: number, reason: AddressDenyReason]
>;

// Ordered: the first match gives the reason, so a narrower range precedes the range containing it.
const ipv4Rows: RangeRows = [
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'protocol_assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.31.196.0/24', 'as112'],
  ['192.52.193.0/24', 'amt'],
  ['192.88.99.0/24', '6to4'],
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'as112'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

const ipv6Rows: RangeRows = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0:0/96', 'ipv4_translated'],
  ['::/96', 'ipv4_compatible'],
  ['64:ff9b::/96', 'nat64'],
  ['64:ff9b:1::/48', 'nat64'],
  ['100::/64', 'discard'],
  ['2001::/32', 'teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:3::/32', 'amt'],
  ['2001:4:112::/48', 'as112'],
  ['2001:10::/28', 'orchid'],
  ['2001:20::/28', 'orchid'],
  ['2001:30::/28', 'drone_remote_id'],
  ['2001::/23', 'protocol_assignments'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'as112'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment_routing'],
  ['fc00::/7', 'unique_local'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'site_local'],
  ['ff00::/8', 'multicast'],
];

/**
 * The tables above, parsed at the first classification rather than at import: every function loads
 * this module (the configuration parses UNSAFE_*_ALLOW_HOSTS with it) and most never classify an
 * address, while parsing the ranges took about 2 ms of each cold start (docs/benchmarks.md).
 */
function parseRanges() {
  return {
    ipv4: table((cidr) => ipaddr.IPv4.parseCIDR(cidr), ipv4Rows),
    ipv6: table((cidr) => ipaddr.IPv6.parseCIDR(cidr), ipv6Rows),
    globalUnicastV6: ipaddr.IPv6.parseCIDR('2000::/3'),
  };
}
let parsedRanges: ReturnType<typeof parseRanges> | undefined;
const ranges = () => (parsedRanges ??= parseRanges());

// A dotted quad at the end of an IPv6 address; `isIPv6` has already checked each octet strictly.
const trailingDottedQuad = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/;

/** The decision for one address, as a resolver or a parsed URL spells it. */
export function classifyAddress(address: string): AddressDecision {
  const parsed = parseAddress(address);
  if (parsed === undefined) return { allowed: false, reason: 'invalid_address', address };
  return classifyParsed(parsed);
}

/**
 * The decision for a website target before anything is resolved. A host name is allowed here; the
 * egress proxy resolves it once, classifies every answer with `classifyDial` and dials the address it
 * checked, so a name pointing at 127.0.0.1 is refused there. Only `localhost` and `*.localhost` are
 * refused by name, because RFC 6761 reserves them for loopback and some resolvers answer them locally.
 * Checks run scheme, credentials, allowHosts, port, name, address: allowHosts never waives the first two.
 */
export function classifyDestination(url: URL, options: DestinationOptions = {}): DestinationDecision {
  // WHATWG URL has already turned 2130706433, 0x7f.1, 0177.0.0.1 and full-width digits into dotted
  // decimal, lower-cased and punycoded names, and compressed IPv6 (hex, inside brackets).
  const bracketed = url.hostname.startsWith('[') && url.hostname.endsWith(']');
  const host = bracketed ? url.hostname.slice(1, -1) : url.hostname;
  const deny = (reason: DestinationDenyReason, where = host): DestinationDecision => ({
    allowed: false,
    reason,
    host: where,
  });

  if (url.protocol !== 'http:' && url.protocol !== 'https:') return deny('scheme');
  if (url.username !== '' || url.password !== '') return deny('credentials');

  const defaultPort = url.protocol === 'https:' ? 443 : 80;
  // The URL parser drops an explicit default port, so '' means 80 or 443 and anything else is not.
  const port = url.port === '' ? defaultPort : Number(url.port);
  const literal = bracketed || isIPv4(host);

  if (options.allowHosts?.has(hostPortKey(host, port))) {
    const parsed = literal ? parseAddress(host) : undefined;
    return { allowed: true, host: parsed ? formatAddress(parsed) : host, port, literal };
  }
  if (port !== defaultPort) return deny('port');

  if (!literal) {
    return isLocalhostName(host) ? deny('loopback_name') : { allowed: true, host, port, literal: false };
  }
  const decision = classifyAddress(host);
  return decision.allowed
    ? { allowed: true, host: decision.address, port, literal: true }
    : deny(decision.reason, decision.address);
}

/**
 * The check a dialer runs on an already-resolved address right before connecting (the egress proxy
 * for each DNS answer, the SMTP client for each MX address). The test bypass matches either the name
 * that was resolved or the address itself; the address must still be a valid one, since it is dialled.
 */
export function classifyDial(
  address: string,
  port: number,
  hostName: string,
  allowHosts: ReadonlySet<string>,
): AddressDecision {
  const parsed = parseAddress(address);
  if (parsed === undefined) return { allowed: false, reason: 'invalid_address', address };
  if (allowHosts.has(hostPortKey(hostName, port)) || allowHosts.has(hostPortKey(address, port))) {
    return { allowed: true, address: formatAddress(parsed) };
  }
  return classifyParsed(parsed);
}

/** Whether the URL's host and port (the scheme's default when none is written) are in `allowHosts`. */
export function isAllowListed(url: URL, allowHosts: ReadonlySet<string>): boolean {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return allowHosts.has(hostPortKey(url.hostname, port));
}

/**
 * Parses an UNSAFE_*_ALLOW_HOSTS value: comma-separated exact `host:port` pairs (IPv6 in brackets),
 * for tests against servers on loopback. No wildcards and no CIDR, so the bypass cannot grow past the
 * servers a test starts. Hosts must be written as a parsed URL spells them (`127.0.0.1`, not `127.1`),
 * otherwise the pair would silently never match. Empty entries (a trailing comma) are ignored.
 */
export function parseAllowHosts(value: string | undefined): ReadonlySet<string> {
  const pairs = new Set<string>();
  for (const raw of (value ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry !== '') pairs.add(parseAllowHost(entry));
  }
  return pairs;
}

function parseAllowHost(entry: string): string {
  const bad = (why: string) =>
    new Error(
      `allow-hosts entry "${entry}" ${why}: expected an exact host:port pair such as 127.0.0.1:8080 or [::1]:8080`,
    );
  if (entry.includes('*')) throw bad('has a wildcard');
  if (entry.includes('/')) throw bad('is a CIDR range or has a path');

  const colon = entry.lastIndexOf(':');
  if (colon < 0) throw bad('has no port');
  const host = entry.slice(0, colon);
  if (host === '') throw bad('has no host');
  const portText = entry.slice(colon + 1);
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65_535) throw bad('has no port from 1 to 65535');

  if (host.startsWith('[')) {
    const inner = host.endsWith(']') ? host.slice(1, -1) : '';
    if (!isIPv6(inner) || parseAddress(inner) === undefined) throw bad('has an invalid IPv6 address');
  } else if (host.includes(':')) {
    throw bad('has an IPv6 address without brackets');
  } else {
    // The URL parser is the spelling every request is matched in; reject anything it would rewrite
    // (127.1, 0x7f.1, user@host, host?query) rather than keep a pair that can never match.
    let canonical: string;
    try {
      canonical = new URL(`http://${host}/`).hostname;
    } catch {
      throw bad('has an invalid host');
    }
    if (canonical !== host) throw bad(`has a host a URL spells "${canonical}"`);
  }
  return hostPortKey(host, port);
}

/** The allow-list key for a host (name, address, or bracketed IPv6) and port, in one spelling. */
function hostPortKey(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const parsed = parseAddress(bare);
  if (parsed === undefined) return `${bare.toLowerCase()}:${port}`;
  const text = formatAddress(parsed);
  return parsed instanceof ipaddr.IPv6 ? `[${text}]:${port}` : `${text}:${port}`;
}

function isLocalhostName(host: string): boolean {
  const name = host.replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Strict parse: canonical text only, IPv4-mapped unwrapped. `node:net` decides validity (the inet_pton
 * grammar), ipaddr.js only ever sees plain dotted decimal or all-hex IPv6, where it cannot misread.
 */
function parseAddress(text: string): Address | undefined {
  if (isIPv4(text)) return ipaddr.IPv4.parse(text);
  // A zone id names a local interface; no resolver or URL produces one for a remote host.
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const hex = text.replace(
    trailingDottedQuad,
    (_, head: string, a: string, b: string, c: string, d: string) => {
      const group = (high: string, low: string) => ((Number(high) << 8) | Number(low)).toString(16);
      return `${head}${group(a, b)}:${group(c, d)}`;
    },
  );
  const v6 = ipaddr.IPv6.parse(hex);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

function formatAddress(address: Address): string {
  return address instanceof ipaddr.IPv6 ? address.toRFC5952String() : address.toString();
}

function classifyParsed(address: Address): AddressDecision {
  const text = formatAddress(address);
  const deny = (reason: AddressDenyReason): AddressDecision => ({ allowed: false, reason, address: text });

  const { ipv4, ipv6, globalUnicastV6 } = ranges();
  if (address instanceof ipaddr.IPv4) {
    const hit = ipv4.find(([network, bits]) => address.match(network, bits));
    if (hit) return deny(hit[2]);
  } else {
    const hit = ipv6.find(([network, bits]) => address.match(network, bits));
    if (hit) return deny(hit[2]);
    if (!address.match(globalUnicastV6)) return deny('not_global_unicast');
  }
  // Second opinion: whatever ipaddr.js knows as special (a newer version may add ranges) is refused too.
  if (address.range() !== 'unicast') return deny('special_purpose');
  return { allowed: true, address: text };
}

function table<T extends Address>(parseCIDR: (cidr: string) => [T, number], rows: RangeRows): RangeTable<T> {
  return rows.map(([cidr, reason]) => [...parseCIDR(cidr), reason] as const);
}
