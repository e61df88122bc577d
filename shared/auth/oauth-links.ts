/**
 * Which account an OAuth identity acts for. The operator binds a subject (`sub` of access tokens
 * from OAUTH_ISSUER) to an account with `accounts link-oauth`; the identity then shares the
 * account's credits and limits. A port of the store (shared/store/store.ts); adapters in
 * shared/store/sqlite and shared/store/dynamodb.
 */

export interface OAuthLinkStore {
  /** Binds the subject to the account; refuses a subject already bound to another account. */
  link(subject: string, accountId: string): Promise<void>;
  /** The account the subject is bound to, if any. */
  find(subject: string): Promise<string | undefined>;
  /** Removes the binding; false when there was none. */
  unlink(subject: string): Promise<boolean>;
}

export class OAuthSubjectTakenError extends Error {
  constructor(subject: string) {
    super(`OAuth subject ${subject} is linked to another account; unlink it first.`);
    this.name = 'OAuthSubjectTakenError';
  }
}
