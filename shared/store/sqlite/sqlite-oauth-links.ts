/**
 * OAuth subject → account bindings in SQLite: one row per subject.
 */
import { type OAuthLinkStore, OAuthSubjectTakenError } from '../../auth/oauth-links.js';
import { type OAuthLinkRecord, oauthLinkRecord } from '../records/oauth-link.js';
import type { Database } from './database.js';
import { rowName } from './rows.js';

export class SqliteOAuthLinkStore implements OAuthLinkStore {
  constructor(private readonly database: Database) {}

  async link(subject: string, accountId: string): Promise<void> {
    await this.database.write(() => {
      const bound = this.read(subject);
      if (bound && bound.accountId !== accountId) throw new OAuthSubjectTakenError(subject);
      this.database
        .statement('INSERT OR IGNORE INTO oauth_links (subject, account_id) VALUES (?, ?)')
        .run(subject, accountId);
    });
  }

  async find(subject: string): Promise<string | undefined> {
    return this.read(subject)?.accountId;
  }

  async unlink(subject: string): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database.statement('DELETE FROM oauth_links WHERE subject = ?').run(subject),
    );
    return Number(changes) > 0;
  }

  private read(subject: string): OAuthLinkRecord | undefined {
    const row = this.database.statement('SELECT * FROM oauth_links WHERE subject = ?').get(subject);
    return (
      row &&
      oauthLinkRecord.decode(
        { subject: row.subject, accountId: row.account_id },
        rowName('oauth_links', subject),
      )
    );
  }
}
