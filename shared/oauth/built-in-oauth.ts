/**
 * The built-in authorization server and its resource-server side, made once per service on first use
 * and shared by whatever the process serves: the OAuth endpoints, the console's connect page and
 * /mcp. Lazily, because the signing secret may have to be read from (or first written to) the store,
 * and a process that never sees an OAuth request (a REST Lambda) should not pay for it. The
 * authorization server (oidc-provider and Koa, most of a bundle that carries it) is imported only when
 * a process serves the OAuth endpoints: /mcp only checks tokens, with jose, which it too imports at
 * the first token it checks (a caller with an API key never needs it).
 */
import { mcpResourceUrl } from '../config.js';
import { lazy } from '../lazy.js';
import type { Service } from '../service.js';
import type { ConnectionTokenAuthenticator } from './access-tokens.js';
import type { AuthorizationServer } from './authorization-server.js';

export interface BuiltInOAuth {
  server(): Promise<AuthorizationServer>;
  tokens(): Promise<ConnectionTokenAuthenticator>;
}

const byService = new WeakMap<Service, BuiltInOAuth>();

export function builtInOAuth(service: Service): BuiltInOAuth {
  let made = byService.get(service);
  if (made) return made;
  const { config, repositories, clock, logger } = service;
  const secrets = lazy(async () => {
    const { signingSecrets } = await import('./signing-keys.js');
    return signingSecrets(config.OAUTH_SIGNING_SECRET, repositories.settings);
  });
  const resource = mcpResourceUrl(config);
  made = {
    server: lazy(async () => {
      const { AuthorizationServer } = await import('./authorization-server.js');
      return AuthorizationServer.create({
        issuer: config.PUBLIC_BASE_URL,
        resource,
        secrets: await secrets(),
        state: repositories.oauthState,
        connections: repositories.connections,
        clock,
        logger,
        accessTokenSeconds: config.OAUTH_ACCESS_TOKEN_SECONDS,
        refreshTokenSeconds: config.OAUTH_REFRESH_TOKEN_DAYS * 86_400,
        codeSeconds: config.OAUTH_CODE_SECONDS,
        clientMetadata: {
          allowHosts: config.UNSAFE_OAUTH_CLIENT_ALLOW_HOSTS,
          ca: config.UNSAFE_OAUTH_CLIENT_CA,
        },
      });
    }),
    tokens: lazy(async () => {
      const { ConnectionTokenAuthenticator } = await import('./access-tokens.js');
      return ConnectionTokenAuthenticator.create(
        { issuer: config.PUBLIC_BASE_URL, audience: resource, secrets: await secrets() },
        repositories.connections,
        repositories.accounts,
        clock,
        config.KEY_CACHE_SECONDS * 1000,
      );
    }),
  };
  byService.set(service, made);
  return made;
}
