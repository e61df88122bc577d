/**
 * What email find learned about a domain, kept for EMAIL_DOMAIN_CACHE_SECONDS: whether it is
 * catch-all (the next find answers without a session) and which address pattern was valid there
 * (the next find tries it first). Expiry is decided by timestamp, never by the record still existing.
 */
import type { Clock } from '../clock.js';

export interface DomainFacts {
  catchAll: boolean;
  /** The mail host that answered, reported again when the facts are reused. */
  mx: string | null;
  pattern: string | null;
}

export interface LearnedFacts extends DomainFacts {
  learnedAt: number;
  /** When the record may be deleted (ms since the epoch). */
  expiresAt: number;
}

/** The port: where domain facts are kept (replaced on every write). */
export interface DomainFactsStore {
  get(domain: string): Promise<LearnedFacts | undefined>;
  put(domain: string, facts: LearnedFacts): Promise<void>;
}

export class DomainMemory {
  constructor(
    private readonly store: { domains: DomainFactsStore },
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  async recall(domain: string): Promise<DomainFacts | undefined> {
    if (this.ttlMs === 0) return undefined;
    const learned = await this.store.domains.get(domain);
    if (!learned || learned.learnedAt + this.ttlMs <= this.clock.now()) return undefined;
    return { catchAll: learned.catchAll, mx: learned.mx, pattern: learned.pattern };
  }

  async remember(domain: string, facts: DomainFacts): Promise<void> {
    if (this.ttlMs === 0) return;
    const learnedAt = this.clock.now();
    await this.store.domains.put(domain, { ...facts, learnedAt, expiresAt: learnedAt + this.ttlMs });
  }
}
