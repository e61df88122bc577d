/**
 * The operator's commands for the built-in OAuth authorization server: clients registered by hand
 * (shared/oauth/operator-clients.ts) and the connections customers approved. Kept apart from
 * commands.ts, which the reconcile Lambda bundles: these load oidc-provider.
 */
import type { Attribution } from '../../shared/accounts/accounts.js';
import { systemClock } from '../../shared/clock.js';
import type { ConnectionRecord } from '../../shared/oauth/oauth-store.js';
import {
  ClientMetadataRefusedError,
  type NewOperatorClient,
  OperatorClients,
} from '../../shared/oauth/operator-clients.js';
import { revokeConnection as revokeStoredConnection } from '../../shared/oauth/revoke-connection.js';
import { CommandRefusedError } from './command-refused.js';
import type { CommandContext } from './run-command.js';

const operatorClients = ({ repositories, config }: CommandContext) =>
  new OperatorClients(repositories, config, systemClock);

/** Registers the client, or refuses its metadata with `invalid_argument` (nothing is written then). */
export async function registerClient(context: CommandContext, client: NewOperatorClient, by: Attribution) {
  try {
    return await operatorClients(context).register(client, by);
  } catch (error) {
    if (error instanceof ClientMetadataRefusedError)
      throw new CommandRefusedError('invalid_argument', error.message);
    throw error;
  }
}

export function listClients(context: CommandContext) {
  return operatorClients(context).list();
}

export async function removeClient(context: CommandContext, clientId: string) {
  if (!(await operatorClients(context).remove(clientId)))
    throw new CommandRefusedError('not_found', `No client ${clientId} registered by the operator.`);
  return { clientId, removed: true };
}

/** A connection as the operator sees it (the account is the one asked about). */
function connectionView({ accountId: _, ...connection }: ConnectionRecord) {
  return connection;
}

/** The account's connections, newest first, revoked ones included. */
export async function listConnections({ repositories }: CommandContext, accountId: string) {
  await repositories.accounts.require(accountId);
  return (await repositories.connections.list(accountId)).map(connectionView);
}

/**
 * Revokes the connection (reason `operator`) and deletes its tokens; recorded in the account's
 * history the first time. Revoking it again changes nothing and prints it as it is.
 */
export async function revokeConnection(
  { repositories }: CommandContext,
  connectionId: string,
  by: Attribution,
) {
  const before = await repositories.connections.get(connectionId);
  const at = new Date(systemClock.now()).toISOString();
  if (!before || !(await revokeStoredConnection(repositories, connectionId, at, 'operator')))
    throw new CommandRefusedError('not_found', `No connection ${connectionId}.`);
  if (before.revokedAt === null)
    await repositories.accounts.record(before.accountId, 'oauth.connection_revoked', { connectionId }, by);
  const after = await repositories.connections.get(connectionId);
  return connectionView(after ?? before);
}
