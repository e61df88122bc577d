/**
 * An agent connecting to /mcp with OAuth, as MCP clients do: the SDK's own OAuth support
 * (`StreamableHTTPClientTransport` with an `OAuthClientProvider`) keeping its registration, PKCE
 * verifier and tokens in memory, a loopback callback server receiving the authorization response,
 * and the customer's part (sign in, approve) done in real Chromium on the console's connect page.
 * Also the same steps by hand (PKCE, the authorization URL, the token request) for the refusal
 * tests, which need to send what the SDK never would.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { importJWK, SignJWT } from 'jose';
import type { Page } from 'puppeteer-core';
import { deriveSigningKey } from '../../shared/oauth/signing-keys.js';

/** The agent's loopback redirect target: answers every request and keeps the last query. */
export interface CallbackServer {
  url: string;
  /** The query of the next authorization response to arrive. */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  // One waiter at a time: a test that failed before its answer came must not take the next test's.
  let waiting: ((query: URLSearchParams) => void) | undefined;
  const server: Server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://callback').searchParams;
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
    waiting?.(query);
    waiting = undefined;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () =>
      new Promise((resolve) => {
        waiting = resolve;
      }),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The SDK's provider interface, kept in memory; `authorizationUrl` is where it would open a browser. */
export class AgentAuthProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private information?: OAuthClientInformationMixed;
  private savedTokens?: OAuthTokens;
  private verifier = '';

  constructor(
    private readonly callbackUrl: string,
    private readonly name: string,
    /** A Client ID Metadata Document's URL: the agent uses it as its client id instead of registering. */
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return this.callbackUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** What the customer does in the browser: sign in (when asked) and approve or deny on the connect page. */
export interface Consent {
  apiKey: string;
  /** Families to leave checked; the page's preselection (what the agent asked for) when absent. */
  families?: readonly string[];
  dailyCreditCap?: number;
  decision?: 'approve' | 'deny';
}

/** Opens the authorization URL and signs in with the key if the console asks: the connect page. */
export async function openConnectPage(page: Page, authorizationUrl: URL | string, apiKey: string) {
  await page.goto(String(authorizationUrl));
  if (new URL(page.url()).pathname === '/console/sign-in') {
    await page.type('#api-key', apiKey);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/console/sign-in"] button')]);
  }
}

/** Opens the authorization URL, signs in if the console asks, and answers the connect page. */
export async function consentInBrowser(page: Page, authorizationUrl: URL | string, consent: Consent) {
  await openConnectPage(page, authorizationUrl, consent.apiKey);
  if (!new URL(page.url()).pathname.startsWith('/console/connect/'))
    throw new Error(
      `expected the connect page, got ${page.url()}: ${await page.$eval('main', (m) => m.textContent)}`,
    );
  if (consent.families) {
    await page.$$eval(
      'input[name="families"]',
      (boxes, wanted) => {
        for (const box of boxes as HTMLInputElement[]) box.checked = wanted.includes(box.value);
      },
      [...consent.families],
    );
  }
  if (consent.dailyCreditCap !== undefined) await page.type('#daily-cap', String(consent.dailyCreditCap));
  await Promise.all([
    page.waitForNavigation(),
    page.click(`button[name="decision"][value="${consent.decision ?? 'approve'}"]`),
  ]);
}

/**
 * The whole one-click path with the SDK: a bare connect fails with 401, the SDK discovers and
 * registers (or uses its metadata URL), the customer approves in Chromium, the SDK exchanges the code,
 * and a new transport connects with the token.
 */
export async function connectAgent(options: {
  mcpUrl: string;
  page: Page;
  callback: CallbackServer;
  consent: Consent;
  name?: string;
  clientMetadataUrl?: string;
}) {
  const provider = new AgentAuthProvider(
    options.callback.url,
    options.name ?? 'Test agent',
    options.clientMetadataUrl,
  );
  const firstTry = new StreamableHTTPClientTransport(new URL(options.mcpUrl), { authProvider: provider });
  const unauthorized = await new Client({ name: 'test-agent', version: '1.0.0' }).connect(firstTry).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!provider.authorizationUrl) throw new Error(`no authorization was asked for: ${String(unauthorized)}`);
  const answered = options.callback.next();
  await consentInBrowser(options.page, provider.authorizationUrl, options.consent);
  const response = await answered;
  const code = response.get('code');
  if (!code) throw new Error(`the authorization response carried no code: ${response.toString()}`);
  await firstTry.finishAuth(code);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.mcpUrl), { authProvider: provider }),
  );
  return { client, provider, response, unauthorized };
}

/** A PKCE pair (S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a public client by DCR (RFC 7591); its client id. */
export async function registerClient(origin: string, redirectUri: string, name = 'Hand-made agent') {
  const response = await fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  if (response.status !== 201)
    throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

export function authorizationUrl(
  origin: string,
  params: { clientId: string; redirectUri: string; challenge: string; resource?: string; scope?: string },
): URL {
  const url = new URL(`${origin}/oauth/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', params.clientId);
  url.searchParams.set('redirect_uri', params.redirectUri);
  url.searchParams.set('code_challenge', params.challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', randomBytes(8).toString('hex'));
  if (params.resource !== undefined) url.searchParams.set('resource', params.resource);
  if (params.scope !== undefined) url.searchParams.set('scope', params.scope);
  return url;
}

/** A token request (form-encoded, as RFC 6749 has it); the status and the JSON answer. */
export async function tokenRequest(origin: string, fields: Record<string, string | undefined>) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.set(name, value);
  const response = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * An access token signed with the key `secret` derives, shaped as the built-in server's are, for
 * tests of what /mcp accepts: another audience, another key, a connection made in the store.
 */
export async function signedAccessToken(
  secret: string,
  claims: { issuer: string; audience: string; accountId: string; connectionId: string; now?: number },
): Promise<string> {
  const { privateJwk } = await deriveSigningKey(secret);
  const issuedAt = Math.floor((claims.now ?? Date.now()) / 1000);
  return new SignJWT({ connection_id: claims.connectionId })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: privateJwk.kid as string })
    .setIssuer(claims.issuer)
    .setSubject(claims.accountId)
    .setAudience(claims.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + 300)
    .sign(await importJWK(privateJwk, 'ES256'));
}
