/**
 * Throttles repeated authentication failures per client address, in process: after `limit` refused
 * credentials within a sliding window, the address is refused with 429 before anything is looked
 * up, until its oldest failure leaves the window. A flood of random well-formed keys then costs one
 * store read per `window / limit` instead of one per request. Each process (each Lambda
 * environment) counts on its own; on AWS the WAF rate-based rule in front of API Gateway is the
 * shared limit.
 */
import ipaddr from 'ipaddr.js';
import type { Clock } from '../clock.js';

export interface AuthFailureThrottleSettings {
  /** Failures per window before an address is refused; 0 turns the throttle off. */
  limit: number;
  windowMs: number;
  clock: Clock;
}

/** Addresses remembered at once; the least recently failing is forgotten first. */
const MAX_TRACKED_ADDRESSES = 10_000;
/** An IPv6 client usually holds a whole /64: counting each address apart would let it rotate. */
const IPV6_PREFIX_LENGTH = 64;

export class AuthFailureThrottle {
  /** Failure times per client key, oldest first, at most `limit` of them. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly settings: AuthFailureThrottleSettings) {}

  /** Seconds the address must wait, or undefined when it may try. */
  retryAfterSeconds(address: string | undefined): number | undefined {
    // Every request asks; parsing its address is only worth it once some address has failed.
    if (this.failures.size === 0) return undefined;
    const key = this.keyOf(address);
    const times = key === undefined ? undefined : this.failures.get(key);
    if (!times || times.length < this.settings.limit) return undefined;
    const freeAt = (times[0] as number) + this.settings.windowMs;
    const waitMs = freeAt - this.settings.clock.now();
    return waitMs > 0 ? Math.ceil(waitMs / 1_000) : undefined;
  }

  /** Counts a refused credential from the address. */
  recordFailure(address: string | undefined): void {
    const key = this.keyOf(address);
    if (key === undefined) return;
    const now = this.settings.clock.now();
    const times = (this.failures.get(key) ?? []).filter((at) => at > now - this.settings.windowMs);
    times.push(now);
    if (times.length > this.settings.limit) times.shift();
    // Re-inserted, so the Map's order is the order of last failure.
    this.failures.delete(key);
    this.failures.set(key, times);
    if (this.failures.size > MAX_TRACKED_ADDRESSES) {
      this.failures.delete(this.failures.keys().next().value as string);
    }
  }

  /** The counting key of an address: IPv4 (mapped ones unwrapped) as is, IPv6 by its /64. */
  private keyOf(address: string | undefined): string | undefined {
    if (this.settings.limit === 0 || !address || !ipaddr.isValid(address)) return undefined;
    const parsed = ipaddr.process(address);
    if (parsed.kind() === 'ipv4') return parsed.toString();
    const prefix = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${IPV6_PREFIX_LENGTH}`);
    return `${prefix.toString()}/${IPV6_PREFIX_LENGTH}`;
  }
}
