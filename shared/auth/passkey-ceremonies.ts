/**
 * The two WebAuthn ceremonies of the console's passkeys, with @simplewebauthn/server doing the
 * protocol (options, attestation and assertion checks) and the passkey port keeping the state a
 * ceremony needs between its two requests:
 *
 *   register  a signed-in person asks for options → the browser creates a credential → we verify
 *             it against the challenge we kept and store the passkey for the session's account
 *   sign in   anyone asks for options (no account named: the passkeys are discoverable) → the
 *             browser signs the challenge → we verify it with the stored public key and answer
 *             with the passkey's account
 *
 * Each challenge is random, kept server-side for CHALLENGE_TTL_MS, and taken once: a replayed or
 * late answer finds none. The relying party is the console's own origin (a domain name: WebAuthn
 * refuses IP addresses), so a passkey registered here signs in nowhere else.
 *
 * This module is what the console's routes need to know of them; the ceremonies themselves are
 * webauthn-ceremonies.ts, which loads @simplewebauthn/server (and the X.509 and ASN.1 parsers it
 * brings, about 350 KiB of the console's bundle): the console (mount-console.ts) imports it at the
 * first ceremony, so no other page of the console waits for it.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { PasskeyRecord } from './passkeys.js';

/** How long a person has to answer their authenticator's prompt. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** Where passkeys are valid: the console's origin and its host name (the WebAuthn RP ID). */
export interface RelyingParty {
  /** e.g. `https://api.example.com` or `http://localhost:3000`. */
  origin: string;
  /** The origin's host name, e.g. `api.example.com`. */
  id: string;
  /** Shown by the authenticator's prompt. */
  name: string;
}

/** A ceremony that did not verify: what to tell the person (never a secret), and the library's reason. */
export class PasskeyRefusedError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'PasskeyRefusedError';
  }
}

export interface CeremonyStart<Options> {
  /** Names the kept challenge; the browser sends it back with its answer (a cookie). */
  challengeId: string;
  options: Options;
}

export interface PasskeyCeremonies {
  /** Options for the browser to create a credential for the account, and the challenge kept for them. */
  startRegistration(account: {
    accountId: string;
    name: string;
  }): Promise<CeremonyStart<PublicKeyCredentialCreationOptionsJSON>>;
  /** Verifies the browser's new credential and stores it as a passkey of the account. */
  finishRegistration(input: {
    challengeId: string;
    accountId: string;
    response: RegistrationResponseJSON;
    label: string | null;
  }): Promise<PasskeyRecord>;
  /** Options for the browser to sign a challenge with any of its passkeys here. */
  startSignIn(): Promise<CeremonyStart<PublicKeyCredentialRequestOptionsJSON>>;
  /** Verifies the browser's signature with the stored passkey; the passkey that signed in. */
  finishSignIn(input: { challengeId: string; response: AuthenticationResponseJSON }): Promise<PasskeyRecord>;
}

/**
 * The relying party of a console served at `publicBaseUrl`, or undefined where passkeys cannot
 * work: WebAuthn needs a domain name (not an IP address) and a secure context (https, or http on
 * `localhost`).
 */
export function relyingPartyOf(publicBaseUrl: string, name: string): RelyingParty | undefined {
  const url = new URL(publicBaseUrl);
  const host = url.hostname;
  const isIpAddress = /^[\d.]+$/.test(host) || host.startsWith('[');
  if (isIpAddress) return undefined;
  const secure = url.protocol === 'https:' || host === 'localhost' || host.endsWith('.localhost');
  return secure ? { origin: url.origin, id: host, name } : undefined;
}
