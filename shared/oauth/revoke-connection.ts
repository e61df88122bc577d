/**
 * Revoking a connection, whoever asks: marked revoked first, so the /mcp resource server refuses its
 * access tokens (within KEY_CACHE_SECONDS), then every record of its grant deleted (codes, refresh
 * tokens, the grant itself), so nothing can bring it back. A second revocation keeps the first time
 * and reason and deletes again (nothing, or what a crash between the two steps left).
 */
import type { ConnectionRevocation, ConnectionStore, OAuthStateStore } from './oauth-store.js';

/** False when there is no such connection. */
export async function revokeConnection(
  stores: { connections: ConnectionStore; oauthState: OAuthStateStore },
  connectionId: string,
  at: string,
  reason: ConnectionRevocation,
): Promise<boolean> {
  if (!(await stores.connections.revoke(connectionId, at, reason))) return false;
  await stores.oauthState.deleteGrant(connectionId);
  return true;
}
