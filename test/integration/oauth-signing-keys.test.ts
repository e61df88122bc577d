/**
 * The authorization server's signing keys, through the real app: derived from secrets (so every
 * process with the same secret signs with the same key), generated once and kept in the store when
 * OAUTH_SIGNING_SECRET is unset, and rotated by listing a new secret first: the new key signs, the
 * old one is still published and still verifies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mountAuthorizationServer } from '../../shared/oauth/mount-authorization-server.js';
import { deriveSigningKey, SIGNING_SECRET_SETTING } from '../../shared/oauth/signing-keys.js';
import { type Harness, startHarness } from '../support/harness.js';
import { signedAccessToken } from '../support/oauth-agent.js';

const OLD_SECRET = 'the old signing secret retired soon';
const NEW_SECRET = 'the new signing secret signing now';
const started: Harness[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((harness) => harness.close()));
});

async function serviceWith(env: Record<string, string>): Promise<Harness> {
  const harness = await startHarness({ env });
  started.push(harness);
  mountAuthorizationServer(harness);
  return harness;
}

const published = async (harness: Harness) =>
  ((await (await harness.app.request('/oauth/jwks')).json()) as { keys: { kid: string; d?: string }[] }).keys;

/** A tools/list on /mcp with a token signed by `secret`'s key for a connection of the account. */
async function mcpStatusWith(harness: Harness, secret: string): Promise<number> {
  const { account } = await harness.provision();
  const connectionId = `connection-${secret.length}-${Math.random()}`;
  await harness.store.connections.insert({
    connectionId,
    accountId: account.accountId,
    clientId: 'client',
    clientName: null,
    scopes: ['profiles'],
    dailyCreditCap: null,
    createdAt: new Date(harness.clock.now()).toISOString(),
    lastUsedAt: null,
    revokedAt: null,
    revokedReason: null,
  });
  const base = harness.config.PUBLIC_BASE_URL;
  const token = await signedAccessToken(secret, {
    issuer: base,
    audience: `${base}/mcp`,
    accountId: account.accountId,
    connectionId,
    now: harness.clock.now(),
  });
  const response = await harness.app.request('/mcp', {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return response.status;
}

describe('signing keys', () => {
  it('derives the same key from the same secret, and another from another', async () => {
    const once = await deriveSigningKey(NEW_SECRET);
    expect((await deriveSigningKey(NEW_SECRET)).privateJwk).toEqual(once.privateJwk);
    expect((await deriveSigningKey(OLD_SECRET)).publicJwk.kid).not.toBe(once.publicJwk.kid);
    expect(once.publicJwk).not.toHaveProperty('d');
  });

  it('generates a secret once when none is set, keeps it in the store, and publishes only public keys', async () => {
    const harness = await serviceWith({});
    const keys = await published(harness);
    const kept = await harness.store.settings.get(SIGNING_SECRET_SETTING);
    expect(kept).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keys.map((key) => key.kid)).toEqual([(await deriveSigningKey(kept as string)).publicJwk.kid]);
    expect(keys.every((key) => key.d === undefined)).toBe(true);
    expect(await mcpStatusWith(harness, kept as string)).toBe(200);
  });

  it('rotates: the first secret signs, every listed one is published and verifies, a dropped one no longer does', async () => {
    const rotating = await serviceWith({ OAUTH_SIGNING_SECRET: `${NEW_SECRET},${OLD_SECRET}` });
    expect((await published(rotating)).map((key) => key.kid)).toEqual([
      (await deriveSigningKey(NEW_SECRET)).publicJwk.kid,
      (await deriveSigningKey(OLD_SECRET)).publicJwk.kid,
    ]);
    expect(await mcpStatusWith(rotating, OLD_SECRET)).toBe(200);
    expect(await mcpStatusWith(rotating, NEW_SECRET)).toBe(200);
    const rotated = await serviceWith({ OAUTH_SIGNING_SECRET: NEW_SECRET });
    expect(await mcpStatusWith(rotated, OLD_SECRET)).toBe(401);
    expect(await mcpStatusWith(rotated, NEW_SECRET)).toBe(200);
  });
});
