/**
 * Passkeys: the account's passkeys (name, when registered, when last used), a button to register
 * one on this device (run by the console's script; without JavaScript or WebAuthn the page says
 * so), and removal, which ends the sessions the passkey signed in.
 */
import type { PasskeyRecord } from '../../auth/passkeys.js';
import { CSRF_FIELD } from '../console-security.js';
import { Layout, type LayoutProps, Notice, ScrollingTable } from './layout.js';

export function PasskeysPage(props: {
  assets: LayoutProps['assets'];
  signedIn: NonNullable<LayoutProps['signedIn']>;
  passkeys: readonly PasskeyRecord[];
  /** The passkey this session signed in with, if it did. */
  signedInWith?: string;
  /** False where the console's public URL cannot take WebAuthn (an IP address, or plain http). */
  canRegister: boolean;
  notice?: string;
}) {
  return (
    <Layout title="Passkeys" assets={props.assets} current="passkeys" signedIn={props.signedIn}>
      <Notice text={props.notice} />
      <p>
        A passkey signs you in to this console with your device’s screen lock or security key, so no API key
        is pasted into a browser again. Passkeys open the console only; the API still takes keys.
      </p>
      {props.canRegister ? (
        <section aria-labelledby="register-heading">
          <h2 id="register-heading">Register a passkey on this device</h2>
          <form id="passkey-register" class="stacked" data-csrf={props.signedIn.csrfToken}>
            <label for="passkey-label">Name (optional)</label>
            <input type="text" id="passkey-label" name="label" maxlength={100} autocomplete="off" />
            <button type="submit" id="passkey-register-button" disabled>
              Register a passkey
            </button>
            <p id="passkey-register-status" class="muted" role="status">
              Registering needs JavaScript and a browser with passkeys (WebAuthn).
            </p>
          </form>
        </section>
      ) : (
        <p class="notice" id="passkeys-unavailable">
          Passkeys need this console to be reached by a domain name over https (or at http://localhost): its
          public address is not one, so none can be registered here. Sign in with a key; the operator sets the
          address (PUBLIC_BASE_URL).
        </p>
      )}
      <section aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">Registered passkeys</h2>
        {props.passkeys.length === 0 ? (
          <p>No passkeys yet.</p>
        ) : (
          <ScrollingTable label="Registered passkeys">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Registered</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Remove</th>
                </tr>
              </thead>
              <tbody>
                {props.passkeys.map((passkey) => (
                  <tr>
                    <th scope="row">
                      {passkey.label ?? 'Unnamed passkey'}
                      {passkey.credentialId === props.signedInWith && ' (this session)'}
                    </th>
                    <td>{passkey.createdAt.slice(0, 16).replace('T', ' ')} UTC</td>
                    <td>
                      {passkey.lastUsedAt
                        ? `${passkey.lastUsedAt.slice(0, 16).replace('T', ' ')} UTC`
                        : 'never'}
                    </td>
                    <td>
                      <form method="post" action="/console/passkeys/remove">
                        <input type="hidden" name={CSRF_FIELD} value={props.signedIn.csrfToken} />
                        <input type="hidden" name="credentialId" value={passkey.credentialId} />
                        <button type="submit" class="danger">
                          Remove {passkey.label ?? 'this passkey'}
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollingTable>
        )}
      </section>
    </Layout>
  );
}
