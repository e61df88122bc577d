/**
 * The small repositories in SQLite: cursors, settings, email-domain facts, host slots and OAuth
 * links. Each
 * atomic step is one statement (an upsert with a condition where DynamoDB has a conditional put).
 */
import { type OAuthLinkStore, OAuthSubjectTakenError } from '../../auth/oauth-links.js';
import type { DomainFactsStore, LearnedFacts, LockStepHost } from '../../emails/domain-memory.js';
import type { HostSlotStore, SlotClaim } from '../../limits/host-slots.js';
import type { CursorRecord, CursorRecordStore } from '../../paging/cursors.js';
import type { SettingStore } from '../store.js';
import type { Database } from './database.js';

export class SqliteCursorStore implements CursorRecordStore {
  constructor(private readonly database: Database) {}

  async insert(record: CursorRecord): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement(
          `INSERT INTO cursors (id, operation, account_id, subject, position, issued_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.id,
          record.operation,
          record.accountId,
          record.subject,
          record.position,
          record.issuedAt,
          record.expiresAt,
        ),
    );
  }

  async get(id: string): Promise<CursorRecord | undefined> {
    const row = this.database.statement('SELECT * FROM cursors WHERE id = ?').get(id);
    if (!row) return undefined;
    return {
      id,
      operation: row.operation as string,
      accountId: row.account_id as string,
      subject: row.subject as string,
      position: row.position as string,
      issuedAt: row.issued_at as number,
      expiresAt: row.expires_at as number,
    };
  }
}

export class SqliteSettingStore implements SettingStore {
  constructor(private readonly database: Database) {}

  async get(name: string): Promise<string | undefined> {
    return this.database.statement('SELECT value FROM settings WHERE name = ?').get(name)?.value as
      | string
      | undefined;
  }

  async getOrCreate(name: string, candidate: string): Promise<string> {
    return this.database.write(() => {
      this.database
        .statement('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
        .run(name, candidate);
      const row = this.database.statement('SELECT value FROM settings WHERE name = ?').get(name);
      return row?.value as string;
    });
  }
}

export class SqliteDomainFactsStore implements DomainFactsStore {
  constructor(private readonly database: Database) {}

  async get(domain: string): Promise<LearnedFacts | undefined> {
    const row = this.database.statement('SELECT * FROM email_domains WHERE domain = ?').get(domain);
    if (!row) return undefined;
    return {
      catchAll: row.catch_all === 1,
      mx: row.mx as string | null,
      pattern: row.pattern as string | null,
      probe: row.probe as string | null,
      learnedAt: row.learned_at as number,
      expiresAt: row.expires_at as number,
    };
  }

  // Learned facts are a cache: losing one to a locked store costs a later lookup some time, no more.
  async put(domain: string, facts: LearnedFacts): Promise<void> {
    await this.database.write(
      () =>
        this.database
          .statement(
            `INSERT OR REPLACE INTO email_domains (domain, catch_all, mx, pattern, probe, learned_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            domain,
            facts.catchAll ? 1 : 0,
            facts.mx,
            facts.pattern,
            facts.probe,
            facts.learnedAt,
            facts.expiresAt,
          ),
      'bestEffort',
    );
  }

  async getLockStepHost(host: string): Promise<LockStepHost | undefined> {
    const row = this.database.statement('SELECT * FROM lock_step_hosts WHERE host = ?').get(host);
    if (!row) return undefined;
    return { learnedAt: row.learned_at as number, expiresAt: row.expires_at as number };
  }

  async putLockStepHost(host: string, record: LockStepHost): Promise<void> {
    await this.database.write(
      () =>
        this.database
          .statement('INSERT OR REPLACE INTO lock_step_hosts (host, learned_at, expires_at) VALUES (?, ?, ?)')
          .run(host, record.learnedAt, record.expiresAt),
      'bestEffort',
    );
  }
}

export class SqliteHostSlotStore implements HostSlotStore {
  constructor(private readonly database: Database) {}

  async take(claim: SlotClaim, now: number, leaseUntil: number): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `INSERT INTO host_slots (kind, host, slot, holder, lease_until) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (kind, host, slot) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
           WHERE host_slots.lease_until < ?`,
        )
        .run(claim.kind, claim.host, claim.slot, claim.holder, leaseUntil, now),
    );
    return changes === 1;
  }

  async give(claim: SlotClaim): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement('DELETE FROM host_slots WHERE kind = ? AND host = ? AND slot = ? AND holder = ?')
        .run(claim.kind, claim.host, claim.slot, claim.holder),
    );
  }
}

export class SqliteOAuthLinkStore implements OAuthLinkStore {
  constructor(private readonly database: Database) {}

  async link(subject: string, accountId: string): Promise<void> {
    await this.database.write(() => {
      const bound = this.database
        .statement('SELECT account_id FROM oauth_links WHERE subject = ?')
        .get(subject);
      if (bound && bound.account_id !== accountId) throw new OAuthSubjectTakenError(subject);
      this.database
        .statement('INSERT OR IGNORE INTO oauth_links (subject, account_id) VALUES (?, ?)')
        .run(subject, accountId);
    });
  }

  async find(subject: string): Promise<string | undefined> {
    const row = this.database.statement('SELECT account_id FROM oauth_links WHERE subject = ?').get(subject);
    return row?.account_id as string | undefined;
  }

  async unlink(subject: string): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database.statement('DELETE FROM oauth_links WHERE subject = ?').run(subject),
    );
    return Number(changes) > 0;
  }
}
