/**
 * The keys the authorization server signs access tokens with (ES256), derived from secret strings
 * rather than stored as keys: every process (each Lambda, each restart) that reads the same secrets
 * derives the same key set, so there is no race to create a key on first start and nothing to
 * distribute but one string. The secrets come from OAUTH_SIGNING_SECRET (on AWS, a Secrets Manager
 * secret) or, when it is unset, from one generated on first start and kept in the store's settings.
 *
 * Rotation: the setting is a comma-separated list, newest first. The first secret's key signs; every
 * key verifies and is published at the JWKS URI, so tokens signed before a rotation stay valid until
 * they expire (minutes). Drop the old secret once the access-token lifetime has passed.
 */
import { createECDH, hkdfSync, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { SettingStore } from '../paging/cursors.js';

/** Where the generated secret is kept when OAUTH_SIGNING_SECRET is unset. */
export const SIGNING_SECRET_SETTING = 'oauth-signing-secret';

/** The order of the P-256 group: a private scalar must lie in [1, n-1]. */
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/** A signing key: the private JWK oidc-provider signs with; its public half is in `publicJwk`. */
export interface SigningKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

/** The secrets in force: the operator's list, else the store's generated one (created once). */
export async function signingSecrets(
  configured: string | undefined,
  settings: SettingStore,
): Promise<string[]> {
  const listed = (configured ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '');
  if (listed.length > 0) return listed;
  return [await settings.getOrCreate(SIGNING_SECRET_SETTING, randomBytes(32).toString('base64url'))];
}

/** The key a secret derives to (HKDF-SHA256, retried with a counter in the 2^-32 case the scalar is out of range). */
export async function deriveSigningKey(secret: string): Promise<SigningKey> {
  for (let attempt = 0; ; attempt += 1) {
    const scalar = Buffer.from(
      hkdfSync('sha256', secret, 'lookup-service oauth', `ES256 signing key ${attempt}`, 32),
    );
    const value = BigInt(`0x${scalar.toString('hex')}`);
    if (value === 0n || value >= P256_ORDER) continue;
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(scalar);
    const point = ecdh.getPublicKey();
    const publicJwk: JWK = {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    };
    const kid = await calculateJwkThumbprint(publicJwk);
    const described = { ...publicJwk, kid, alg: 'ES256', use: 'sig' };
    return { publicJwk: described, privateJwk: { ...described, d: scalar.toString('base64url') } };
  }
}
