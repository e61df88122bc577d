/**
 * OAuth in the console: the connect page where a person approves an agent (the built-in
 * authorization server's consent step), and Connections, the list of approved agents with their
 * scopes, spend cap and last use, each with a revoke button.
 */
import type { Family } from '../../../schemas/operation-definition.js';
import type { PendingAuthorization } from '../../oauth/authorization-server.js';
import type { ConnectionRecord } from '../../oauth/oauth-store.js';
import { CSRF_FIELD } from '../console-security.js';
import { Layout, type LayoutProps, Notice, ScrollingTable } from './layout.js';

type SignedInProps = NonNullable<LayoutProps['signedIn']>;

/** A time as the console shows it: minutes, UTC. */
const minutes = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** How a client names itself, and where it can be told apart from a look-alike: its URL's host. */
function clientLabel(client: { clientId: string; clientName: string | null }): string {
  const host = /^https:\/\//.test(client.clientId) ? new URL(client.clientId).host : undefined;
  if (client.clientName && host) return `${client.clientName} (${host})`;
  return client.clientName ?? host ?? `client ${client.clientId}`;
}

/** What the consent page says of who named the client; a metadata document's host is in its label. */
const registrarNotes: Readonly<Record<PendingAuthorization['registeredBy'], string>> = {
  'metadata-document': '',
  operator: ' This service’s operator registered this client under this name.',
  itself:
    ' This client registered itself: its name is its own claim, so approve only if you just started this connection.',
};

export function ConnectPage(props: {
  assets: LayoutProps['assets'];
  signedIn: SignedInProps;
  pending: PendingAuthorization;
  error?: string;
  /** The form's values when it is shown again after an error. */
  chosen?: { families: readonly Family[]; dailyCreditCap: string };
}) {
  const { pending } = props;
  const chosen = props.chosen?.families ?? pending.requestedFamilies;
  const redirect = new URL(pending.redirectUri);
  return (
    <Layout title="Connect an agent" assets={props.assets} signedIn={props.signedIn}>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <p>
        <strong id="client-name">{clientLabel(pending)}</strong> asks to call this service’s tools for{' '}
        <strong>{props.signedIn.accountName}</strong>. Its calls are billed to this account’s credits and
        count against its rate limit.
      </p>
      <p class="muted">
        After you approve, your browser returns to{' '}
        <code>{redirect.origin === 'null' ? redirect.protocol : redirect.origin}</code>.
        {registrarNotes[pending.registeredBy]}
      </p>
      <form method="post" action={`/console/connect/${pending.uid}`} class="stacked" id="connect-form">
        <input type="hidden" name={CSRF_FIELD} value={props.signedIn.csrfToken} />
        <fieldset>
          <legend>What it may call (of what it asked for)</legend>
          {pending.requestedFamilies.map((family) => (
            <label>
              <input type="checkbox" name="families" value={family} checked={chosen.includes(family)} />{' '}
              {family}
            </label>
          ))}
        </fieldset>
        <label for="daily-cap">Daily spend cap for this connection (credits, optional)</label>
        <input
          type="text"
          inputmode="numeric"
          id="daily-cap"
          name="dailyCreditCap"
          value={props.chosen?.dailyCreditCap ?? ''}
          autocomplete="off"
          aria-describedby="daily-cap-help"
        />
        <p id="daily-cap-help" class="muted">
          Calls past the cap are refused (402) until the next UTC day; the account’s balance limits it anyway.
        </p>
        <div class="actions">
          <button type="submit" name="decision" value="approve">
            Approve
          </button>
          <button type="submit" name="decision" value="deny" class="secondary">
            Deny
          </button>
        </div>
      </form>
    </Layout>
  );
}

export function ConnectionsPage(props: {
  assets: LayoutProps['assets'];
  signedIn: SignedInProps;
  connections: readonly ConnectionRecord[];
  notice?: string;
}) {
  const active = props.connections.filter((connection) => connection.revokedAt === null);
  return (
    <Layout title="Connections" assets={props.assets} current="connections" signedIn={props.signedIn}>
      <Notice text={props.notice} />
      <p>
        Agents you connected with OAuth (the tool endpoint’s one-click sign-in). Each holds no API key: it
        calls for this account within the scopes and cap you approved, until you revoke it here.
      </p>
      {active.length === 0 ? (
        <p id="no-connections">No agent is connected.</p>
      ) : (
        <ScrollingTable label="Connected agents">
          <table id="connections">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">May call</th>
                <th scope="col">Daily cap</th>
                <th scope="col">Connected</th>
                <th scope="col">Last used</th>
                <th scope="col">Revoke</th>
              </tr>
            </thead>
            <tbody>
              {active.map((connection) => (
                <tr>
                  <th scope="row">{clientLabel(connection)}</th>
                  <td>{connection.scopes.join(', ')}</td>
                  <td>
                    {connection.dailyCreditCap === null ? 'none' : `${connection.dailyCreditCap} credits`}
                  </td>
                  <td>{minutes(connection.createdAt)}</td>
                  <td>{connection.lastUsedAt ? minutes(connection.lastUsedAt) : 'never'}</td>
                  <td>
                    <form method="post" action={`/console/connections/${connection.connectionId}/revoke`}>
                      <input type="hidden" name={CSRF_FIELD} value={props.signedIn.csrfToken} />
                      <button type="submit" class="danger" aria-label={`Revoke ${clientLabel(connection)}`}>
                        Revoke
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollingTable>
      )}
    </Layout>
  );
}
