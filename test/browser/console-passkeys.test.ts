/**
 * Passkeys in the console, in real Chromium with its virtual authenticator (DevTools protocol
 * `WebAuthn.addVirtualAuthenticator`) against the real app on loopback, reached as `localhost`
 * (WebAuthn refuses IP addresses): sign in with a key, register a passkey, sign out, sign in with
 * the passkey alone; removing the passkey ends the session it signed in and refuses it from then
 * on. The ceremonies' JSON requests are refused without the page's token, from another origin, and
 * when a challenge is replayed.
 */
import { mkdir } from 'node:fs/promises';
import type { CDPSession, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { mountAuthorizationServer } from '../../shared/oauth/mount-authorization-server.js';
import { seriousViolations } from '../support/accessibility.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';
import type { Harness } from '../support/harness.js';
import {
  authorizationUrl,
  type CallbackServer,
  pkce,
  registerClient,
  startCallbackServer,
} from '../support/oauth-agent.js';
import { type ServedHarness, serveHarness } from '../support/served-harness.js';

const SCREENSHOTS = new URL('../../test-output/console/', import.meta.url);

let harness: Harness;
let served: ServedHarness;
let origin: string;
let fixtures: FixtureBrowser;
let page: Page;
let authenticator: CDPSession;
let authenticatorId: string;
let apiKey: string;
let accountId: string;
let callback: CallbackServer;

beforeAll(async () => {
  served = await serveHarness({ clock: systemClock }, 'localhost');
  ({ harness, origin } = served);
  mountConsole(harness, harness.store);
  mountAuthorizationServer(harness);
  callback = await startCallbackServer();
  ({
    apiKey,
    account: { accountId },
  } = await harness.provision({ name: 'Passkey Holder', credits: 50 }));
  fixtures = await startFixtureBrowser();
  page = await fixtures.browser.newPage();
  authenticator = await page.createCDPSession();
  await authenticator.send('WebAuthn.enable');
  ({ authenticatorId } = await authenticator.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await callback?.close();
  await fixtures?.close();
  await served?.close();
});

async function submit(selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

const heading = () => page.$eval('h1', (element) => element.textContent);

describe('passkeys in the console', () => {
  it('registers a passkey for a browser signed in with a key', async () => {
    await page.goto(`${origin}/console/sign-in`);
    await page.type('#api-key', apiKey);
    await submit('#sign-in-form button');
    await page.goto(`${origin}/console/passkeys`);
    expect(
      await page.$eval('#passkey-register-button', (button) => (button as HTMLButtonElement).disabled),
    ).toBe(false);
    await page.type('#passkey-label', 'virtual laptop');
    await submit('#passkey-register-button');
    expect(page.url()).toBe(`${origin}/console/passkeys?registered`);
    expect(await page.$eval('.notice', (notice) => notice.textContent)).toContain('registered');
    expect(await page.$$eval('tbody th', (cells) => cells.map((cell) => cell.textContent))).toEqual([
      'virtual laptop',
    ]);
    const [stored] = await harness.store.passkeys.list(accountId);
    expect(stored).toMatchObject({ accountId, label: 'virtual laptop', lastUsedAt: null });
    // The authenticator holds the credential the console stored, as a discoverable one.
    const { credentials } = await authenticator.send('WebAuthn.getCredentials', { authenticatorId });
    expect(
      credentials.map(({ credentialId, isResidentCredential }) => ({ credentialId, isResidentCredential })),
    ).toEqual([
      {
        credentialId: Buffer.from(stored?.credentialId ?? '', 'base64url').toString('base64'),
        isResidentCredential: true,
      },
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({
      path: new URL('passkeys.png', SCREENSHOTS).pathname as `${string}.png`,
      fullPage: true,
    });
  });

  it('signs in with the passkey alone after signing out', async () => {
    await submit('form[action="/console/sign-out"] button');
    expect(page.url()).toBe(`${origin}/console/sign-in?session=signed-out`);
    expect(await page.$eval('#passkey-sign-in', (button) => (button as HTMLButtonElement).hidden)).toBe(
      false,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await submit('#passkey-sign-in');
    expect(page.url()).toBe(`${origin}/console`);
    expect(await heading()).toBe('Overview');
    const [stored] = await harness.store.passkeys.list(accountId);
    expect(stored?.lastUsedAt).not.toBeNull();
    const [session] = (await page.cookies()).filter((cookie) => cookie.name === 'console_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
  });

  it('brings an agent’s connect page back after a passkey sign-in, and approves it', async () => {
    await page.goto(`${origin}/console`);
    await submit('form[action="/console/sign-out"] button');
    const clientId = await registerClient(origin, callback.url, 'Passkey agent');
    const { challenge } = pkce();
    await page.goto(
      authorizationUrl(origin, { clientId, redirectUri: callback.url, challenge, resource: `${origin}/mcp` })
        .href,
    );
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await submit('#passkey-sign-in');
    expect(new URL(page.url()).pathname).toMatch(/^\/console\/connect\//);
    expect(await page.$eval('#client-name', (name) => name.textContent)).toBe('Passkey agent');
    const answered = callback.next();
    await submit('button[name="decision"][value="approve"]');
    expect((await answered).get('code')).toEqual(expect.any(String));
    expect(await harness.store.connections.list(accountId)).toEqual([
      expect.objectContaining({ clientName: 'Passkey agent', revokedAt: null }),
    ]);
    // Back on the console, still signed in by the passkey, for the steps that follow.
    await page.goto(`${origin}/console`);
    expect(await heading()).toBe('Overview');
  });

  it('refuses the ceremonies’ JSON without the page’s token, from another origin, and replayed', async () => {
    const cookie = (await page.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin, cookie, ...headers },
        body: JSON.stringify(body),
        redirect: 'manual',
      });
    const noToken = await post('/console/passkeys/register/options', {});
    expect(noToken.status).toBe(403);
    expect(((await noToken.json()) as { error: string }).error).toContain('reload');
    const crossSite = await post(
      '/console/passkeys/register/options',
      {},
      { origin: 'http://evil.localhost' },
    );
    expect(crossSite.status).toBe(403);
    const notJson = await fetch(`${origin}/console/passkeys/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin, cookie },
      body: '{"csrf":"x"}',
    });
    expect(notJson.status).toBe(400);
    // A sign-in whose challenge cookie names no kept challenge (used, expired or made up).
    await page.goto(`${origin}/console/sign-in`);
    const token = await page.$eval(
      '#sign-in-form input[name="csrf"]',
      (input) => (input as HTMLInputElement).value,
    );
    const signInCookie = (await page.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
    const replayed = await post(
      '/console/passkeys/sign-in',
      { csrf: token, response: { id: 'made-up', rawId: 'made-up', type: 'public-key', response: {} } },
      { cookie: `${signInCookie}; console_passkey=no-such-challenge` },
    );
    expect(replayed.status).toBe(403);
    expect(((await replayed.json()) as { error: string }).error).toContain('expired or was already used');
  });

  it('removing the passkey ends the session it signed in, and it signs in no more', async () => {
    await page.goto(`${origin}/console/passkeys`);
    expect(await page.$eval('tbody th', (cell) => cell.textContent)).toBe('virtual laptop (this session)');
    await submit('form[action="/console/passkeys/remove"] button');
    expect(page.url()).toBe(`${origin}/console/sign-in?session=ended`);
    expect(await harness.store.passkeys.list(accountId)).toEqual([]);
    await page.click('#passkey-sign-in');
    await page.waitForFunction(() =>
      document.getElementById('passkey-sign-in-status')?.textContent?.includes('could not sign you in'),
    );
    expect(page.url()).toBe(`${origin}/console/sign-in?session=ended`);
  });
});
