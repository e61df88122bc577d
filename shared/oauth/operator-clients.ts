/**
 * OAuth clients the operator registers (`npm run admin -- oauth clients …`), for agents that neither
 * publish a Client ID Metadata Document nor register themselves (DCR). Each is a public client (PKCE,
 * no secret), kept as oidc-provider keeps any registered client: a `Client` record of the OAuth
 * state store, under an id of our own with the prefix `op_`.
 *
 * The metadata is checked before anything is written: by our rules for redirect URIs (for a client
 * that is not native these are stricter than the library's: https, or plain http on loopback only),
 * then by oidc-provider itself. The library validates a client's metadata when it loads the client,
 * and a record it refuses would fail every authorization request of that client later, where the
 * operator does not see why; so the check loads the client as the running server will, through an
 * authorization request to an AuthorizationServer of its own whose state store holds this client
 * and keeps nothing (no interaction is left behind in the real store).
 *
 * The state store cannot list records by model, so the clients registered here are also named in an
 * index in the settings store, whose one write is an atomic create: slots `oauth-operator-client/0`,
 * `/1`, …, each registration claiming the next free one. A removed client's slot stays; listing skips
 * the slots whose client is gone. The slot is written before the client record, so a crash in between
 * leaves a slot without a client (skipped), never a client the operator cannot list.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { Attribution } from '../accounts/accounts.js';
import type { Clock } from '../clock.js';
import { type Config, mcpResourceUrl } from '../config.js';
import { createLogger } from '../logger.js';
import type { SettingStore } from '../paging/cursors.js';
import { recordCodec } from '../store/records/stored-record.js';
import {
  AuthorizationServer,
  CONNECT_PATH,
  KEPT_UNTIL_DELETED,
  OAUTH_PATH,
  OPERATOR_CLIENT_PREFIX,
} from './authorization-server.js';
import type { ConnectionStore, OAuthStateRecord, OAuthStateStore } from './oauth-store.js';

/** oidc-provider's model of registered clients. */
const CLIENT_MODEL = 'Client';
const INDEX_SLOT_PREFIX = 'oauth-operator-client/';
/** The hosts RFC 8252 calls loopback, as oidc-provider recognizes them. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface NewOperatorClient {
  name: string;
  redirectUris: readonly string[];
  /** A native application (RFC 8252): any port of its loopback redirect URIs is accepted. */
  native: boolean;
}

/** An operator-registered client as the CLI shows it. */
export interface OperatorClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  native: boolean;
  createdAt: string;
  actor: string;
  reason?: string;
}

/** The metadata was refused, by our rules or by oidc-provider's validation; nothing was written. */
export class ClientMetadataRefusedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ClientMetadataRefusedError';
  }
}

/** One slot of the index: which client, and who registered it when and why. */
const indexEntry = recordCodec<Omit<OperatorClient, 'name' | 'redirectUris' | 'native'>>(
  'operator OAuth client index entry',
  () =>
    z.object({
      clientId: z.string().startsWith(OPERATOR_CLIENT_PREFIX),
      createdAt: z.string(),
      actor: z.string(),
      reason: z.string().optional(),
    }),
);

/** The parts of the client record the listing reads; the rest is oidc-provider's. */
const clientPayload = recordCodec('operator OAuth client', () =>
  z.object({
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    application_type: z.enum(['web', 'native']),
  }),
);

export interface OperatorClientStores {
  oauthState: OAuthStateStore;
  settings: SettingStore;
  connections: ConnectionStore;
}

