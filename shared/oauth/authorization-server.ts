/**
 * The service's own OAuth 2.1 authorization server for /mcp, built on oidc-provider (OpenID-certified;
 * docs/oauth.md says why this library). We configure it and give it our storage; the protocol
 * (metadata, PKCE, codes, token rotation and reuse detection, DCR, Client ID Metadata Documents,
 * revocation, RFC 9207 `iss`) is the library's. What we decide:
 *
 * - One resource: the canonical /mcp URL. `resource` (RFC 8707) is required and must be that URL;
 *   access tokens are ES256 JWTs with that audience, the account as `sub` and the connection (the
 *   grant) as `connection_id`, verified by the /mcp resource server (oauth/access-tokens.ts).
 * - Scopes are the operation families. PKCE S256 is required of every client.
 * - The login and consent step is the console's connect page (console/connect-routes.tsx): the
 *   customer signs in with a key or passkey and approves the client for chosen families and a daily
 *   spend cap. Every authorization asks again (no remembered grant), and each approval is a new
 *   connection the console lists and can revoke.
 * - Refresh tokens rotate on every use; a rotated one presented again revokes the whole connection.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hkdfSync } from 'node:crypto';
import { toFetchResponse, toReqRes } from 'fetch-to-node';
import Provider, {
  type Adapter,
  type AdapterPayload,
  type Configuration,
  errors,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import { type Family, families } from '../../schemas/operation-definition.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { guardedClientMetadataFetch } from './client-metadata-fetch.js';
import type { ConnectionRevocation, ConnectionStore, OAuthStateStore } from './oauth-store.js';
import { revokeConnection } from './revoke-connection.js';
import { deriveSigningKey } from './signing-keys.js';

/** Where the authorization server's endpoints live (under the service's public base URL). */
export const OAUTH_PATH = '/oauth';
/** The consent (interaction) page of the console; the uid follows. */
export const CONNECT_PATH = '/console/connect';
/** What every operator-registered client id starts with (operator-clients.ts makes them). */
export const OPERATOR_CLIENT_PREFIX = 'op_';
/** RFC 8414 metadata; oidc-provider serves the same document as OpenID discovery. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
const OPENID_DISCOVERY_PATH = '/.well-known/openid-configuration';

/** Records without a lifetime of their own (registered clients) are kept until deleted. */
export const KEPT_UNTIL_DELETED = Date.UTC(9999, 0, 1);
/** How long a customer has to sign in and approve before the authorization request must start over. */
const INTERACTION_SECONDS = 15 * 60;
/**
 * The longest a connection lasts, however often it is used: its grant expires then, and the agent
 * asks the customer again. Refresh tokens rotate with a fresh lifetime each, but the grant they hang
 * on is saved once, at the approval.
 */
const GRANT_SECONDS = 365 * 86_400;

export interface AuthorizationServerOptions {
  /** The service's public base URL: the issuer. */
  issuer: string;
  /** The canonical /mcp URL: the only resource tokens are issued for. */
  resource: string;
  /** Secrets the signing and cookie keys derive from (oauth/signing-keys.ts), newest first. */
  secrets: readonly string[];
  state: OAuthStateStore;
  connections: ConnectionStore;
  clock: Clock;
  logger: Logger;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  codeSeconds: number;
  /** Test-only allowances for Client ID Metadata Documents on loopback. */
  clientMetadata: { allowHosts: ReadonlySet<string>; ca?: string };
}

/** What the consent page shows of a pending authorization request. */
export interface PendingAuthorization {
  uid: string;
  clientId: string;
  clientName: string | null;
  /** Where the client will receive the code: its origin is shown, so a customer can tell clients apart. */
  redirectUri: string;
  /** Families the client asked for (all of them when it asked for none). */
  requestedFamilies: Family[];
  /**
   * Who stands behind the client's name: the host of its metadata document (a URL client id), the
   * service's operator (`oauth clients register`), or the client itself (dynamic registration).
   */
  registeredBy: ClientRegistrar;
}

