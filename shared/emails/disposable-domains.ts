/**
 * The disposable-domain snapshot: exact membership of a normalized domain in the list of the
 * disposable-email-domains project, as packaged by `disposable-email-domains-js` (pinned in
 * package-lock.json; refreshing it is a dependency update, see the README).
 */
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';

export interface DisposableDomains {
  has(domain: string): boolean;
}

let snapshot: ReadonlySet<string> | undefined;

/** Loaded on first use and kept for the life of the process. */
export const packagedDisposableDomains: DisposableDomains = {
  has(domain) {
    snapshot ??= disposableEmailBlocklistSet();
    return snapshot.has(domain);
  },
};
