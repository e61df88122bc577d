/**
 * Passkeys (WebAuthn credentials) that sign a person in to the console for an account, so that no
 * API key is pasted into a browser after the first sign-in. A passkey belongs to the account, not
 * to the key whose session registered it: revoking that key leaves it working, and the console
 * lists and removes passkeys. The protocol itself is @simplewebauthn/server's (console/passkey-*.ts);
 * this port keeps what it needs between two requests: the credentials, and the one-time challenges
 * a ceremony signs. Adapters: shared/store/sqlite, shared/store/dynamodb.
 */

export interface PasskeyRecord {
  /** The credential id the authenticator chose (Base64url): how a sign-in finds its passkey. */
  credentialId: string;
  accountId: string;
  /** The credential's COSE public key, Base64url. */
  publicKey: string;
  /** The authenticator's signature counter at the last verified use (0 for those that keep none). */
  counter: number;
  /** How the browser may reach the authenticator (`internal`, `usb`, `hybrid`, …), as it reported. */
  transports: string[];
  /** The name the person gave it, e.g. "work laptop". */
  label: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

/** What a registration or sign-in ceremony must sign, kept until it is used once or expires. */
export interface PasskeyChallenge {
  /** A random id the browser holds (a cookie) to find the challenge again. */
  id: string;
  challenge: string;
  purpose: 'register' | 'sign-in';
  /** The account a registration adds a passkey to; absent for a sign-in, which learns it from the passkey. */
  accountId?: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface PasskeyStore {
  /** Adds a passkey; refuses (throws) a credential id that is already registered. */
  insert(record: PasskeyRecord): Promise<void>;
  find(credentialId: string): Promise<PasskeyRecord | undefined>;
  /** The account's passkeys, oldest first. */
  list(accountId: string): Promise<PasskeyRecord[]>;
  /**
   * Records a verified sign-in: the authenticator's new counter and the time. False when the passkey
   * is gone, or its counter moved past `counter` meanwhile (a replayed or cloned authenticator).
   */
  recordUse(credentialId: string, counter: number, at: string): Promise<boolean>;
  /** Removes one of the account's passkeys; false when it had none by that id. */
  remove(accountId: string, credentialId: string): Promise<boolean>;
  saveChallenge(challenge: PasskeyChallenge): Promise<void>;
  /** The challenge, removed in the same step so it signs one ceremony only; none if used or expired. */
  takeChallenge(id: string, now: number): Promise<PasskeyChallenge | undefined>;
}

export class PasskeyTakenError extends Error {
  constructor(credentialId: string) {
    super(`The passkey ${credentialId} is already registered.`);
    this.name = 'PasskeyTakenError';
  }
}
