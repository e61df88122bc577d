/**
 * What email checks learned about a domain and its mail hosts.
 *
 * Domain facts, kept for EMAIL_DOMAIN_CACHE_SECONDS: whether the domain is catch-all (the next find
 * answers without a session), which address pattern was valid there (the next find tries it
 * first), and the catch-all probe its mail server greylisted (the next check sends the same one:
 * greylisting whitelists the sender, client and recipient it saw wait, and a new random probe would
 * be greylisted all over again). Lock-step hosts, kept for SMTP_LOCK_STEP_MEMORY_SECONDS: mail hosts that advertised
 * PIPELINING but answered a pipelined group out of step, so the next checks talk to them one command
 * at a time from the start instead of failing a group again. Expiry is decided by timestamp, never
 * by the record still existing.
 */
import type { Clock } from '../clock.js';

export interface DomainFacts {
  catchAll: boolean;
  /** The mail host that answered, reported again when the facts are reused. */
  mx: string | null;
  pattern: string | null;
  /** The local part of the probe this domain's greylisting has seen, sent again by every check. */
  probe: string | null;
}

export interface LearnedFacts extends DomainFacts {
  learnedAt: number;
  /** When the record may be deleted (ms since the epoch). */
  expiresAt: number;
}

/** A mail host found to answer pipelined commands out of step, and when that was. */
export interface LockStepHost {
  learnedAt: number;
  /** When the record may be deleted (ms since the epoch). */
  expiresAt: number;
}

/** The port: where domain facts and lock-step hosts are kept (replaced on every write). */
export interface DomainFactsStore {
  get(domain: string): Promise<LearnedFacts | undefined>;
  put(domain: string, facts: LearnedFacts): Promise<void>;
  getLockStepHost(host: string): Promise<LockStepHost | undefined>;
  putLockStepHost(host: string, record: LockStepHost): Promise<void>;
}

export interface MemoryDurations {
  /** How long domain facts are used; 0 disables them. */
  domainFactsMs: number;
  /** How long a mail host stays in lock-step after answering a group out of step; 0 disables it. */
  lockStepMs: number;
}

export class DomainMemory {
  constructor(
    private readonly store: { domains: DomainFactsStore },
    private readonly clock: Clock,
    private readonly durations: MemoryDurations,
  ) {}

  async recall(domain: string): Promise<DomainFacts | undefined> {
    const ttlMs = this.durations.domainFactsMs;
    if (ttlMs === 0) return undefined;
    const learned = await this.store.domains.get(domain);
    if (!learned || learned.learnedAt + ttlMs <= this.clock.now()) return undefined;
    return { catchAll: learned.catchAll, mx: learned.mx, pattern: learned.pattern, probe: learned.probe };
  }

  /** Adds `facts` to what is remembered of `domain` (the rest is kept), for another full duration. */
  async remember(domain: string, facts: Partial<DomainFacts>): Promise<void> {
    const ttlMs = this.durations.domainFactsMs;
    if (ttlMs === 0) return;
    const known = await this.recall(domain);
    const learnedAt = this.clock.now();
    await this.store.domains.put(domain, {
      ...{ catchAll: false, mx: null, pattern: null, probe: null },
      ...known,
      ...facts,
      learnedAt,
      expiresAt: learnedAt + ttlMs,
    });
  }

  /** True while `host` is remembered as answering pipelined groups out of step. */
  async isLockStepHost(host: string): Promise<boolean> {
    const ttlMs = this.durations.lockStepMs;
    if (ttlMs === 0) return false;
    const learned = await this.store.domains.getLockStepHost(host);
    return learned !== undefined && learned.learnedAt + ttlMs > this.clock.now();
  }

  async rememberLockStepHost(host: string): Promise<void> {
    const ttlMs = this.durations.lockStepMs;
    if (ttlMs === 0) return;
    const learnedAt = this.clock.now();
    await this.store.domains.putLockStepHost(host, { learnedAt, expiresAt: learnedAt + ttlMs });
  }
}
