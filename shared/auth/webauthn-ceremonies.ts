/**
 * The WebAuthn ceremonies of the console's passkeys (passkey-ceremonies.ts says what each does), with
 * @simplewebauthn/server doing the protocol: options, attestation and assertion checks. Imported at
 * the first ceremony (`ceremoniesOnFirstUse`).
 */
import { randomBytes } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Clock } from '../clock.js';
import {
  type CeremonyStart,
  CHALLENGE_TTL_MS,
  type PasskeyCeremonies,
  PasskeyRefusedError,
  type RelyingParty,
} from './passkey-ceremonies.js';
import type { PasskeyRecord, PasskeyStore } from './passkeys.js';

export class WebAuthnCeremonies implements PasskeyCeremonies {
  constructor(
    private readonly passkeys: PasskeyStore,
    private readonly clock: Clock,
    private readonly party: RelyingParty,
  ) {}

  async startRegistration(account: {
    accountId: string;
    name: string;
  }): Promise<CeremonyStart<PublicKeyCredentialCreationOptionsJSON>> {
    const existing = await this.passkeys.list(account.accountId);
    const options = await generateRegistrationOptions({
      rpName: this.party.name,
      rpID: this.party.id,
      userName: account.name,
      userID: new TextEncoder().encode(account.accountId),
      attestationType: 'none',
      // Discoverable, so that signing in needs no account name typed first.
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      excludeCredentials: existing.map(({ credentialId, transports }) => ({ id: credentialId, transports })),
      timeout: CHALLENGE_TTL_MS,
    });
    return {
      challengeId: await this.keep(options.challenge, 'register', account.accountId),
      options,
    };
  }

  /** Verifies the browser's new credential and stores it as a passkey of the account. */
  async finishRegistration(input: {
    challengeId: string;
    accountId: string;
    response: RegistrationResponseJSON;
    label: string | null;
  }): Promise<PasskeyRecord> {
    const kept = await this.passkeys.takeChallenge(input.challengeId, this.clock.now());
    if (kept?.purpose !== 'register' || kept.accountId !== input.accountId)
      throw new PasskeyRefusedError('The registration expired or was already used; start again.');
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: input.response,
        ...this.expected(kept.challenge),
      });
    } catch (error) {
      throw new PasskeyRefusedError(
        'The authenticator’s answer did not verify; nothing was registered.',
        error,
      );
    }
    if (!verified.verified || !verified.registrationInfo)
      throw new PasskeyRefusedError('The authenticator’s answer did not verify; nothing was registered.');
    const { credential } = verified.registrationInfo;
    const record: PasskeyRecord = {
      credentialId: credential.id,
      accountId: input.accountId,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      label: input.label,
      createdAt: new Date(this.clock.now()).toISOString(),
      lastUsedAt: null,
    };
    await this.passkeys.insert(record);
    return record;
  }

  async startSignIn(): Promise<CeremonyStart<PublicKeyCredentialRequestOptionsJSON>> {
    const options = await generateAuthenticationOptions({
      rpID: this.party.id,
      userVerification: 'preferred',
      timeout: CHALLENGE_TTL_MS,
    });
    return { challengeId: await this.keep(options.challenge, 'sign-in'), options };
  }

  /** Verifies the browser's signature with the stored passkey; the passkey that signed in. */
  async finishSignIn(input: {
    challengeId: string;
    response: AuthenticationResponseJSON;
  }): Promise<PasskeyRecord> {
    const refused = (cause?: unknown) =>
      new PasskeyRefusedError('This passkey could not sign you in; sign in with an API key instead.', cause);
    const kept = await this.passkeys.takeChallenge(input.challengeId, this.clock.now());
    if (kept?.purpose !== 'sign-in')
      throw new PasskeyRefusedError('The sign-in expired or was already used; start again.');
    const passkey = await this.passkeys.find(input.response.id);
    if (!passkey) throw refused();
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response: input.response,
        ...this.expected(kept.challenge),
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.counter,
          transports: passkey.transports,
        },
      });
    } catch (error) {
      throw refused(error);
    }
    if (!verified.verified) throw refused();
    const at = new Date(this.clock.now()).toISOString();
    // The conditional write refuses a counter that another sign-in moved past meanwhile (a clone).
    if (!(await this.passkeys.recordUse(passkey.credentialId, verified.authenticationInfo.newCounter, at)))
      throw refused();
    return { ...passkey, counter: verified.authenticationInfo.newCounter, lastUsedAt: at };
  }

  /**
   * What both ceremonies check an answer against: our challenge, origin and RP ID. User verification
   * (a PIN or biometric) is preferred, not required: a security key without one still proves presence.
   */
  private expected(challenge: string) {
    return {
      expectedChallenge: challenge,
      expectedOrigin: this.party.origin,
      expectedRPID: this.party.id,
      requireUserVerification: false,
    };
  }

  private async keep(
    challenge: string,
    purpose: 'register' | 'sign-in',
    accountId?: string,
  ): Promise<string> {
    const id = randomBytes(24).toString('base64url');
    await this.passkeys.saveChallenge({
      id,
      challenge,
      purpose,
      ...(accountId ? { accountId } : {}),
      expiresAt: this.clock.now() + CHALLENGE_TTL_MS,
    });
    return id;
  }
}
