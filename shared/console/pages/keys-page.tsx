/**
 * The Keys page: the account's keys with revoke and rotate, the form to issue one, and the page that
 * shows a new key once (with a copy button the console script wires up).
 */
import { families } from '../../../schemas/operation-definition.js';
import type { ApiKeyRecord } from '../../auth/api-keys.js';
import { CSRF_FIELD } from '../console-security.js';
import { Layout, type LayoutProps, Notice, ScrollingTable, type SignedIn } from './layout.js';

const day = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');

/** A key's spend caps in words: `10/day, 200/month`, or `none`. */
function caps(key: Pick<ApiKeyRecord, 'dailyCreditCap' | 'monthlyCreditCap'>): string {
  const each = [
    key.dailyCreditCap === null ? undefined : `${key.dailyCreditCap}/day`,
    key.monthlyCreditCap === null ? undefined : `${key.monthlyCreditCap}/month`,
  ].filter((cap) => cap !== undefined);
  return each.length > 0 ? each.join(', ') : 'none';
}

function keyStatus(key: ApiKeyRecord, now: number): string {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return key.expiresAt ? 'active (expiring)' : 'active';
}

function Token(props: { csrfToken: string; keyId: string }) {
  return (
    <>
      <input type="hidden" name={CSRF_FIELD} value={props.csrfToken} />
      <input type="hidden" name="keyId" value={props.keyId} />
    </>
  );
}

export function KeysPage(props: {
  assets: LayoutProps['assets'];
  signedIn: SignedIn;
  keys: readonly ApiKeyRecord[];
  signedInKeyId?: string;
  now: number;
  overlaps: ReadonlyMap<string, { label: string }>;
  error?: string;
  notice?: string;
}) {
  const { csrfToken } = props.signedIn;
  return (
    <Layout title="Keys" assets={props.assets} current="keys" signedIn={props.signedIn}>
      <Notice text={props.notice} />
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <ScrollingTable label="Keys of this account">
        <table>
          <caption>Keys of this account</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Label</th>
              <th scope="col">Scopes</th>
              <th scope="col">Spend caps</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.keys.map((key) => {
              const status = keyStatus(key, props.now);
              const active = status.startsWith('active');
              return (
                <tr data-key-id={key.keyId}>
                  <td>
                    <code>{key.preview}</code>
                    <br />
                    <span class="muted">{key.keyId}</span>
                    {key.keyId === props.signedInKeyId && <span class="muted"> (this session’s key)</span>}
                  </td>
                  <td>{key.label ?? '—'}</td>
                  <td>{key.scopes ? key.scopes.join(', ') : 'all'}</td>
                  <td>{caps(key)}</td>
                  <td>{day(key.createdAt)}</td>
                  <td>{day(key.expiresAt)}</td>
                  <td>{day(key.lastUsedAt)}</td>
                  <td>{status}</td>
                  <td>
                    {active && (
                      <>
                        <form method="post" action="/console/keys/revoke" class="inline-form">
                          <Token csrfToken={csrfToken} keyId={key.keyId} />
                          <button type="submit" class="danger" aria-label={`Revoke ${key.keyId}`}>
                            Revoke
                          </button>
                        </form>
                        <form method="post" action="/console/keys/rotate" class="inline-form">
                          <Token csrfToken={csrfToken} keyId={key.keyId} />
                          <label for={`overlap-${key.keyId}`}>Old key works for</label>
                          <select id={`overlap-${key.keyId}`} name="overlap">
                            {[...props.overlaps].map(([value, overlap]) => (
                              <option value={value} selected={value === '24h'}>
                                {overlap.label}
                              </option>
                            ))}
                          </select>
                          <button type="submit" class="secondary" aria-label={`Rotate ${key.keyId}`}>
                            Rotate
                          </button>
                        </form>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollingTable>

      <h2 id="issue">Issue a key</h2>
      <form method="post" action="/console/keys" class="stacked" aria-labelledby="issue">
        <input type="hidden" name={CSRF_FIELD} value={csrfToken} />
        <label for="label">Label (what the key is for)</label>
        <input type="text" id="label" name="label" maxlength={100} />
        <fieldset>
          <legend>Scopes (none ticked: every family)</legend>
          {families.map((family) => (
            <label class="inline-form">
              <input type="checkbox" name="scopes" value={family} /> {family}
            </label>
          ))}
        </fieldset>
        <label for="expires">Expires on (optional, 00:00 UTC)</label>
        <input type="date" id="expires" name="expires" />
        <label for="daily-cap">Daily credit cap (optional, per UTC day)</label>
        <input type="text" inputmode="numeric" id="daily-cap" name="dailyCreditCap" pattern="[0-9]*" />
        <label for="monthly-cap">Monthly credit cap (optional, per UTC month)</label>
        <input type="text" inputmode="numeric" id="monthly-cap" name="monthlyCreditCap" pattern="[0-9]*" />
        <button type="submit">Issue key</button>
      </form>
    </Layout>
  );
}

export function IssuedKeyPage(props: {
  assets: LayoutProps['assets'];
  signedIn: SignedIn;
  apiKey: string;
  record: ApiKeyRecord;
  replaced?: ApiKeyRecord;
}) {
  return (
    <Layout title="New key" assets={props.assets} current="keys" signedIn={props.signedIn}>
      <p class="notice" role="status">
        Key {props.record.keyId} is issued. Copy it now: it is shown only once and cannot be shown again.
      </p>
      {props.replaced && (
        <p>
          It replaces {props.replaced.keyId}, which stops working at {day(props.replaced.expiresAt)}.
        </p>
      )}
      <code id="new-key" class="secret">
        {props.apiKey}
      </code>
      <button type="button" data-copy="new-key" data-status="copy-status" hidden>
        Copy key
      </button>
      <p id="copy-status" role="status" aria-live="polite" />
      <dl>
        <dt>Label</dt>
        <dd>{props.record.label ?? '—'}</dd>
        <dt>Scopes</dt>
        <dd>{props.record.scopes ? props.record.scopes.join(', ') : 'all'}</dd>
        <dt>Expires</dt>
        <dd>{day(props.record.expiresAt)}</dd>
        <dt>Spend caps</dt>
        <dd>{caps(props.record)}</dd>
      </dl>
      <p>
        <a href="/console/keys">Back to the keys</a>
      </p>
    </Layout>
  );
}
