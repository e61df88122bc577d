/**
 * `npm run admin -- migrate`: copies the embedded DynamoDB's data under DATA_DIR (the default store
 * before SQLite) into the SQLite store: accounts, keys (with their last use), balances, the ledger
 * (with the key behind each call), credit entries, the audit log, requests still in flight, and
 * settings. Rate windows, cursors, email-domain facts and host slots
 * are short-lived and start afresh. So do the OAuth authorization server's records: oidc-provider's
 * (codes, tokens, grants) live minutes to weeks, and a connection without its grant and refresh
 * token cannot be used, so copying connections alone would list dead ones; an OAuth client signs
 * in again instead. The DynamoDB folder is left as it was.
 */
import type { Account, AuditEntry } from '../accounts/accounts.js';
import type { ApiKeyRecord } from '../auth/api-keys.js';
import type { CreditEntry, InflightEntry, LedgerEntry } from '../billing/billing-store.js';

/** Set in SQLite once a migration is done (its value: when); open-store.ts checks it. */
export const MIGRATION_SETTING = 'migrated-from-embedded-dynamodb';

/** Everything worth keeping, in adapter-neutral shapes. */
export interface StoreSnapshot {
  accounts: Account[];
  keys: ApiKeyRecord[];
  balances: { accountId: string; balance: number; granted: number }[];
  /** Settled entries (charged or refunded). */
  ledger: LedgerEntry[];
  /** Requests in flight when the copy was made; `reconcile` settles them as usual. */
  inflight: InflightEntry[];
  /** Grants and adjustments. */
  credits: CreditEntry[];
  audit: AuditEntry[];
  settings: { name: string; value: string }[];
}

export interface MigrationReport {
  from: string;
  to: string;
  accounts: number;
  keys: number;
  balances: number;
  ledgerEntries: number;
  inflight: number;
  creditEntries: number;
  auditEntries: number;
  settings: number;
}

export function summarize(snapshot: StoreSnapshot, from: string, to: string): MigrationReport {
  return {
    from,
    to,
    accounts: snapshot.accounts.length,
    keys: snapshot.keys.length,
    balances: snapshot.balances.length,
    ledgerEntries: snapshot.ledger.length,
    inflight: snapshot.inflight.length,
    creditEntries: snapshot.credits.length,
    auditEntries: snapshot.audit.length,
    settings: snapshot.settings.length,
  };
}