export type ClientRegistrar = 'metadata-document' | 'operator' | 'itself';

function registrarOf(clientId: string): ClientRegistrar {
  if (/^https:\/\//.test(clientId)) return 'metadata-document';
  // Dynamic registration's ids are oidc-provider's own random ones, never this prefix.
  return clientId.startsWith(OPERATOR_CLIENT_PREFIX) ? 'operator' : 'itself';
}

export interface Approval {
  accountId: string;
  families: Family[];
  dailyCreditCap: number | null;
}

/** Why a grant is being destroyed, set around the request that destroys it (see `StoreAdapter.destroy`). */
const revocationReason = new AsyncLocalStorage<ConnectionRevocation>();

export class AuthorizationServer {
  private readonly callback: ReturnType<Provider['callback']>;

  private constructor(
    private readonly provider: Provider,
    private readonly options: AuthorizationServerOptions,
  ) {
    this.callback = provider.callback();
  }

  static async create(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
    const signingKeys = await Promise.all(options.secrets.map(deriveSigningKey));
    const provider = new Provider(
      options.issuer,
      configuration(
        options,
        signingKeys.map((key) => key.privateJwk),
      ),
    );
    provider.on('server_error', (_ctx, error) => options.logger.error({ err: error }, 'OAuth server error'));
    // A refused authorization reaches only the client; the log keeps why, for the operator.
    provider.on('authorization.error', (_ctx, error) =>
      options.logger.info({ err: error }, 'OAuth authorization refused'),
    );
    return new AuthorizationServer(provider, options);
  }

  /**
   * Answers a request to the OAuth endpoints or the metadata. The request is re-addressed to the
   * issuer's origin first, so oidc-provider builds every URL it publishes from the public base URL.
   */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname === AUTHORIZATION_SERVER_METADATA_PATH ? OPENID_DISCOVERY_PATH : url.pathname;
    // A client that asks for no scope (MCP clients may omit it) asks for every family; the customer
    // chooses on the connect page. Without this, the library would grant nothing and deny.
    if (path === `${OAUTH_PATH}/authorize` && !url.searchParams.has('scope'))
      url.searchParams.set('scope', families.join(' '));
    const reason: ConnectionRevocation = path === `${OAUTH_PATH}/token` ? 'token_reused' : 'client';
    return revocationReason.run(reason, () => this.run(request, `${path}${url.search}`));
  }

  /**
   * The pending authorization of this browser (its interaction cookie), for the consent page; none
   * when the cookie is missing or expired, or its client is no longer registered.
   */
  async pending(request: Request): Promise<PendingAuthorization | undefined> {
    const { req, res } = this.interactionPair(request);
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await this.provider.interactionDetails(req, res);
    } catch (error) {
      if (error instanceof errors.OIDCProviderError) return undefined;
      throw error;
    }
    const client = await this.provider.Client.find(String(details.params.client_id));
    if (!client) return undefined;
    const asked = String(details.params.scope ?? '')
      .split(' ')
      .filter((scope): scope is Family => (families as readonly string[]).includes(scope));
    return {
      uid: details.uid,
      clientId: client.clientId,
      clientName: typeof client.clientName === 'string' ? client.clientName : null,
      redirectUri: String(details.params.redirect_uri),
      requestedFamilies: asked.length > 0 ? asked : [...families],
      registeredBy: registrarOf(client.clientId),
    };
  }

  /**
   * Records the customer's approval: a grant for the chosen families on /mcp (families the client
   * asked for but the customer left out are rejected, so oidc-provider does not ask again), the
   * connection the console lists, and the answer that sends the browser back to finish the request.
   */
  async approve(request: Request, approval: Approval): Promise<Response> {
    const { req, res } = this.interactionPair(request);
    const details = await this.provider.interactionDetails(req, res);
    const clientId = String(details.params.client_id);
    const client = await this.provider.Client.find(clientId);
    if (!client) throw new errors.InvalidClient('the client is no longer registered');
    const grant = new this.provider.Grant({ accountId: approval.accountId, clientId });
    const requested = String(details.params.scope ?? '').split(' ');
    const chosen = approval.families.join(' ');
    grant.addResourceScope(this.options.resource, chosen);
    const refused = requested.filter(
      (scope) =>
        (families as readonly string[]).includes(scope) && !approval.families.includes(scope as Family),
    );
    if (refused.length > 0) grant.rejectResourceScope(this.options.resource, refused.join(' '));
    // The library counts a requested family as an OpenID scope too (it is listed in `scopes` for
    // registration's sake), so the grant answers it both as a resource scope and as one of those.
    const oidcScopes = requested.filter((scope) => scope === 'offline_access' || scope === 'openid');
    grant.addOIDCScope([...oidcScopes, ...approval.families].join(' '));
    if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '));
    const grantId = await grant.save();
    await this.options.connections.insert({
      connectionId: grantId,
      accountId: approval.accountId,
      clientId,
      clientName: typeof client.clientName === 'string' ? client.clientName : null,
      scopes: approval.families,
      dailyCreditCap: approval.dailyCreditCap,
      createdAt: new Date(this.options.clock.now()).toISOString(),
      lastUsedAt: null,
      revokedAt: null,
      revokedReason: null,
    });
    await this.provider.interactionFinished(
      req,
      res,
      { login: { accountId: approval.accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    return toFetchResponse(res);
  }

  /** The customer declined: the client receives `access_denied`. */
  async deny(request: Request): Promise<Response> {
    const { req, res } = this.interactionPair(request);
    await this.provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The account holder declined the connection.' },
      { mergeWithLastSubmission: false },
    );
    return toFetchResponse(res);
  }

  /** Revokes one of the account's connections: it stops at once, and its refresh tokens are deleted. */
  async revokeConnection(accountId: string, connectionId: string): Promise<boolean> {
    const connection = await this.options.connections.get(connectionId);
    if (!connection || connection.accountId !== accountId) return false;
    const at = new Date(this.options.clock.now()).toISOString();
    const stores = { connections: this.options.connections, oauthState: this.options.state };
    return revokeConnection(stores, connectionId, at, 'customer');
  }

  private async run(request: Request, pathAndQuery: string): Promise<Response> {
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body;
    const { req, res } = this.nodePair(request, pathAndQuery, request.method, body);
    await this.callback(req, res);
    return toFetchResponse(res);
  }

  /**
   * The pair the interaction functions read the browser's interaction cookie from: the console page's
   * own path (the cookie's), without the body the console has already read.
   */
  private interactionPair(request: Request) {
    return this.nodePair(request, new URL(request.url).pathname, 'GET', null);
  }

  /** Node's request and response for oidc-provider, addressed to the issuer's origin. */
  private nodePair(
    request: Request,
    pathAndQuery: string,
    method: string,
    body: ReadableStream | null | undefined,
  ) {
    const issuer = new URL(this.options.issuer);
    const headers = new Headers(request.headers);
    headers.set('host', issuer.host);
    headers.delete('x-forwarded-proto');
    headers.delete('x-forwarded-host');
    const readdressed = new Request(new URL(pathAndQuery, issuer.origin), {
      method,
      headers,
      body,
      ...(body ? { duplex: 'half' } : {}),
    } as RequestInit);
    const pair = toReqRes(readdressed);
    // There is no socket; Koa asks one whether the connection is TLS: it is when the issuer is https.
    Object.defineProperty(pair.req, 'socket', { value: { encrypted: issuer.protocol === 'https:' } });
    return pair;
  }
}

function configuration(options: AuthorizationServerOptions, jwks: object[]): Configuration {
  const families_ = [...families];
  return {
    adapter: (model: string) => new StoreAdapter(model, options),
    jwks: { keys: jwks as never },
    cookies: { keys: options.secrets.map((secret) => cookieKey(secret)) },
    // The families are the resource's scopes (getResourceServerInfo below); listed here as well, so a
    // client may name them in its registered `scope`. The approval grants them both ways.
    scopes: ['openid', 'offline_access', ...families_],
    claims: { openid: ['sub'] },
    routes: {
      authorization: `${OAUTH_PATH}/authorize`,
      token: `${OAUTH_PATH}/token`,
      registration: `${OAUTH_PATH}/register`,
      revocation: `${OAUTH_PATH}/revoke`,
      jwks: `${OAUTH_PATH}/jwks`,
      end_session: `${OAUTH_PATH}/end-session`,
      userinfo: `${OAUTH_PATH}/userinfo`,
      introspection: `${OAUTH_PATH}/introspect`,
      pushed_authorization_request: `${OAUTH_PATH}/par`,
      code_verification: `${OAUTH_PATH}/device`,
      device_authorization: `${OAUTH_PATH}/device/auth`,
      backchannel_authentication: `${OAUTH_PATH}/backchannel`,
      challenge: `${OAUTH_PATH}/challenge`,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => {
          throw new errors.InvalidTarget(
            `the resource parameter is required; it must be ${options.resource}`,
          );
        },
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (resourceIndicator !== options.resource)
            throw new errors.InvalidTarget(`tokens are issued only for ${options.resource}`);
          return {
            scope: families_.join(' '),
            audience: options.resource,
            accessTokenTTL: options.accessTokenSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The only key is ES256 (ID tokens are not used, but a client's metadata must name an alg we have).
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    enabledJWA: { authorizationSigningAlgValues: ['ES256'] },
    // Every authorization asks the customer: a remembered grant would connect a client silently.
    loadExistingGrant: (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: (_ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
    extraTokenClaims: (_ctx, token) => ('grantId' in token ? { connection_id: token.grantId } : undefined),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    interactions: { url: (_ctx, interaction) => `${CONNECT_PATH}/${interaction.uid}` },
    ttl: {
      AccessToken: options.accessTokenSeconds,
      AuthorizationCode: options.codeSeconds,
      RefreshToken: options.refreshTokenSeconds,
      Grant: GRANT_SECONDS,
      Interaction: INTERACTION_SECONDS,
      Session: INTERACTION_SECONDS,
    },
    fetch: guardedClientMetadataFetch(options.clientMetadata),
    renderError: (ctx, out) => {
      ctx.type = 'application/json';
      ctx.body = out;
    },
  };
}

/** A cookie-signing key of its own per secret, so the token-signing key is used for nothing else. */
function cookieKey(secret: string): string {
  return Buffer.from(hkdfSync('sha256', secret, 'lookup-service oauth', 'cookie signing key', 32)).toString(
    'base64url',
  );
}

/**
 * oidc-provider's adapter on our store port. Destroying a grant revokes its connection first, with
 * the reason of the request that destroyed it: at the token endpoint that is a reused code or
 * refresh token (the library's reuse detection), anywhere else the client's own revocation.
 */
class StoreAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly options: AuthorizationServerOptions,
  ) {}

  private now(): number {
    return this.options.clock.now();
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn === undefined ? KEPT_UNTIL_DELETED : this.now() + expiresIn * 1000;
    await this.options.state.put(this.model, id, { payload: { ...payload }, expiresAt });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.options.state.find(this.model, id, this.now()));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.options.state.findByUid(this.model, uid, this.now()));
  }

  async findByUserCode(): Promise<undefined> {
    // The device flow is off: no record has a user code.
    return undefined;
  }

  async consume(id: string): Promise<void> {
    await this.options.state.consume(this.model, id, this.now());
  }

  async destroy(id: string): Promise<void> {
    if (this.model === 'Grant') {
      const at = new Date(this.now()).toISOString();
      await this.options.connections.revoke(id, at, revocationReason.getStore() ?? 'client');
    }
    await this.options.state.delete(this.model, id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.options.state.deleteGrant(grantId);
  }
}

function asPayload(record: { payload: Record<string, unknown>; consumedAt?: number } | undefined) {
  if (!record) return undefined;
  const payload = record.payload as AdapterPayload;
  return record.consumedAt === undefined
    ? payload
    : { ...payload, consumed: Math.floor(record.consumedAt / 1000) };
}
