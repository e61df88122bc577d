/**
 * Email-domain facts and lock-step hosts in SQLite: one row each, replaced on every write. They
 * are a cache: a write lost to a locked store costs a later lookup some time, no more.
 */
import type { DomainFactsStore, LearnedFacts, LockStepHost } from '../../emails/domain-memory.js';
import { learnedFactsRecord, lockStepHostRecord } from '../records/domain-facts.js';
import type { Database } from './database.js';
import { booleanColumn, rowName } from './rows.js';

export class SqliteDomainFactsStore implements DomainFactsStore {
  constructor(private readonly database: Database) {}

  async get(domain: string): Promise<LearnedFacts | undefined> {
    const row = this.database.statement('SELECT * FROM email_domains WHERE domain = ?').get(domain);
    if (!row) return undefined;
    return learnedFactsRecord.decode(
      {
        catchAll: booleanColumn(row.catch_all),
        mx: row.mx,
        pattern: row.pattern,
        probe: row.probe,
        learnedAt: row.learned_at,
        expiresAt: row.expires_at,
      },
      rowName('email_domains', domain),
    );
  }

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
    return lockStepHostRecord.decode(
      { learnedAt: row.learned_at, expiresAt: row.expires_at },
      rowName('lock_step_hosts', host),
    );
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
