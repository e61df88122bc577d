/**
 * Per-host concurrency shared by every process (SMTP sessions per MX host, page loads per website
 * host): on Lambda each instance serves one request, so an in-memory semaphore would limit nothing.
 * A host has N slots, each taken atomically (free, or its lease expired) and given back only by its
 * holder. A crashed holder's slot frees itself when its lease passes. No slot free → the caller
 * answers 503 and refunds, rather than hammering a server.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';

export interface SlotClaim {
  /** What the slots limit, e.g. `smtp` or `web`: one set of slots per kind and host. */
  kind: string;
  host: string;
  slot: number;
  holder: string;
}

/** The port: where slot leases are kept. */
export interface HostSlotStore {
  /** Takes the slot if it is free or its lease ended before `now`; true when taken. */
  take(claim: SlotClaim, now: number, leaseUntil: number): Promise<boolean>;
  /** Frees the slot if `claim.holder` still holds it. */
  give(claim: SlotClaim): Promise<void>;
}

export interface HostLease {
  host: string;
  release(): Promise<void>;
}

export class HostSlots {
  constructor(
    private readonly store: { hostSlots: HostSlotStore },
    private readonly clock: Clock,
    private readonly kind: string,
    private readonly slotsPerHost: number,
    private readonly leaseMs: number,
  ) {}

  /** A slot of this host, or undefined when every slot is held. */
  async acquire(host: string): Promise<HostLease | undefined> {
    const holder = randomBytes(12).toString('base64url');
    const first = Math.floor(Math.random() * this.slotsPerHost);
    for (let offset = 0; offset < this.slotsPerHost; offset += 1) {
      const claim: SlotClaim = { kind: this.kind, host, slot: (first + offset) % this.slotsPerHost, holder };
      const now = this.clock.now();
      if (await this.store.hostSlots.take(claim, now, now + this.leaseMs)) {
        return { host, release: () => this.store.hostSlots.give(claim) };
      }
    }
    return undefined;
  }
}