export class OperatorClients {
  constructor(
    private readonly stores: OperatorClientStores,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {}

  /** Registers the client once oidc-provider has accepted its metadata; the client as listed. */
  async register(client: NewOperatorClient, by: Attribution): Promise<OperatorClient> {
    if (client.redirectUris.length === 0)
      throw new ClientMetadataRefusedError('A client needs at least one redirect URI.');
    for (const uri of client.redirectUris) checkRedirectUri(uri, client.native);
    const clientId = `${OPERATOR_CLIENT_PREFIX}${randomBytes(24).toString('base64url')}`;
    const metadata = clientMetadata(clientId, client);
    await this.checkWithProvider(clientId, metadata);
    const { name, redirectUris, native } = client;
    const createdAt = new Date(this.clock.now()).toISOString();
    const reason = by.reason === undefined ? {} : { reason: by.reason };
    await this.claimSlot(JSON.stringify({ clientId, createdAt, actor: by.actor, ...reason }));
    await this.stores.oauthState.put(CLIENT_MODEL, clientId, {
      payload: metadata,
      expiresAt: KEPT_UNTIL_DELETED,
    });
    return { clientId, name, redirectUris: [...redirectUris], native, createdAt, actor: by.actor, ...reason };
  }

  /** Every operator-registered client still registered, oldest first. */
  async list(): Promise<OperatorClient[]> {
    const clients: OperatorClient[] = [];
    for await (const entry of this.indexEntries()) {
      const record = await this.find(entry.clientId);
      if (!record) continue;
      const payload = clientPayload.decode(record.payload, `${CLIENT_MODEL} ${entry.clientId}`);
      clients.push({
        clientId: entry.clientId,
        name: payload.client_name,
        redirectUris: payload.redirect_uris,
        native: payload.application_type === 'native',
        createdAt: entry.createdAt,
        actor: entry.actor,
        ...(entry.reason === undefined ? {} : { reason: entry.reason }),
      });
    }
    return clients;
  }

  /**
   * Deletes the client: new authorizations and refreshes of its tokens are refused from then on.
   * False when no operator-registered client has the id: the index decides, not the prefix alone,
   * since oidc-provider's random DCR ids may begin with anything (and are not the operator's to remove).
   */
  async remove(clientId: string): Promise<boolean> {
    if (!clientId.startsWith(OPERATOR_CLIENT_PREFIX) || !(await this.find(clientId))) return false;
    for await (const entry of this.indexEntries()) {
      if (entry.clientId !== clientId) continue;
      await this.stores.oauthState.delete(CLIENT_MODEL, clientId);
      return true;
    }
    return false;
  }

  /** The index's slots in the order they were claimed, up to the first free one. */
  private async *indexEntries() {
    for (let slot = 0; ; slot += 1) {
      const name = slotName(slot);
      const value = await this.stores.settings.get(name);
      if (value === undefined) return;
      yield indexEntry.decode(JSON.parse(value) as Record<string, unknown>, `setting ${name}`);
    }
  }

  private find(clientId: string): Promise<OAuthStateRecord | undefined> {
    return this.stores.oauthState.find(CLIENT_MODEL, clientId, this.clock.now());
  }

  /** Claims the first free slot of the index for `value` (a slot is created once, atomically). */
  private async claimSlot(value: string): Promise<void> {
    for (let slot = 0; ; slot += 1) {
      if ((await this.stores.settings.getOrCreate(slotName(slot), value)) === value) return;
    }
  }

  /**
   * Loads the client as the running server will: an authorization request from it, answered by an
   * AuthorizationServer whose store holds only this client. A client oidc-provider accepts is sent
   * on to the consent page; any other answer carries the library's reason.
   */
  private async checkWithProvider(clientId: string, metadata: Record<string, unknown>): Promise<void> {
    const { config } = this;
    const resource = mcpResourceUrl(config);
    const server = await AuthorizationServer.create({
      issuer: config.PUBLIC_BASE_URL,
      resource,
      // Nothing signed here leaves the check.
      secrets: [randomBytes(32).toString('base64url')],
      state: new OnlyThisClient(clientId, metadata),
      connections: this.stores.connections,
      clock: this.clock,
      logger: createLogger('silent'),
      accessTokenSeconds: config.OAUTH_ACCESS_TOKEN_SECONDS,
      refreshTokenSeconds: config.OAUTH_REFRESH_TOKEN_DAYS * 86_400,
      codeSeconds: config.OAUTH_CODE_SECONDS,
      clientMetadata: { allowHosts: new Set() },
    });
    const request = new URL(`${OAUTH_PATH}/authorize`, new URL(config.PUBLIC_BASE_URL).origin);
    const challenge = createHash('sha256').update(randomBytes(32)).digest('base64url');
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: String((metadata.redirect_uris as string[])[0]),
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource,
    }))
      request.searchParams.set(name, value);
    const response = await server.handle(new Request(request));
    const location = response.headers.get('location') ?? '';
    if (response.status === 303 && new URL(location, request).pathname.startsWith(`${CONNECT_PATH}/`)) return;
    throw new ClientMetadataRefusedError(
      `oidc-provider refuses the client: ${await refusalReason(response, location)}`,
    );
  }
}

/**
 * Our rules for a redirect URI: an absolute URL without a fragment; for a client that is not native,
 * https, or plain http to a loopback host only (a code sent in clear over a network can be read).
 */
export function checkRedirectUri(uri: string, native: boolean): void {
  const url = URL.parse(uri);
  if (!url) throw new ClientMetadataRefusedError(`"${uri}" is not an absolute URL.`);
  if (uri.includes('#'))
    throw new ClientMetadataRefusedError(`"${uri}" has a fragment; a redirect URI must not.`);
  if (native) return;
  const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!allowed)
    throw new ClientMetadataRefusedError(
      `"${uri}": a client that is not native (--native) must use https, or http to a loopback host (localhost, 127.0.0.1, [::1]).`,
    );
}

/** The client's metadata, as oidc-provider reads a registered client (snake_case, RFC 7591 names). */
function clientMetadata(clientId: string, client: NewOperatorClient): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: client.name,
    redirect_uris: [...client.redirectUris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: client.native ? 'native' : 'web',
    // The server's only signing key is ES256; a client must name an algorithm it has.
    id_token_signed_response_alg: 'ES256',
  };
}

function slotName(slot: number): string {
  return `${INDEX_SLOT_PREFIX}${slot}`;
}

/** The library's reason for an answer other than the consent page: from the redirect or the body. */
async function refusalReason(response: Response, location: string): Promise<string> {
  const redirected = location === '' ? undefined : URL.parse(location)?.searchParams;
  const body = redirected
    ? Object.fromEntries(redirected)
    : ((await response.json().catch(() => ({}))) as Record<string, unknown>);
  const reason = body.error_description ?? body.error;
  return typeof reason === 'string' ? reason : `HTTP ${response.status}`;
}

/** The state store of the check: it holds the candidate client and keeps nothing. */
class OnlyThisClient implements OAuthStateStore {
  constructor(
    private readonly clientId: string,
    private readonly metadata: Record<string, unknown>,
  ) {}

  async put(): Promise<void> {}

  async find(model: string, id: string): Promise<OAuthStateRecord | undefined> {
    return model === CLIENT_MODEL && id === this.clientId
      ? { payload: this.metadata, expiresAt: KEPT_UNTIL_DELETED }
      : undefined;
  }

  async findByUid(): Promise<undefined> {
    return undefined;
  }

  async consume(): Promise<void> {}

  async delete(): Promise<void> {}

  async deleteGrant(): Promise<void> {}
}
